"""Thread guards: the `if (global_id < n)` around a whole kernel body that
leaves the threads past the end of the data idle.

The native target runs a barrier-free kernel as a loop over the threads of a
block, with the kernel inlined, and LLVM vectorizes that loop across threads.
A guard inside it becomes masked vector loads and stores (AVX2 `vmaskmovps`,
slow on AMD CPUs: saxpy ran at 2.2-2.5x numpy's time), and LLVM does not turn
it into a loop bound itself. So the launch loop does: it runs the threads
below the bound only and tells LLVM, by an assumption, that the guard holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, is_side_effect_free, only_has_effect

from gpuc.dialects.attrs import Dim
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.index import GlobalIdOp, LaneIdOp, ThreadIdOp

LESS = {"ult": False, "slt": True}
"""`global_id < bound` predicates (global id on the left) -> signed."""
GREATER = {"ugt": False, "sgt": True}
"""`bound > global_id` predicates (global id on the right) -> signed."""
PER_THREAD = (ThreadIdOp, GlobalIdOp, LaneIdOp)


@dataclass(frozen=True)
class ThreadGuard:
    """`global_id <dim> < bound` guards every effect of a kernel; `ops` compute
    `bound` (in program order) from the kernel's arguments, constants and
    indices that are the same for every thread of a block."""

    dim: int
    signed: bool
    bound: SSAValue
    ops: tuple[Operation, ...]
    condition: SSAValue
    """The comparison itself (a conjunct of the guard's condition)."""


def thread_guards(kernel: FuncOp) -> list[ThreadGuard]:
    """The thread guards of `kernel`: conjuncts of the condition of the `scf.if`
    that ends its body (only reads before it, only the return after it, no
    else branch but one that computes results nothing uses: a derivative
    whose scalar adjoint the caller drops) that compare a global id with a
    block-wide bound. A thread for which one of them is false has no effect
    at all."""
    if kernel.is_declaration or len(kernel.body.blocks) != 1:
        return []
    block = kernel.body.block
    ret = block.last_op
    guard = ret.prev_op if isinstance(ret, ReturnOp) else None
    if (
        not isinstance(guard, scf.IfOp)
        or any(r.uses for r in guard.results)
        or has_else(guard)
    ):
        return []
    op = block.first_op
    while op is not guard:
        assert op is not None
        if not only_has_effect(op, MemoryEffectKind.READ):
            return []
        op = op.next_op
    found: list[ThreadGuard] = []
    for condition in conjuncts(guard.cond):
        thread_guard = as_thread_guard(condition, block)
        if thread_guard is not None:
            found.append(thread_guard)
    return found


def has_else(op: scf.IfOp) -> bool:
    """Whether `op`'s else branch has an effect (pure ops computing what it
    yields have none)."""
    region = op.false_region
    return bool(region.blocks) and any(
        not isinstance(o, scf.YieldOp) and not is_side_effect_free(o)
        for o in region.block.ops
    )


def conjuncts(value: SSAValue) -> list[SSAValue]:
    """The operands of the tree of `arith.andi` that computes `value`."""
    owner = value.owner
    if isinstance(owner, arith.AndIOp):
        return conjuncts(owner.lhs) + conjuncts(owner.rhs)
    return [value]


def as_thread_guard(condition: SSAValue, block: Block) -> ThreadGuard | None:
    compare = condition.owner
    if not isinstance(compare, arith.CmpiOp):
        return None
    predicate = arith.CMPI_COMPARISON_OPERATIONS[compare.predicate.value.data]
    if predicate in LESS:
        gid, bound, signed = compare.lhs, compare.rhs, LESS[predicate]
    elif predicate in GREATER:
        bound, gid, signed = compare.lhs, compare.rhs, GREATER[predicate]
    else:
        return None
    if not isinstance(gid.owner, GlobalIdOp):
        return None
    ops = block_wide_ops(bound, block)
    if ops is None:
        return None
    dim = list(Dim).index(gid.owner.dimension.data)
    return ThreadGuard(dim, signed, bound, ops, condition)


def block_wide_ops(value: SSAValue, block: Block) -> tuple[Operation, ...] | None:
    """The ops of `block` that compute `value`, in program order, if they read
    nothing that differs between the threads of a block (no thread index, no
    memory: another thread may have written it by then); else None."""
    return computing_ops(value, block, PER_THREAD, nested=False)


def computing_ops(
    value: SSAValue,
    block: Block,
    varying: tuple[type[Operation], ...],
    nested: bool,
) -> tuple[Operation, ...] | None:
    """The ops that compute `value` from the arguments of `block` by ops
    without effects or regions, none an instance of `varying`, in program
    order; each in `block`, or with `nested` in `block` or a region below
    it. None if `value` is not computed so."""
    needed: set[Operation] = set()
    pending = [value]
    while pending:
        v = pending.pop()
        if isinstance(v, BlockArgument):
            if v.block is not block:
                return None
            continue
        op = v.owner
        if op in needed:
            continue
        if (
            not isinstance(op, Operation)
            or (op.parent_block() is not block and not nested)
            or op.regions
            or isinstance(op, varying)
            or not is_side_effect_free(op)
        ):
            return None
        needed.add(op)
        pending.extend(op.operands)
    return tuple(op for op in block.walk() if op in needed)
