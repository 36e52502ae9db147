"""The native target's work-group functions (docs/native-abi.md): a kernel
that reaches a barrier becomes a function that runs one whole block.

Its body is split at its barriers into barrier-free regions, and each region
runs as a loop nest over the block's threads (x innermost, so that LLVM can
vectorize it as it does a barrier-free kernel's loop). Ops whose values are
the same for every thread (gpuc/targets/native/uniformity.py) run once, outside those
loops; so do the structured ops that contain a barrier (scf.if, scf.for,
scf.while, scf.index_switch, scf.execute_region, calls of helpers that reach
one), whose conditions and bounds every thread must agree on. A value live
across a barrier is kept per thread in the block's context storage, one array
of `threads` elements per value. An innermost `scf.for` with uniform bounds
that reads shared memory is split the same way (one loop over the threads per
iteration): tiled kernels read their tiles along the thread index, which then
vectorizes. So is an innermost block-stride `scf.for` (`for j in range(t,
n, BLOCK)`), each lane of a group from its own first j.

A barrier under a condition computed from the thread index is a diagnostic;
a condition that turns out to differ between the threads of a block at run
time makes the work-group function stop and report it (the launch raises
`LaunchError`), so that no launch ever hangs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from llvmlite import ir
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from gpuc.diagnostics import OpError, nearest_source_loc
from gpuc.dialects.attrs import AddressSpace, AtomicKind, Dim
from gpuc.dialects.functions import CallIndirectOp, CallOp, FuncOp
from gpuc.dialects.index import BarrierOp, GlobalIdOp, LaneIdOp, ThreadIdOp
from gpuc.dialects.memory import (
    REGROUPED,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    StoreOp,
    ptr_type_of,
)
from gpuc.dialects.subgroup import (
    COLLECTIVE_OPS,
    BallotOp,
    ShuffleOp,
    SubgroupReduceOp,
    VoteOp,
)
from gpuc.lowering.context import ModuleLowering, translator_for
from gpuc.lowering.memory import context_scopes, shared_allocation, tag_context
from gpuc.lowering.subgroup import lane_first, lane_step, shuffle_source
from gpuc.targets.native.abi import STATE, WARP
from gpuc.targets.native.common import (
    LoopHint,
    WorkGroupFunction,
    counted_loop,
    error_message,
    set_loop_hints,
)
from gpuc.targets.native.form_work_groups import (
    FORMED,
    is_global_x,
    is_thread_x,
    level_ops,
    read,
    walked,
)
from gpuc.targets.native.pools import LANES, Pools
from gpuc.targets.native.uniformity import Uniformity, computes_only, first_barrier

I64 = ir.IntType(64)
I8 = ir.IntType(8)
PTR = ir.PointerType()
X_LOOP_HINTS = (("llvm.loop.interleave.count", 1), ("llvm.loop.unroll.disable", None))
"""A thread loop over x: one vector's worth per iteration, and never fully
unrolled before the vectorizer sees it (a known block's 16 or 32 x would be,
into scalar code per thread)."""
FOLD_HINTS = (("llvm.loop.vectorize.width", 1),)
POOL_LANE_HINTS = (
    ("llvm.loop.unroll.disable", None),
    ("llvm.loop.vectorize.width", LANES),
)
"""A lane loop that pools an add (`_poolable`) is left to the loop
vectorizer, which runs its lanes as one vector iteration, all LANES of them
(one vector store into the pool's row; at its own width, 8 on AVX2 widths,
the lanes were a loop of two iterations, and the row two stores): fully
unrolled, SLP vectorized them in pieces joined by shuffles."""
POOL_LOOP_HINTS = (*FOLD_HINTS, ("llvm.loop.unroll.full", None))
"""A loop whose lane loops pool an add is unrolled fully where its trip count
is known and small (matmul's 16 steps of j): the pools' rows then have
constant places, and LLVM keeps them in registers instead of the stack."""
WRITES = (StoreOp, AtomicRMWOp, AtomicCmpXchgOp)
ACCESSES = (LoadOp, *WRITES)
CONTEXT_SCOPES = 64
"""Up to this many values kept in context storage, each array gets an alias
scope of its own (the metadata grows with the square of the count)."""


def context_bytes_symbol(kernel_symbol: str) -> str:
    """The constant holding a kernel's context bytes per thread."""
    return f"{kernel_symbol}.context_bytes"


@dataclass(frozen=True)
class Slot:
    """Per-thread context storage of one value: `base[linear thread index]`."""

    base: ir.Value
    type: ir.Type


class WorkGroupLowering(WorkGroupFunction):
    """Translates a barrier kernel's body into a work-group function: the
    kernel's own signature (the state, then its parameters), one block per
    call. Between the loops over threads `thread` is None."""

    def __init__(self, ml: ModuleLowering, func: FuncOp, fn: ir.Function):
        super().__init__(ml, func, fn)
        self.uniformity = Uniformity(lambda op: False)
        self.slots: dict[SSAValue, Slot] = {}
        self.context_bytes = 0
        self.thread: tuple[ir.Value, ir.Value, ir.Value] | None = None
        self.block_values: dict[tuple[str, int], ir.Value] = {}
        self.barrier_helpers = ml.facts.barrier
        self.structural: set[Operation] = set()
        """Ops that contain a barrier: run at the block level."""
        self.interchanged: set[Operation] = set()
        """Loops run at the block level for speed (see the module's doc)."""
        self.regions: dict[Operation, int] = {}
        """The thread loop of each op that runs per thread (form-work-groups)."""
        self.spills: set[SSAValue] = set()
        """Values kept in context storage after their thread loop."""
        self._calls: list[str] = []
        self._merged: set[str] = set()
        """The helpers whose decisions are merged into this function's."""
        self.prologue = ir.IRBuilder()
        self._context: ir.Value | None = None
        self._context_elements: dict[int, ir.Value] = {}
        """The ids of the context storage addresses `_element` made."""
        self._threads: ir.Value | None = None

    # -- the target's view ---------------------------------------------------

    def alloca(
        self, ty: ir.Type, name: str = "", zeroed: bool = False, align: int = 0
    ) -> ir.Value:
        """FunctionLowering's stack slot, the prologue builder (which also
        works in the entry block) kept past it."""
        entry = self.fn.entry_basic_block
        before = len(entry.instructions)
        slot = super().alloca(ty, name, zeroed, align)
        prologue = self.prologue
        if prologue.block is entry:
            prologue._anchor += len(entry.instructions) - before  # noqa: SLF001
        return slot

    def index_value(self, kind: str, dim: int) -> ir.Value:
        """The value of an index op here: a thread loop's variable, or the
        block's (read once from the state)."""
        if kind == "thread_id":
            assert self.thread is not None, "thread index outside a thread loop"
            return self.thread[dim]
        return self.block_values[(kind, dim)]

    def translate_op(self, op: Operation) -> None:
        """Translate one op at the builder's position, located (line tables)."""
        self.locate(op)
        translator_for(op)(op, self)

    # -- the function --------------------------------------------------------

    def translate_body(self) -> None:
        entry = self.func.body.blocks.first
        assert entry is not None
        if len(self.func.body.blocks) != 1:
            raise OpError(
                first_barrier(self.func, self.barrier_helpers),
                "is in a kernel with unstructured control flow (cf branches), "
                "which the native target cannot split at its barriers; write "
                "the control flow around barriers with scf ops",
            )
        state, *params = self.fn.args
        for arg, value in zip(entry.args, params, strict=True):
            self.bind(arg, value)
        self.prologue = ir.IRBuilder(self.fn.append_basic_block("entry"))
        p = self.prologue

        def field(name: str, dim: int = 0, ty: ir.Type = I64) -> ir.Value:
            at = p.gep(
                state,
                [ir.Constant(I64, STATE.offset(name, dim))],
                inbounds=True,
                source_etype=I8,
            )
            return p.load(at, typ=ty, align=8)

        record = self.ml.records.get(self.func.sym_name.data)
        known = record.block_size if record is not None else None
        for kind in ("block_id", "block_dim", "grid_dim"):
            for dim in range(3):
                self.block_values[(kind, dim)] = (
                    ir.Constant(I64, known[dim])  # the launch refuses any other
                    if kind == "block_dim" and known is not None
                    else field(kind, dim)
                )
        if known is None:
            dims = [self.block_values[("block_dim", d)] for d in range(3)]
            self._threads = p.mul(p.mul(dims[0], dims[1], flags=["nuw"]), dims[2])
            self._threads.name = "threads"
        else:
            self._threads = ir.Constant(I64, math.prod(known))
        self._context = field("context", ty=PTR)
        self._context.name = "context"
        body = self.fn.append_basic_block("body")
        self.builder = ir.IRBuilder(body)
        decided = read(self.func)
        if decided is None:
            raise OpError(
                self.func,
                f"reaches a barrier but has no work-group decisions ('{FORMED}'); "
                "run form-work-groups (the native target's last dialect pass) "
                "before lowering it",
            )
        self.uniformity = decided.uniformity
        self.structural = decided.structural
        self.interchanged = decided.interchanged
        self.regions = decided.regions
        self.spills = decided.spills
        self.emit_block(entry)
        self.builder.ret_void()
        self._tag_context_accesses()
        self.prologue.branch(body)
        size = ir.GlobalVariable(self.ml.llvm, I64, context_bytes_symbol(self.fn.name))
        size.global_constant = True
        size.linkage = "internal"
        size.initializer = ir.Constant(I64, -(-self.context_bytes // 8) * 8)

    def _merge_helper(self, callee: FuncOp, call: CallOp) -> None:
        """Take what form-work-groups decided for a helper that reaches a
        barrier (the same at every call site)."""
        name = callee.sym_name.data
        if name in self._merged:
            return
        found = read(callee)
        if found is None:
            raise OpError(
                call,
                f"calls @{name}, which reaches a barrier but has no work-group "
                f"decisions ('{FORMED}'); run form-work-groups (the native "
                "target's last dialect pass) before lowering it",
            )
        self._merged.add(name)
        self.structural |= found.structural
        self.interchanged |= found.interchanged
        self.uniformity.update(found.uniformity)
        self.spills |= found.spills
        self.regions.update(found.regions)

    # -- regions between barriers --------------------------------------------

    def emit_block(self, block: Block) -> None:
        """Emit `block`'s ops but its terminator, at the uniform level."""
        pending: list[Operation] = []
        for op in level_ops(block):
            region = self.regions.get(op)
            if pending and region is not None and region != self.regions[pending[0]]:
                self.flush(pending)
                pending = []
            if op in self.interchanged and isinstance(op, scf.ForOp):
                self.flush(pending)
                pending = []
                self.emit_lanes(op)
            elif op in self.structural:
                self.flush(pending)
                pending = []
                self.emit_structural(op)
            elif op in self.regions:
                pending.append(op)
            else:  # runs once for the block
                self.translate_op(op)
        self.flush(pending)

    def flush(
        self, ops: list[Operation], x_range: tuple[ir.Value, ir.Value] | None = None
    ) -> None:
        """Run `ops` (barrier-free) as one loop over the block's threads,
        reading the varying values they use from context storage (or
        recomputing them from the thread index) and writing there the ones
        used after them."""
        if not ops:
            return
        inside = walked(ops)
        used: list[SSAValue] = []
        for op in inside:
            for operand in op.operands:
                if not _defined_in(operand, inside) and operand not in used:
                    used.append(operand)
        stores = [
            r for op in ops for r in op.results if r in self.slots or r in self.spills
        ]
        calls_state = any(
            isinstance(op, CallOp)
            and (
                op.callee.root_reference.data in self.ml.facts.state
                or (  # a helper given the state to report faults
                    op.callee.root_reference.data in self.ml.hidden
                    and op.callee.root_reference.data not in self.ml.records
                )
            )
            for op in inside
        )
        bound: list[SSAValue] = []
        guard = None if stores or x_range else self._x_guard(ops)
        if guard is not None and guard[2]:
            guarded = guard[1]
            ops = [op for op in ops if op is not guarded]
            ops += list(guarded.true_region.block.ops)[:-1]
            inside = walked(ops)
            used = []
            for op in inside:
                for operand in op.operands:
                    if not _defined_in(operand, inside) and operand not in used:
                        used.append(operand)

        def body(linear: ir.Value) -> None:
            b = self.builder
            if calls_state:
                self.write_thread_state()
            for value in used:
                self.materialize(value, linear, bound)
            for op in ops:
                self.translate_op(op)
            for value in stores:
                slot = self.slot_for(value)
                b.store(self.values[value], self._element(slot, linear))

        if guard is not None:
            x_range = guard[0]
        self.thread_loop(body, x_range=x_range)
        self._unbind(bound)
        for op in inside:
            for r in op.results:
                self.values.pop(r, None)
            for region in op.regions:
                for blk in region.blocks:
                    for arg in blk.args:
                        self.values.pop(arg, None)

    def emit_lanes(self, op: scf.ForOp) -> None:
        """An innermost uniform loop over shared memory (`interchanged`), run
        inside the loop over the block's threads: for each z, y and each
        group of LANES consecutive x, the loop runs once with, in its body, a
        loop over those lanes. The lane loop has a constant trip count, so
        LLVM unrolls it, keeps each lane's loop-carried values in registers
        across iterations and vectorizes the lanes (a tiled kernel's inner
        product then runs as vector FMAs on registers). A block-stride loop
        (its lower bound varies) runs as many iterations as the group's
        longest lane, each lane's body only while its own `lb + k * step` is
        below the bound, but the iterations every lane takes (the shortest
        lane's count) without that test. The x that do not fill a group run the loop per
        thread, as any region does."""
        body = op.body.block
        iv_arg, *iter_args = body.args
        if not all(self.uniformity.is_varying(a) for a in iter_args):
            self.emit_structural(op)
            return
        b = self.builder
        ub, step = self.values[op.ub], self.values[op.step]
        slots = [self.slot_for(r) for r in op.results]
        terminator = body.last_op
        assert terminator is not None
        yielded = list(terminator.operands)
        body_ops = list(body.ops)[:-1]
        inside = walked(body_ops)
        used: list[SSAValue] = []
        for inner in inside:
            for operand in inner.operands:
                if (
                    not _defined_in(operand, inside)
                    and operand not in iter_args
                    and operand is not iv_arg
                    and operand not in used
                ):
                    used.append(operand)
        writes = any(isinstance(o, WRITES) for o in inside)
        strided = self.uniformity.is_varying(op.lb)
        pooled: list[AtomicRMWOp] = (
            []
            if strided or not self.target.block_owns_shared
            else [
                o
                for o in body_ops
                if isinstance(o, AtomicRMWOp) and _poolable(o, body_ops, iv_arg)
            ]
        )
        pools = Pools(self, pooled)
        zero = ir.Constant(I64, 0)
        lanes = ir.Constant(I64, LANES)
        bx, by, bz = (self.block_values[("block_dim", d)] for d in range(3))
        groups = b.udiv(bx, lanes)
        whole = b.mul(groups, lanes)
        bound: list[SSAValue] = []

        def lane_loop(
            x0: ir.Value,
            y: ir.Value,
            z: ir.Value,
            run: Callable[[ir.Value], None],
            hints: Sequence[tuple[str, int | None]] = (),
        ) -> None:
            def lane(i: ir.Value) -> None:
                x = b.add(x0, i, flags=["nuw", "nsw"])
                self.thread = (x, y, z)
                row = b.add(b.mul(z, by, flags=["nuw", "nsw"]), y, flags=["nuw", "nsw"])
                run(
                    b.add(b.mul(row, bx, flags=["nuw", "nsw"]), x, flags=["nuw", "nsw"])
                )
                self._unbind(bound)
                self.thread = None

            counted_loop(b, zero, lanes, lane, "lane", hints)

        # A block-stride loop (its lower bound differs between the lanes):
        # iteration k of each lane is lb + k * step, run if below ub; the
        # group runs as many iterations as its longest lane.
        trips = self.alloca(I64, "lanes.trips") if strided else None
        # The iterations every lane of a group takes run without the test:
        # their lane loop then vectorizes like a uniform one's.
        least = self.alloca(I64, "lanes.least") if strided else None
        one = ir.Constant(I64, 1)
        # scf.for's step is positive (any other loops forever there).
        divisor = b.select(b.icmp_signed("<", step, one), one, step) if strided else one

        def lane_lb(linear: ir.Value) -> ir.Value:
            if not strided:
                return self.values[op.lb]
            return self.materialize(op.lb, linear, bound)

        def group(g: ir.Value, y: ir.Value, z: ir.Value) -> None:
            x0 = b.mul(g, lanes, flags=["nuw", "nsw"])
            if trips is not None and least is not None:
                b.store(zero, trips)
                b.store(ir.Constant(I64, -1), least)

            def start(linear: ir.Value) -> None:
                values = [self.materialize(v, linear, bound) for v in op.iter_args]
                for slot, value in zip(slots, values, strict=True):
                    b.store(value, self._element(slot, linear))
                if trips is not None:
                    first = lane_lb(linear)
                    count = b.add(b.udiv(b.sub(b.sub(ub, first), one), divisor), one)
                    count = b.select(b.icmp_signed("<", first, ub), count, zero)
                    most = b.load(trips, typ=I64)
                    b.store(
                        b.select(b.icmp_unsigned("<", most, count), count, most), trips
                    )
                    assert least is not None
                    fewest = b.load(least, typ=I64)
                    b.store(
                        b.select(b.icmp_unsigned("<", count, fewest), count, fewest),
                        least,
                    )

            lane_loop(x0, y, z, start)
            pools.start()

            def iteration(j: ir.Value, every: bool = False) -> None:
                def step_lane(linear: ir.Value) -> None:
                    here = j
                    if strided:
                        here = b.add(lane_lb(linear), b.mul(j, step))
                    if strided and not every:
                        taken = b.icmp_signed("<", here, ub)
                        then = b.append_basic_block("lane.step")
                        skip = b.append_basic_block("lane.skip")
                        b.cbranch(taken, then, skip)
                        b.position_at_end(then)
                    self.values[iv_arg] = here
                    for arg, slot in zip(iter_args, slots, strict=True):
                        self.values[arg] = b.load(
                            self._element(slot, linear), typ=slot.type
                        )
                        bound.append(arg)
                    for value in used:
                        self.materialize(value, linear, bound)
                    for inner in body_ops:
                        pool = pools.find(inner)
                        if pool is None:
                            self.translate_op(inner)
                            continue
                        assert self.thread is not None
                        pools.put(pool, b.sub(self.thread[0], x0))
                    results = [self.values[v] for v in yielded]
                    for slot, value in zip(slots, results, strict=True):
                        b.store(value, self._element(slot, linear))
                    bound.extend(r for inner in inside for r in inner.results)
                    if strided and not every:
                        b.branch(skip)
                        b.position_at_end(skip)

                pools.begin_row()
                lane_loop(x0, y, z, step_lane, POOL_LANE_HINTS if pooled else ())
                pools.end_row()

            if trips is None or least is None:
                # A body that writes memory (a reversed tile loop adding into
                # shadow tiles) is vectorized across the lanes (SLP), not
                # across iterations, whose stores would be scatters.
                hints = POOL_LOOP_HINTS if pooled else FOLD_HINTS if writes else ()
                stepped_loop(b, self.values[op.lb], ub, step, iteration, hints)
            else:
                fewest = b.load(least, typ=I64)
                counted_loop(
                    b, zero, fewest, lambda j: iteration(j, every=True), "lanes.all"
                )
                counted_loop(b, fewest, b.load(trips, typ=I64), iteration, "lanes.k")
            pools.finish()

        counted_loop(
            b,
            zero,
            bz,
            lambda z: counted_loop(
                b,
                zero,
                by,
                lambda y: counted_loop(
                    b, zero, groups, lambda g: group(g, y, z), "group"
                ),
                "lanes.y",
            ),
            "lanes.z",
        )
        self.values.pop(iv_arg, None)
        for result, slot in zip(op.results, slots, strict=True):
            self.slots[result] = slot
        self.flush([op], x_range=(whole, bx))

    def _x_guard(
        self, ops: list[Operation]
    ) -> tuple[tuple[ir.Value, ir.Value], scf.IfOp, bool] | None:
        """If all `ops` do is `scf.if (thread_id.x < u) { ... }` (or `== u`,
        or `global_id.x < u`; `u` uniform, no else, no results; the other ops
        pure, computing the condition), the x range for which it holds, the
        `scf.if` and True: the loop then runs only those threads, the body
        without the test. Where the condition is such a test `and` others
        that do not depend on x (a block sum's `tid.x == 0 && tid.y == 0 &&
        tid.z == 0`), the range, the `scf.if` and False: the loop runs only
        those threads, each still testing the whole condition."""
        ifs = [op for op in ops if isinstance(op, scf.IfOp)]
        if len(ifs) != 1 or ifs[0].results or ifs[0].false_region.blocks:
            return None
        guarded = ifs[0]
        if any(op is not guarded and not computes_only(op) for op in ops):
            return None
        cond = guarded.cond
        found = self._x_test(cond)
        if found is not None:
            return found, guarded, True
        conjuncts = _conjuncts(cond)
        for i, conjunct in enumerate(conjuncts):
            found = self._x_test(conjunct)
            others = conjuncts[:i] + conjuncts[i + 1 :]
            if found is not None and not any(_depends_on_x(c, cond) for c in others):
                return found, guarded, False
        return None

    def _x_test(self, cond: SSAValue) -> tuple[ir.Value, ir.Value] | None:
        """The x range for which `cond`, a test of thread (or global) index x
        against a uniform bound (`_x_guard`), holds; None for anything else."""
        if not isinstance(cond, OpResult) or not isinstance(cond.op, arith.CmpiOp):
            return None
        cmp = cond.op
        predicate = cmp.predicate.value.data
        lhs, rhs = cmp.lhs, cmp.rhs
        names = {0: "eq", 2: "slt", 6: "ult", 4: "sgt", 8: "ugt"}
        kind = names.get(predicate)
        if kind in ("sgt", "ugt"):  # u > t is t < u
            lhs, rhs, kind = rhs, lhs, "slt" if kind == "sgt" else "ult"
        global_x = kind in ("slt", "ult") and is_global_x(lhs)
        if kind is None or not (is_thread_x(lhs) or global_x):
            return None
        if self.uniformity.is_varying(rhs) or rhs not in self.values:
            return None
        b = self.builder
        bound = self.values[rhs]
        if bound.type != I64:
            return None
        bx = self.block_values[("block_dim", 0)]
        zero = ir.Constant(I64, 0)
        if global_x:
            # global_id x = block_id x * block_dim x + thread_id x (no wrap,
            # as the lowering of gpuc.global_id says), below the bound for
            # thread ids below bound - first: none where the bound is at or
            # below the block's first id.
            first = b.mul(self.block_values[("block_id", 0)], bx, flags=["nuw", "nsw"])
            below = (b.icmp_signed if kind == "slt" else b.icmp_unsigned)(
                "<", first, bound
            )
            left = b.sub(bound, first)
            end = b.select(b.icmp_unsigned("<", left, bx), left, bx)
            return zero, b.select(below, end, zero)

        def clamp(v: ir.Value) -> ir.Value:
            if kind == "slt" or kind == "eq":
                v = b.select(b.icmp_signed("<", v, zero), zero, v)
            return b.select(b.icmp_unsigned("<", v, bx), v, bx)

        if kind == "eq":
            begin = clamp(bound)
            end = clamp(b.add(bound, ir.Constant(I64, 1)))
            # u = -1 would wrap to 0: no thread matches then.
            end = b.select(b.icmp_signed("<", bound, zero), zero, end)
            return begin, end
        return zero, clamp(bound)

    def _unbind(self, values: list[SSAValue]) -> None:
        """Forget values bound inside a thread loop that has ended."""
        for value in values:
            self.values.pop(value, None)
        values.clear()

    def materialize(
        self, value: SSAValue, linear: ir.Value, bound: list[SSAValue]
    ) -> ir.Value:
        """`value` for thread `linear`, inside a thread loop: as bound, from
        its context storage, or recomputed (what this binds goes to `bound`)."""
        found = self.values.get(value)
        if found is not None:
            return found
        slot = self.slots.get(value)
        if slot is not None:
            loaded = self.builder.load(self._element(slot, linear), typ=slot.type)
            self.values[value] = loaded
            bound.append(value)
            return loaded
        # Neither bound nor spilled: form-work-groups chose to recompute it.
        assert isinstance(value, OpResult) and computes_only(value.op), value
        op = value.op
        for operand in op.operands:
            self.materialize(operand, linear, bound)
        self.translate_op(op)
        bound.extend(op.results)
        return self.values[value]

    def thread_loop(
        self,
        body: Callable[[ir.Value], None],
        name: str = "t",
        x_range: tuple[ir.Value, ir.Value] | None = None,
    ) -> None:
        """`for z, y, x over the block: body(linear thread index)`, x over
        `x_range` only if given (a sub-range of the block's)."""
        b = self.builder
        zero = ir.Constant(I64, 0)
        bx, by, bz = (self.block_values[("block_dim", d)] for d in range(3))

        # Three loops, each calling the next (no function refers to itself:
        # a closure in its own cell would keep `body` and `self` alive for
        # the cycle collector).
        def x_loop(x: ir.Value, y: ir.Value, z: ir.Value) -> None:
            self.thread = (x, y, z)
            row = b.add(b.mul(z, by, flags=["nuw", "nsw"]), y, flags=["nuw", "nsw"])
            linear = b.add(
                b.mul(row, bx, flags=["nuw", "nsw"]), x, flags=["nuw", "nsw"]
            )
            body(linear)

        def y_loop(y: ir.Value, z: ir.Value) -> None:
            begin, end = x_range or (zero, bx)
            # One vector's worth of x per iteration, no interleaving:
            # blocks are often only 16 or 32 threads wide.
            counted_loop(
                b, begin, end, lambda x: x_loop(x, y, z), f"{name}.x", X_LOOP_HINTS
            )

        counted_loop(
            b,
            zero,
            bz,
            lambda z: counted_loop(b, zero, by, lambda y: y_loop(y, z), f"{name}.y"),
            f"{name}.z",
        )
        self.thread = None

    def write_thread_state(self) -> None:
        """Store the loop's thread index in the state, for helpers that read it."""
        assert self.thread is not None
        for dim, value in enumerate(self.thread):
            at = self.builder.gep(
                self.hidden_args[0],
                [ir.Constant(I64, STATE.offset("thread_id", dim))],
                inbounds=True,
                source_etype=I8,
            )
            self.builder.store(value, at, align=8)

    # -- context storage -----------------------------------------------------

    def slot_for(self, value: SSAValue) -> Slot:
        """`value`'s context storage (made on first use)."""
        found = self.slots.get(value)
        if found is None:
            found = self.new_slot(self.type(value.type))
            self.slots[value] = found
        return found

    def new_slot(self, ty: ir.Type) -> Slot:
        size = max(1, _store_size(ty))
        offset = -(-self.context_bytes // size) * size
        self.context_bytes = offset + size
        p = self.prologue
        assert self._context is not None and self._threads is not None
        base = p.gep(
            self._context,
            [p.mul(self._threads, ir.Constant(I64, offset), flags=["nuw"])],
            inbounds=True,
            source_etype=I8,
        )
        return Slot(base, ty)

    def _element(self, slot: Slot, linear: ir.Value) -> ir.Value:
        at = self.builder.gep(
            slot.base, [linear], inbounds=True, source_etype=slot.type
        )
        self._context_elements[id(at)] = slot.base
        return at

    def _tag_context_accesses(self) -> None:
        """Tell LLVM that context storage (the function's own allocation)
        aliases neither global nor shared memory (`tag_context`), so that
        values read from it need not be read again after a store to a
        tile (matmul's reversed tile loop then vectorizes across lanes); and,
        in a function with at most CONTEXT_SCOPES values kept there, that
        the arrays of two values do not overlap (a lane loop that writes
        one value's and reads another's then needs no runtime check)."""
        bases = list(dict.fromkeys(self._context_elements.values()))
        parts = context_scopes(self, len(bases)) if len(bases) <= CONTEXT_SCOPES else []
        part = {id(base): k for k, base in enumerate(bases)} if parts else {}
        for block in self.fn.blocks:
            for inst in block.instructions:
                if isinstance(inst, ir.LoadInstr):
                    at = inst.operands[0]
                elif isinstance(inst, ir.StoreInstr):
                    at = inst.operands[1]
                else:
                    continue
                base = self._context_elements.get(id(at))
                if base is not None:
                    tag_context(self, inst, part.get(id(base)), parts)

    def copy(self, targets: Sequence[Slot], sources: Sequence[SSAValue]) -> None:
        """Every thread's `sources` into `targets` (all read, then all written,
        so that a permutation of loop-carried values stays right)."""
        pairs = [
            (t, s)
            for t, s in zip(targets, sources, strict=True)
            if self.slots.get(s) is not t
        ]
        if not pairs:
            return

        bound: list[SSAValue] = []

        def body(linear: ir.Value) -> None:
            values = [self.materialize(s, linear, bound) for _, s in pairs]
            for (target, _), value in zip(pairs, values, strict=True):
                self.builder.store(value, self._element(target, linear))
            self._unbind(bound)

        self.thread_loop(body, "copy")

    # -- agreement -----------------------------------------------------------

    def uniform(self, value: SSAValue, at: Operation, what: str) -> ir.Value:
        """`value`, which every thread of the block must agree on because `at`
        (a structured op containing a barrier) branches on it."""
        if not self.uniformity.is_varying(value):
            return self.values[value]
        # A thread-dependent one is form-work-groups' diagnostic.
        assert value not in self.uniformity.thread_dependent, value
        slot = self.slots[value]
        b = self.builder
        first = b.load(self._element(slot, ir.Constant(I64, 0)), typ=slot.type)
        where, _ = nearest_source_loc(at)
        message = (
            f"{str(where) + ': ' if where else ''}the threads of a block disagree on "
            f"{what} of '{at.name}', which contains a barrier: some threads would "
            "skip the barrier (undefined on GPUs)"
        )

        def body(linear: ir.Value) -> None:
            mine = b.load(self._element(slot, linear), typ=slot.type)
            same = b.icmp_unsigned("==", mine, first)
            with b.if_then(b.not_(same), likely=False):
                self.fail(message)

        self.thread_loop(body, "agree")
        return first

    def fail(self, message: str) -> None:
        """Report `message` through the state's error field and return."""
        text = error_message(self.ml, message)
        at = self.builder.gep(
            self.hidden_args[0],
            [ir.Constant(I64, STATE.offset("error"))],
            inbounds=True,
            source_etype=I8,
        )
        self.builder.store(text, at, align=8)
        self.builder.ret_void()
        # A block without predecessors, for if_then to close.
        self.builder.position_at_end(self.builder.append_basic_block("failed"))

    # -- structured ops that contain a barrier -------------------------------

    def results(self, op: Operation) -> list[Slot | None]:
        """Context storage for `op`'s varying results (None: uniform)."""
        return [
            self.slot_for(r) if self.uniformity.is_varying(r) else None
            for r in op.results
        ]

    def emit_structural(self, op: Operation) -> None:
        if isinstance(op, BarrierOp):
            return  # the end of one thread loop and the start of the next
        if isinstance(op, COLLECTIVE_OPS):
            self._collective(op)
        elif isinstance(op, scf.IfOp):
            cond = self.uniform(op.cond, op, "the condition")
            regions = [op.true_region, op.false_region]
            self._branches(op, lambda b, targets: b.cbranch(cond, *targets), regions)
        elif isinstance(op, scf.IndexSwitchOp):
            selector = self.uniform(op.arg, op, "the selector")
            regions = [op.default_region, *op.case_regions]
            cases = op.cases.get_values()

            def switch(b: ir.IRBuilder, targets: list[ir.Block]) -> None:
                inst = b.switch(selector, targets[0])
                for value, target in zip(cases, targets[1:], strict=True):
                    inst.add_case(ir.Constant(selector.type, value), target)

            self._branches(op, switch, regions)
        elif isinstance(op, scf.ForOp):
            self._for(op)
        elif isinstance(op, scf.WhileOp):
            self._while(op)
        elif isinstance(op, scf.ExecuteRegionOp) and len(op.region.blocks) == 1:
            self._inline_block(op, op.region.block, op.region.block.args, [])
        elif isinstance(op, CallOp):
            self._call(op)
        else:
            raise OpError(
                first_barrier(op, self.barrier_helpers),
                f"is inside '{op.name}', which the native target cannot split "
                "at a barrier; use scf.if, scf.for, scf.while, scf.index_switch "
                "or a single-block scf.execute_region around barriers",
            )

    def _collective(self, op: ShuffleOp | SubgroupReduceOp | VoteOp | BallotOp) -> None:
        """A subgroup collective between two thread loops: every thread's
        operand is in context storage, and one more loop computes each
        thread's results from its subgroup's (WARP consecutive threads in
        linear order; a block's last subgroup may have fewer). A reduction,
        a vote and a ballot fold their subgroup's slots in lane order."""
        lanes = self.slots.get(op.value)
        if lanes is None:  # recomputed per thread: stored for the lanes to read
            lanes = self.new_slot(self.type(op.value.type))
            self.copy([lanes], [op.value])
        targets = [self.slot_for(r) for r in op.results]
        b = self.builder
        warp = ir.Constant(I64, WARP)
        bound: list[SSAValue] = []

        def body(linear: ir.Value) -> None:
            lane = b.urem(linear, warp)
            first = b.sub(linear, lane)
            rest = b.sub(self._threads, first)
            size = b.select(b.icmp_unsigned("<", rest, warp), rest, warp)

            def value_of(at: ir.Value) -> ir.Value:
                return b.load(self._element(lanes, b.add(first, at)), typ=lanes.type)

            if isinstance(op, ShuffleOp):
                offset = b.zext(self.materialize(op.offset, linear, bound), I64)
                width = warp
                if op.width is not None:
                    width = b.zext(self.materialize(op.width, linear, bound), I64)
                source, valid = shuffle_source(
                    b, op.mode.data, lane, offset, width, size
                )
                results = [value_of(source), valid]
            else:
                ty = targets[0].type
                total = self.prologue.alloca(ty)
                b.store(lane_first(b, op, value_of(ir.Constant(I64, 0))), total)

                def fold(j: ir.Value) -> None:
                    step = lane_step(b, op, b.load(total, typ=ty), value_of(j), j)
                    b.store(step, total)

                # Not vectorized: LLVM 22's vectorizer asserts on a maxnum fold.
                counted_loop(b, ir.Constant(I64, 1), size, fold, "fold", FOLD_HINTS)
                results = [b.load(total, typ=ty)]
            for slot, value in zip(targets, results, strict=True):
                b.store(value, self._element(slot, linear))
            self._unbind(bound)

        self.thread_loop(body, "lanes")

    def _bind_results(self, op: Operation, values: Sequence[SSAValue]) -> None:
        """`op`'s results are `values` (an op whose region runs exactly once)."""
        for result, value in zip(op.results, values, strict=True):
            slot = self.slots.get(value)
            if slot is not None:
                self.slots[result] = slot
            elif self.uniformity.is_varying(result):
                self.copy([self.slot_for(result)], [value])
            else:
                self.values[result] = self.values[value]

    def _inline_block(
        self,
        op: Operation,
        block: Block,
        args: Sequence[BlockArgument],
        operands: Sequence[SSAValue],
    ) -> None:
        for arg, operand in zip(args, operands, strict=True):
            if operand in self.slots:
                self.slots[arg] = self.slots[operand]
            elif operand in self.values:
                self.values[arg] = self.values[operand]
            else:  # recomputed per thread where used: the helper gets storage
                self.copy([self.slot_for(arg)], [operand])
        self.emit_block(block)
        terminator = block.last_op
        assert terminator is not None
        self._bind_results(op, list(terminator.operands))

    def _call(self, op: CallOp) -> None:
        name = op.callee.root_reference.data
        callee = self.ml.funcs[name]
        # form-work-groups refuses recursion and helpers of several blocks.
        assert name not in self._calls and len(callee.body.blocks) == 1, name
        self._merge_helper(callee, op)
        body = callee.body.block
        # The helper's values get storage of their own at each call site: an
        # earlier site's results may still be live.
        for value in _defined_values(body):
            self.slots.pop(value, None)
            self.values.pop(value, None)
        self._calls.append(name)
        self._inline_block(op, body, body.args, op.arguments)
        self._calls.pop()

    def _branches(
        self,
        op: Operation,
        branch: Callable[[ir.IRBuilder, list[ir.Block]], None],
        regions: Sequence[Region],
    ) -> None:
        b = self.builder
        targets = self.results(op)
        end = b.append_basic_block(f"{op.name}.end")
        with b.goto_block(end):
            phis = {
                i: b.phi(self.type(r.type))
                for i, r in enumerate(op.results)
                if targets[i] is None
            }
        blocks = []
        for region in regions:
            blocks.append(
                b.append_basic_block(f"{op.name}.region") if region.blocks else end
            )
        branch(b, blocks)
        for region, bb in zip(regions, blocks, strict=True):
            if bb is end:
                continue
            block = region.block
            b.position_at_end(bb)
            self.emit_block(block)
            terminator = block.last_op
            assert terminator is not None
            yielded = list(terminator.operands)
            self.copy(
                [t for t in targets if t is not None],
                [v for t, v in zip(targets, yielded, strict=True) if t is not None],
            )
            for i, phi in phis.items():
                phi.add_incoming(self.values[yielded[i]], b.block)
            b.branch(end)
        b.position_at_end(end)
        for i, result in enumerate(op.results):
            target = targets[i]
            if target is None:
                self.values[result] = phis[i]
            else:
                self.slots[result] = target

    def _carried(
        self, args: Sequence[BlockArgument], inits: Sequence[SSAValue]
    ) -> tuple[list[Slot | None], dict[int, ir.PhiInstr], ir.Block, ir.Block]:
        """Loop-carried `args`: context storage for the varying ones (filled
        from `inits`), phis in a new loop head for the uniform ones; and the
        head, and the block that enters it."""
        b = self.builder
        slots: list[Slot | None] = [
            self.slot_for(a) if self.uniformity.is_varying(a) else None for a in args
        ]
        self.copy(
            [s for s in slots if s is not None],
            [v for s, v in zip(slots, inits, strict=True) if s is not None],
        )
        before = b.block
        head = b.append_basic_block("loop.head")
        b.branch(head)
        b.position_at_end(head)
        phis: dict[int, ir.PhiInstr] = {}
        for i, (arg, init) in enumerate(zip(args, inits, strict=True)):
            if slots[i] is None:
                phi = b.phi(self.type(arg.type))
                phi.add_incoming(self.values[init], before)
                self.values[arg] = phi
                phis[i] = phi
        return slots, phis, head, before

    def _carry_back(
        self,
        slots: Sequence[Slot | None],
        phis: dict[int, ir.PhiInstr],
        values: Sequence[SSAValue],
        head: ir.Block,
    ) -> ir.Block:
        """Carry `values` back to the loop head; returns the block that does."""
        self.copy(
            [s for s in slots if s is not None],
            [v for s, v in zip(slots, values, strict=True) if s is not None],
        )
        back = self.builder.block
        for i, phi in phis.items():
            phi.add_incoming(self.values[values[i]], back)
        self.builder.branch(head)
        return back

    def _for(self, op: scf.ForOp) -> None:
        b = self.builder
        lb = self.uniform(op.lb, op, "the lower bound")
        ub = self.uniform(op.ub, op, "the upper bound")
        step = self.uniform(op.step, op, "the step")
        body = op.body.block
        iv_arg, *iter_args = body.args
        terminator = body.last_op
        assert terminator is not None
        yielded = list(terminator.operands)
        self._alias_yields(body, iter_args, yielded)
        slots, phis, head, entered = self._carried(iter_args, list(op.iter_args))
        counter = b.phi(lb.type, name="iv")
        counter.add_incoming(lb, entered)
        self.values[iv_arg] = counter
        loop = b.append_basic_block("for.body")
        done = b.append_basic_block("for.done")
        b.cbranch(b.icmp_signed("<", counter, ub), loop, done)
        b.position_at_end(loop)
        self.emit_block(body)
        nxt = b.add(counter, step, flags=["nsw"])
        counter.add_incoming(nxt, self._carry_back(slots, phis, yielded, head))
        b.position_at_end(done)
        for i, result in enumerate(op.results):
            slot = slots[i]
            if slot is None:
                self.values[result] = phis[i]
            else:
                self.slots[result] = slot

    def _alias_yields(
        self, body: Block, args: Sequence[BlockArgument], yielded: Sequence[SSAValue]
    ) -> None:
        """Let a yielded value share its loop-carried argument's storage where
        no op after the yielded value's reads the argument: the region that
        computes it then writes the next iteration's value in place."""
        order = {op: i for i, op in enumerate(body.ops)}
        for arg, value in zip(args, yielded, strict=True):
            if not (
                self.uniformity.is_varying(arg) and self.uniformity.is_varying(value)
            ):
                continue
            if (
                not isinstance(value, OpResult)
                or value.op not in order
                or value in self.slots
            ):
                continue
            defined = order[value.op]
            # A split op's storage is written while the argument may still be
            # read; so is a lane loop's, if its body reads the argument.
            if value.op in self.structural:
                continue
            if value.op in self.interchanged and any(
                use.operation is not value.op
                for use in arg.uses
                if value.op.is_ancestor(use.operation)
            ):
                continue
            uses = [_ancestor_in(use.operation, body) for use in arg.uses]
            if all(u is not None and order[u] <= defined for u in uses):
                self.slots[value] = self.slot_for(arg)

    def _while(self, op: scf.WhileOp) -> None:
        b = self.builder
        before, after = op.before_region.block, op.after_region.block
        condition = before.last_op
        assert isinstance(condition, scf.ConditionOp)
        slots, phis, head, _ = self._carried(before.args, list(op.arguments))
        self.emit_block(before)
        proceed = self.uniform(condition.condition, op, "the condition")
        forwarded = list(condition.args)
        targets = [
            self.slot_for(r) if self.uniformity.is_varying(r) else None
            for r in op.results
        ]
        self.copy(
            [t for t in targets if t is not None],
            [v for t, v in zip(targets, forwarded, strict=True) if t is not None],
        )
        for arg, result, value, target in zip(
            after.args, op.results, forwarded, targets, strict=True
        ):
            if target is None:
                self.values[arg] = self.values[result] = self.values[value]
            else:
                self.slots[arg] = self.slots[result] = target
        loop = b.append_basic_block("while.body")
        done = b.append_basic_block("while.done")
        b.cbranch(proceed, loop, done)
        b.position_at_end(loop)
        self.emit_block(after)
        terminator = after.last_op
        assert terminator is not None
        self._carry_back(slots, phis, list(terminator.operands), head)
        b.position_at_end(done)


def _poolable(op: AtomicRMWOp, body: list[Operation], iv: SSAValue) -> bool:
    """Whether `op`, in the body of a loop run over groups of lanes, is a
    regrouped float add into shared memory that the lanes of a group may
    make together: the address is the same for every lane (it does not
    depend on the thread's x, nor on anything read from memory), and nothing
    else in the body touches that allocation, so no lane sees another's
    add before the group's is made (matmul's reversed tile loop: each lane
    of a row adds to `da_tile[ty * 16 + j]`). The lanes then store their
    values side by side and the group adds their sum (gpuc/targets/native/pools.py)."""
    if not (
        op.kind.data == AtomicKind.ADD
        and REGROUPED in op.attributes
        and not op.result.uses
        and isinstance(op.value.type, Float32Type | Float64Type)
        and ptr_type_of(op.ptr).address_space == AddressSpace.SHARED
    ):
        return False
    alloc = shared_allocation(op.ptr)
    if alloc is None or _defined_in(op.ptr, walked(body)):
        return False
    for other in walked(body):
        if isinstance(other, CallOp | CallIndirectOp):
            return False  # the callee may touch the allocation
        if other is op or not isinstance(other, ACCESSES):
            continue
        ptr = other.ptr
        space = ptr_type_of(ptr).address_space
        if space == AddressSpace.SHARED and shared_allocation(ptr) in (alloc, None):
            return False
        if space == AddressSpace.GENERIC:
            return False
    return op.index is None or not _depends_on_x(op.index, iv)


def _conjuncts(cond: SSAValue, depth: int = 8) -> list[SSAValue]:
    """The operands of the `arith.andi` tree `cond` is (itself if none)."""
    op = cond.op if isinstance(cond, OpResult) else None
    if depth == 0 or not isinstance(op, arith.AndIOp):
        return [cond]
    return _conjuncts(op.lhs, depth - 1) + _conjuncts(op.rhs, depth - 1)


def _depends_on_x(value: SSAValue, iv: SSAValue, depth: int = 16) -> bool:
    """Whether `value` may differ between the lanes of a group: it is (made
    from) thread or global index x, a lane index, a block argument other
    than `iv`, or anything but pure ops (memory may differ per lane)."""
    if value is iv:
        return False
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        return not isinstance(parent, FuncOp)
    op = value.op if isinstance(value, OpResult) else None
    if op is None or depth == 0:
        return True
    if isinstance(op, ThreadIdOp | GlobalIdOp):
        return op.dimension.data == Dim.X
    if (
        isinstance(op, (LaneIdOp, *COLLECTIVE_OPS))
        or op.regions
        or not computes_only(op)
    ):
        return True
    return any(_depends_on_x(o, iv, depth - 1) for o in op.operands)


def stepped_loop(
    b: ir.IRBuilder,
    lb: ir.Value,
    ub: ir.Value,
    step: ir.Value,
    body: Callable[[ir.Value], None],
    hints: Sequence[LoopHint] = (),
) -> None:
    """`for (i = lb; i < ub; i += step) body(i)`, signed, as scf.for; `hints`
    as `counted_loop`'s."""
    before = b.block
    head = b.append_basic_block("steps.head")
    loop = b.append_basic_block("steps.body")
    done = b.append_basic_block("steps.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(lb.type, name="step")
    i.add_incoming(lb, before)
    b.cbranch(b.icmp_signed("<", i, ub), loop, done)
    b.position_at_end(loop)
    body(i)
    i.add_incoming(b.add(i, step, flags=["nsw"]), b.block)
    latch = b.branch(head)
    if hints:
        set_loop_hints(latch, hints)
    b.position_at_end(done)


def _defined_values(block: Block) -> list[SSAValue]:
    """Every value `block` and the ops in it define."""
    values: list[SSAValue] = list(block.args)
    for op in block.walk():
        values.extend(op.results)
        for region in op.regions:
            for inner in region.blocks:
                values.extend(inner.args)
    return values


def _defined_in(value: SSAValue, inside: Mapping[Operation, None]) -> bool:
    if isinstance(value, OpResult):
        return value.op in inside
    assert isinstance(value, BlockArgument)
    return value.block.parent_op() in inside


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _store_size(ty: ir.Type) -> int:
    if isinstance(ty, ir.IntType):
        size = 1
        while size * 8 < ty.width:
            size *= 2
        return size
    if isinstance(ty, ir.HalfType):
        return 2
    if isinstance(ty, ir.FloatType):
        return 4
    if isinstance(ty, ir.DoubleType | ir.PointerType):
        return 8
    if isinstance(ty, ir.VectorType):  # LLVM's alloc size: a power of two
        element = ty.element
        bits = element.width if isinstance(element, ir.IntType) else 0
        if bits == 1:
            size = 1
            while size * 8 < ty.count:
                size *= 2
            return size
        count: int = ty.count
        return count * _store_size(element)
    if isinstance(ty, ir.ArrayType):  # a matrix fragment (gpuc/lowering/matrix.py)
        elements: int = ty.count
        return elements * _store_size(ty.element)
    raise TypeError(f"no context storage for values of type {ty}")
