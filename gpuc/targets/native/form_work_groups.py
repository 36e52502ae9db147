"""`form-work-groups`: decide, at the dialect level, how the native target runs
a barrier kernel as a work-group function (docs/native-abi.md), and write the
decisions on the kernel's ops, where `--print-ir-after-all` and lit tests see
them and the lowering (`work_groups.py`) reads them instead of deciding again:

- where each op runs (`gpuc.wg.run`, `gpuc.wg.region`): once for the block
  (`"once"`: every result uniform), at the block level around the barriers it
  contains (`"split"`), as a loop run over groups of lanes (`"lanes"`), or in
  thread loop N, one of the barrier-free regions;
- which values may differ between the threads (`gpuc.wg.varying`, and
  `gpuc.wg.thread` for those computed from a thread index; `..._args` for the
  arguments of an op's blocks), the rest being uniform;
- which values live across a region boundary in context storage
  (`gpuc.wg.spill`), the other varying values a later region uses being
  recomputed there from the thread index.

The kernel gets `gpuc.wg.formed`, and so does each helper that reaches a
barrier and that a kernel calls (the lowering emits its body at every call
site): decided once, each argument as varying as it is at any of the calls,
once all the helper's callers are decided (`HelperSeeds`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from gpuc.diagnostics import OpError
from gpuc.dialects.analysis import INDIRECT, module_facts
from gpuc.dialects.attrs import (
    FINALIZED_ATTR,
    AddressSpace,
    Dim,
    FinalizedAttr,
    PtrType,
)
from gpuc.dialects.call_graph import invalidate_call_graph
from gpuc.dialects.functions import CallIndirectOp, CallOp, FuncOp
from gpuc.dialects.index import BarrierOp, GlobalIdOp, ThreadIdOp
from gpuc.dialects.memory import AtomicRMWOp, LoadOp
from gpuc.dialects.subgroup import COLLECTIVE_OPS
from gpuc.targets.native.regrouped_sums import sink_regrouped_sums
from gpuc.targets.native.uniformity import (
    THREAD_INDEX_OPS,
    Uniformity,
    computes_only,
    first_barrier,
)

RECOMPUTE_LIMIT = 8
"""Ops a thread loop may recompute to get one value instead of loading it."""

FORMED = "gpuc.wg.formed"
RUN = "gpuc.wg.run"
REGION = "gpuc.wg.region"
VARYING = "gpuc.wg.varying"
THREAD = "gpuc.wg.thread"
VARYING_ARGS = "gpuc.wg.varying_args"
THREAD_ARGS = "gpuc.wg.thread_args"
SPILL = "gpuc.wg.spill"
ATTRS = (RUN, REGION, VARYING, THREAD, VARYING_ARGS, THREAD_ARGS, SPILL)

SPLIT_OPS = (
    scf.IfOp,
    scf.IndexSwitchOp,
    scf.ForOp,
    scf.WhileOp,
    scf.ExecuteRegionOp,
)
"""Structured ops whose blocks a work-group function runs at the block level
when they contain a barrier."""


@dataclass
class Decisions:
    """How one body runs as a work-group function."""

    uniformity: Uniformity
    structural: set[Operation] = field(default_factory=set[Operation])
    """Ops that contain a barrier or a collective (or are one, or call a
    helper that reaches one): run at the block level."""
    interchanged: set[Operation] = field(default_factory=set[Operation])
    """Innermost loops run over groups of lanes: uniform ones over shared
    memory, and block-stride ones (`block_strided`)."""
    regions: dict[Operation, int] = field(default_factory=dict[Operation, int])
    """The thread loop each op of a level block that runs per thread is in."""
    once: set[Operation] = field(default_factory=set[Operation])
    """The ops of a level block that run once for the block."""
    spills: set[SSAValue] = field(default_factory=set[SSAValue])
    """Values kept per thread in context storage after their region."""


def reads_shared(op: Operation) -> bool:
    for inner in op.walk():
        if isinstance(inner, LoadOp | AtomicRMWOp):
            ptr = inner.ptr.type
            if isinstance(ptr, PtrType) and ptr.space.data == AddressSpace.SHARED:
                return True
    return False


def find_structural(func: FuncOp, barrier_helpers: set[str]) -> set[Operation]:
    """The ops of `func` that contain a barrier or a subgroup collective (or
    call a helper that reaches one), and those ops themselves."""
    found: set[Operation] = set()
    for op in func.walk():
        if isinstance(op, CallIndirectOp) and INDIRECT in barrier_helpers:
            raise OpError(
                op,
                "calls a function through a pointer in a kernel with "
                "barriers, and some function whose address is taken reaches "
                "a barrier; the native target splits kernels only at "
                "barriers it can see: call that function directly",
            )
        if isinstance(op, (BarrierOp, *COLLECTIVE_OPS)) or (
            isinstance(op, CallOp) and op.callee.root_reference.data in barrier_helpers
        ):
            parent: Operation | None = op
            while parent is not None and parent is not func:
                found.add(parent)
                parent = parent.parent_op()
    return found


def _innermost_at_level(op: Operation, structural: set[Operation]) -> bool:
    """`op` is an scf.for that is not split, inside split ops only, whose
    body has no regions and calls nothing."""
    if not isinstance(op, scf.ForOp) or op in structural:
        return False
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        if parent not in structural:
            return False
        parent = parent.parent_op()
    return not any(
        inner.regions or isinstance(inner, CallOp | CallIndirectOp)
        for inner in op.body.block.ops
    )


def interchangeable(
    op: Operation, uniformity: Uniformity, structural: set[Operation]
) -> bool:
    """An innermost scf.for with uniform bounds that reads shared memory,
    inside split ops only: one loop over the threads per iteration."""
    if not isinstance(op, scf.ForOp) or not _innermost_at_level(op, structural):
        return False
    if any(uniformity.is_varying(v) for v in (op.lb, op.ub, op.step)):
        return False
    return reads_shared(op)


def block_strided(
    op: Operation, uniformity: Uniformity, structural: set[Operation]
) -> bool:
    """An innermost scf.for from a thread-dependent lower bound to a uniform
    bound by a uniform step (`for j in range(t, n, BLOCK)`), inside split ops
    only: run over groups of lanes, each iteration for all lanes of a group
    (the lanes then vectorize; each thread's iterations keep their order)."""
    if not isinstance(op, scf.ForOp) or not _innermost_at_level(op, structural):
        return False
    if op.lb not in uniformity.thread_dependent or op.lb.type != IndexType():
        return False
    return not any(uniformity.is_varying(v) for v in (op.ub, op.step))


class Recompute:
    """Which varying values a thread loop recomputes from thread indices and
    uniform values (a few pure ops), which is cheaper than context storage
    and keeps the index arithmetic visible to LLVM's vectorizer."""

    def __init__(self, decisions: Decisions) -> None:
        self.decisions = decisions
        self.costs: dict[SSAValue, int] = {}

    def __call__(self, value: SSAValue) -> bool:
        return self.cost(value) <= RECOMPUTE_LIMIT

    def cost(self, value: SSAValue) -> int:
        if not self.decisions.uniformity.is_varying(value):
            return 0
        found = self.costs.get(value)
        if found is not None:
            return found
        cost = RECOMPUTE_LIMIT + 1
        if isinstance(value, OpResult):
            op = value.op
            if isinstance(op, THREAD_INDEX_OPS):
                cost = 1
            elif (
                not op.regions
                and op not in self.decisions.structural
                and len(op.results) == 1
                and computes_only(op)
            ):
                cost = 1 + sum(self.cost(v) for v in op.operands)
        self.costs[value] = cost
        return cost


def runs_once(op: Operation, uniformity: Uniformity) -> bool:
    """An op without regions whose results are all uniform."""
    return (
        not op.regions
        and bool(op.results)
        and not any(uniformity.is_varying(r) for r in op.results)
    )


def walked(ops: Sequence[Operation]) -> dict[Operation, None]:
    """`ops` and every op nested in them, in order (a dict: iterating a set
    of ops would order the IR by their addresses, which differ per run)."""
    return {inner: None for op in ops for inner in op.walk()}


def level_ops(block: Block) -> list[Operation]:
    """`block`'s ops but its terminator."""
    ops = list(block.ops)
    if ops and ops[-1].has_trait(IsTerminator):
        ops.pop()
    return ops


def one_thread_if(
    op: Operation, pending: list[Operation], d: Decisions, recompute: Recompute
) -> bool:
    """An scf.if without results or else on `thread_id x == u` (u uniform)
    whose operands from the region before it (`pending`) are all recomputed:
    a thread loop of its own, which the lowering runs for thread u only
    instead of testing every thread (a vector loop would test the lanes and
    store through a scatter)."""
    if not isinstance(op, scf.IfOp) or op.results or op.false_region.blocks:
        return False
    cond = op.cond
    if not isinstance(cond, OpResult) or not isinstance(cond.op, arith.CmpiOp):
        return False
    cmp = cond.op
    if cmp.predicate.value.data != 0:  # eq
        return False
    sides = [cmp.lhs, cmp.rhs]
    xs = [v for v in sides if is_thread_x(v)]
    if len(xs) != 1 or any(d.uniformity.is_varying(v) for v in sides if v not in xs):
        return False
    before = walked(pending)
    return all(
        recompute(operand)
        for inner in op.walk()
        for operand in inner.operands
        if isinstance(operand, OpResult) and operand.op in before
    )


def is_global_x(value: SSAValue) -> bool:
    return (
        isinstance(value, OpResult)
        and isinstance(value.op, GlobalIdOp)
        and value.op.dimension.data == Dim.X
    )


def is_thread_x(value: SSAValue) -> bool:
    return (
        isinstance(value, OpResult)
        and isinstance(value.op, ThreadIdOp)
        and value.op.dimension.data == Dim.X
    )


def _partition(block: Block, d: Decisions, recompute: Recompute) -> None:
    """Number the thread loops of `block` (and of the split ops in it) in
    emission order, and find the values each leaves in context storage."""
    pending: list[Operation] = []

    def close() -> None:
        if not pending:
            return
        number = len(set(d.regions.values()))
        inside = walked(pending)
        for op in pending:
            d.regions[op] = number
            for r in op.results:
                if (
                    d.uniformity.is_varying(r)
                    and not recompute(r)
                    and any(use.operation not in inside for use in r.uses)
                ):
                    d.spills.add(r)
        pending.clear()

    for op in level_ops(block):
        if op in d.interchanged or op in d.structural:
            close()
            if op in d.structural and isinstance(op, SPLIT_OPS):
                for region in op.regions:
                    for inner in region.blocks:
                        _partition(inner, d, recompute)
        elif runs_once(op, d.uniformity):
            d.once.add(op)
        elif one_thread_if(op, pending, d, recompute):
            close()
            pending.append(op)
            close()
        else:
            pending.append(op)
    close()


def controls(op: Operation) -> list[tuple[SSAValue, str]]:
    """What a split op branches on, which every thread must agree on."""
    if isinstance(op, scf.IfOp):
        return [(op.cond, "the condition")]
    if isinstance(op, scf.IndexSwitchOp):
        return [(op.arg, "the selector")]
    if isinstance(op, scf.ForOp):
        return [
            (op.lb, "the lower bound"),
            (op.ub, "the upper bound"),
            (op.step, "the step"),
        ]
    if isinstance(op, scf.WhileOp):
        condition = op.before_region.block.last_op
        assert isinstance(condition, scf.ConditionOp)
        return [(condition.condition, "the condition")]
    return []


def check_reached(body: Block, d: Decisions, barrier_helpers: set[str]) -> None:
    """A barrier under a split op whose control depends on the thread index
    is one that not every thread reaches: a diagnostic. (Control that is
    varying for another reason is checked for agreement at run time.)"""
    for op in body.walk():
        if op not in d.structural:
            continue
        for value, what in controls(op):
            if value in d.uniformity.thread_dependent:
                raise OpError(
                    first_barrier(op, barrier_helpers),
                    f"is not reached by every thread of the block: {what} of "
                    f"the enclosing '{op.name}' depends on the thread index, "
                    "and a barrier that some threads skip is undefined on GPUs "
                    "and cannot run on the native target; move the barrier out "
                    "of the condition",
                )


def decide(
    func: FuncOp,
    body: Block,
    barrier_helpers: set[str],
    seeds: Iterable[tuple[BlockArgument, bool, bool]] = (),
) -> Decisions:
    """How `body` (a kernel's, or a helper's for all its calls, its arguments
    varying and thread-dependent as `seeds` say) runs as a work-group
    function."""
    seeds = list(seeds)
    structural = find_structural(func, barrier_helpers)

    def classify(split: set[Operation]) -> Uniformity:
        found = Uniformity(lambda op: op in split)
        for arg, varying, dependent in seeds:
            found.like(arg, [], varying)
            if dependent:
                found.thread_dependent.add(arg)
        found.classify(body)
        return found

    first = classify(structural)
    interchanged = {op for op in body.walk() if interchangeable(op, first, structural)}
    strided = {op for op in body.walk() if block_strided(op, first, structural)}
    d = Decisions(
        classify(structural | interchanged), structural, interchanged | strided
    )
    check_reached(body, d, barrier_helpers)
    _partition(body, d, Recompute(d))
    return d


def _indices(values: Iterable[SSAValue], chosen: set[SSAValue]) -> list[int]:
    return [i for i, v in enumerate(values) if v in chosen]


def _block_args(op: Operation) -> list[BlockArgument]:
    return [
        arg for region in op.regions for block in region.blocks for arg in block.args
    ]


def _set(op: Operation, name: str, indices: list[int]) -> None:
    if indices:
        op.attributes[name] = DenseArrayBase.from_list(i64, indices)


def annotate(func: FuncOp, d: Decisions) -> None:
    """Write `d` on `func`'s ops (replacing what an earlier run wrote)."""
    varying, dependent = d.uniformity.varying, d.uniformity.thread_dependent
    for name in (VARYING_ARGS, THREAD_ARGS):
        func.attributes.pop(name, None)
    for op in func.body.walk():
        for name in ATTRS:
            op.attributes.pop(name, None)
        _set(op, VARYING, _indices(op.results, varying))
        _set(op, THREAD, _indices(op.results, dependent))
        _set(op, VARYING_ARGS, _indices(_block_args(op), varying))
        _set(op, THREAD_ARGS, _indices(_block_args(op), dependent))
        _set(op, SPILL, _indices(op.results, d.spills))
        if op in d.regions:
            op.attributes[REGION] = IntegerAttr(d.regions[op], i64)
        elif op in d.interchanged:
            op.attributes[RUN] = StringAttr("lanes")
        elif op in d.structural:
            op.attributes[RUN] = StringAttr("split")
        elif op in d.once:
            op.attributes[RUN] = StringAttr("once")
    entry = func.body.blocks.first
    assert entry is not None
    _set(func, VARYING_ARGS, _indices(entry.args, varying))
    _set(func, THREAD_ARGS, _indices(entry.args, dependent))
    func.attributes[FORMED] = UnitAttr()


def _read(op: Operation, name: str) -> list[int]:
    attr = op.attributes.get(name)
    if attr is None:
        return []
    if not isinstance(attr, DenseArrayBase):
        raise OpError(op, f"'{name}' must be an array<i64: ...> (form-work-groups)")
    return [int(v) for v in attr.get_values()]


def read(func: FuncOp) -> Decisions | None:
    """The decisions `annotate` wrote on `func`, None if it has none."""
    if FORMED not in func.attributes:
        return None
    d = Decisions(Uniformity(lambda op: False))
    u = d.uniformity

    def mark(values: Sequence[SSAValue], op: Operation, v: str, t: str) -> None:
        u.varying.update(values[i] for i in _read(op, v))
        u.thread_dependent.update(values[i] for i in _read(op, t))

    mark(list(func.body.block.args), func, VARYING_ARGS, THREAD_ARGS)
    for op in func.body.walk():
        mark(list(op.results), op, VARYING, THREAD)
        mark(_block_args(op), op, VARYING_ARGS, THREAD_ARGS)
        d.spills.update(op.results[i] for i in _read(op, SPILL))
        region = op.attributes.get(REGION)
        if isinstance(region, IntegerAttr):
            d.regions[op] = region.value.data
        run = op.attributes.get(RUN)
        if run == StringAttr("split"):
            d.structural.add(op)
        elif run == StringAttr("lanes"):
            d.interchanged.add(op)
        elif run == StringAttr("once"):
            d.once.add(op)
    # Ops nested in a thread loop's ops carry no placement; a barrier's or a
    # collective's ancestors all are split ops, so `structural` is complete.
    return d


def barrier_calls(func: FuncOp, barrier_helpers: set[str]) -> list[CallOp]:
    """The calls in `func` of helpers that reach a barrier."""
    return [
        op
        for op in func.walk()
        if isinstance(op, CallOp) and op.callee.root_reference.data in barrier_helpers
    ]


def callers_first(
    kernels: Sequence[FuncOp], funcs: dict[str, FuncOp], barrier_helpers: set[str]
) -> list[FuncOp]:
    """The helpers reaching a barrier that `kernels` call, directly or not,
    each after every one that calls it; a diagnostic for a recursive one and
    one whose body has several blocks (neither can be split)."""
    done: list[FuncOp] = []
    seen: set[str] = set()

    def visit(func: FuncOp, stack: list[str]) -> None:
        for call in barrier_calls(func, barrier_helpers):
            name = call.callee.root_reference.data
            if name in stack:
                raise OpError(
                    call,
                    f"calls @{name} recursively, and @{name} reaches a barrier: "
                    "the native target runs each block's barriers in one "
                    "work-group function, which cannot recurse",
                )
            callee = funcs[name]
            if name in seen:
                continue
            seen.add(name)
            if len(callee.body.blocks) != 1:
                raise OpError(
                    first_barrier(callee, barrier_helpers),
                    f"is in @{name}, whose body has several blocks (cf branches); "
                    "the native target splits only structured control flow at "
                    "barriers",
                )
            visit(callee, [*stack, name])
            done.append(callee)

    for kernel in kernels:
        visit(kernel, [kernel.sym_name.data])
    return done[::-1]


class HelperSeeds:
    """How varying each argument of each helper reaching a barrier is: at
    any of its calls so far (a helper's body runs inline at every call site;
    deciding it once for all of them keeps each value uniform only where it is
    at every call, which each call's code then treats correctly)."""

    def __init__(self) -> None:
        self.args: dict[str, list[tuple[bool, bool]]] = {}

    def add_calls(self, func: FuncOp, d: Decisions, barrier_helpers: set[str]) -> None:
        """Join the arguments of `func`'s calls (decided as `d`)."""
        u = d.uniformity
        for call in barrier_calls(func, barrier_helpers):
            name = call.callee.root_reference.data
            values = list(call.arguments)
            known = self.args.get(name, [(False, False)] * len(values))
            self.args[name] = [
                (varying or u.is_varying(v), dependent or v in u.thread_dependent)
                for (varying, dependent), v in zip(known, values, strict=True)
            ]

    def of(self, helper: FuncOp) -> list[tuple[BlockArgument, bool, bool]]:
        args = helper.body.block.args
        joined = self.args.get(helper.sym_name.data, [(False, False)] * len(args))
        return [(a, v, t) for a, (v, t) in zip(args, joined, strict=True)]


def _work_group_kernels(module: ModuleOp) -> list[FuncOp]:
    kernels: list[FuncOp] = []
    for op in module.walk():
        if isinstance(op, FuncOp) and op.body.blocks:
            record = op.attributes.get(FINALIZED_ATTR)
            if isinstance(record, FinalizedAttr) and record.uses_barrier:
                kernels.append(op)
    return kernels


@dataclass(frozen=True)
class FormWorkGroups(ModulePass):
    """Decide how each barrier kernel runs as a work-group function."""

    name = "form-work-groups"
    preserves_call_graph: ClassVar[bool] = True
    """It sets attributes, and forgets the call graph when it sinks a sum
    into its guard, which replaces that `scf.if` (`gpuc.dialects.call_graph`
    lists them)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        barrier_helpers = module_facts(op).barrier
        kernels = _work_group_kernels(op)
        seeds = HelperSeeds()
        sunk = False
        for kernel in kernels:
            if len(kernel.body.blocks) != 1:
                raise OpError(
                    first_barrier(kernel, barrier_helpers),
                    "is in a kernel with unstructured control flow (cf branches), "
                    "which the native target cannot split at its barriers; write "
                    "the control flow around barriers with scf ops",
                )
            sunk = sink_regrouped_sums(kernel) or sunk
            d = decide(kernel, kernel.body.block, barrier_helpers)
            annotate(kernel, d)
            seeds.add_calls(kernel, d, barrier_helpers)
        funcs = {f.sym_name.data: f for f in op.ops if isinstance(f, FuncOp)}
        for helper in callers_first(kernels, funcs, barrier_helpers):
            body = helper.body.block
            d = decide(helper, body, barrier_helpers, seeds.of(helper))
            annotate(helper, d)
            seeds.add_calls(helper, d, barrier_helpers)
        if sunk:
            invalidate_call_graph(op)
