"""How a barrier-free kernel's values change from one thread x to the next,
for the native launch entry's loops over x (thread_loops.py): whether its
accesses walk rows (the order of its threads), the `global_id x == u` tests
its loop over x is split at, and whether the read-add-writes of its private
sums may run in any order across that loop's threads.

`x_step` is the step of a value from thread x to thread x + 1, the other
indices equal: 0 for a value the same in every thread of a row, 1 for the
global or thread id x plus such values, None where not known.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from gpuc.dialects.attrs import Dim, PtrType
from gpuc.dialects.functions import CallIndirectOp, CallOp, FuncOp
from gpuc.dialects.index import (
    BlockDimOp,
    BlockIdOp,
    GlobalIdOp,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from gpuc.dialects.memory import (
    REGROUPED,
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    StoreOp,
)
from gpuc.targets.native.thread_guards import computing_ops

POINTER_MATH = (OffsetOp, AddrSpaceCastOp)
ACCESSES = (LoadOp, StoreOp, AtomicRMWOp, AtomicCmpXchgOp)
MAX_EDGES = 4
"""The most `global_id x == u` tests the loop over x is split at."""

Steps = dict[SSAValue, int | None]


def walks_rows(func: FuncOp) -> bool:
    """Whether every memory access of `func` is at an address whose step from
    one thread x to the next is 0 or 1 element (a helper call's accesses are
    unknown: no)."""
    steps: Steps = {}
    for op in func.walk():
        if isinstance(op, CallOp | CallIndirectOp):
            return False
        if isinstance(op, POINTER_MATH):
            continue
        if isinstance(op, ACCESSES):
            step = address_step(op, steps)
            if step not in (0, 1):
                return False
        elif any(isinstance(v.type, PtrType) for v in op.operands):
            return False  # another op that takes a pointer
    return True


Access = LoadOp | StoreOp | AtomicRMWOp | AtomicCmpXchgOp


def address_step(op: Access, steps: Steps) -> int | None:
    """The step of the address `op` accesses (in elements), through the
    `gpuc.offset`s its pointer is made by."""
    step = x_step(op.index, steps) if op.index is not None else 0
    ptr = op.ptr
    while step is not None and isinstance(ptr.owner, POINTER_MATH):
        owner = ptr.owner
        if isinstance(owner, AddrSpaceCastOp):
            ptr = owner.source
            continue
        more = x_step(owner.index, steps)
        step = None if more is None else step + more
        ptr = owner.ptr
    return step


MAX_DEPTH = 200
"""How deep `x_step` follows a value's operands before it calls the step
unknown (a chain of 1,000 index additions, an unrolled loop's, would
otherwise exhaust Python's stack); unknown is always the safe answer."""


def x_step(value: SSAValue, steps: Steps, depth: int = 0) -> int | None:
    """How much `value` grows from one thread x to the next, the other
    indices equal: 0 if it does not depend on thread x, None if unknown (or
    not a constant step)."""
    if value in steps:
        return steps[value]
    if depth > MAX_DEPTH:
        return None
    depth += 1
    steps[value] = None  # a cycle through block arguments: unknown
    owner = value.owner
    step: int | None = None
    if isinstance(value, BlockArgument):
        block = value.block
        entry = block.parent is not None and block.parent.first_block is block
        step = 0 if entry and isinstance(block.parent_op(), FuncOp) else None
    elif isinstance(owner, GlobalIdOp | ThreadIdOp):
        step = 1 if owner.dimension.data == Dim.X else 0
    elif isinstance(owner, BlockIdOp):
        step = None if owner.dimension.data == Dim.X else 0
    elif isinstance(owner, BlockDimOp | GridDimOp | arith.ConstantOp):
        step = 0
    elif isinstance(owner, arith.AddiOp | arith.SubiOp):
        lhs, rhs = x_step(owner.lhs, steps, depth), x_step(owner.rhs, steps, depth)
        if lhs is not None and rhs is not None:
            step = lhs + rhs if isinstance(owner, arith.AddiOp) else lhs - rhs
    elif isinstance(owner, arith.MuliOp):
        lhs, rhs = x_step(owner.lhs, steps, depth), x_step(owner.rhs, steps, depth)
        if lhs == 0 and rhs == 0:
            step = 0
        elif lhs is not None and rhs is not None:
            step = scaled(owner.lhs, rhs) if lhs == 0 else scaled(owner.rhs, lhs)
    elif isinstance(owner, arith.ExtSIOp | arith.ExtUIOp) or (
        isinstance(owner, arith.IndexCastOp) and _bits(owner.result.type) >= 32
    ):
        # A cast to 32 bits or more keeps the step (x would wrap only past
        # 2^31 threads in a row); a narrower one is x modulo a small power of
        # two, whose threads would share addresses: unknown.
        step = x_step(owner.input, steps, depth)
    elif (
        isinstance(owner, Operation)
        and not owner.regions
        and is_side_effect_free(owner)
        and not isinstance(owner, LaneIdOp)
        and all(x_step(v, steps, depth) == 0 for v in owner.operands)
    ):
        step = 0
    steps[value] = step
    return step


def _bits(t: Attribute) -> int:
    """The width of an integer or index type (index: 64, as gpuc lowers it)."""
    return t.width.data if isinstance(t, IntegerType) else 64


def scaled(factor: SSAValue, step: int) -> int | None:
    """`step` times `factor` if that is a constant, else None (0 stays 0)."""
    if step == 0:
        return 0
    owner = factor.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return step * owner.value.value.data
    return None


@dataclass(frozen=True)
class EdgeTest:
    """`global_id x == bound` (or `!=`) in the kernel, with `bound` the same
    for every thread of the launch's rows: `ops` compute it (in program
    order) from the kernel's arguments, constants and the launch's sizes."""

    condition: SSAValue
    bound: SSAValue
    ops: tuple[Operation, ...]


def edge_tests(func: FuncOp, dim: Dim = Dim.X) -> list[EdgeTest]:
    """The kernel's tests of the global id in `dim` against row-wide values
    (a stencil's `x == 0` and `x == nx - 1`, or its `y == 0` ...), one per
    distinct bound, at most MAX_EDGES."""
    found: list[EdgeTest] = []
    if len(func.body.blocks) != 1:
        return found  # a CFG (an inlined multi-block helper): no row-wide ops
    for op in func.walk():
        if not isinstance(op, arith.CmpiOp) or op.predicate.value.data not in (0, 1):
            continue  # eq and ne only
        for gid, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            owner = gid.owner
            if not isinstance(owner, GlobalIdOp) or owner.dimension.data != dim:
                continue
            ops = row_wide_ops(other, func)
            if ops is None or not all(map(speculatable, ops)):
                continue
            if all(edge.bound is not other for edge in found):
                found.append(EdgeTest(op.result, other, ops))
            break
    return found[:MAX_EDGES]


def row_wide_ops(value: SSAValue, func: FuncOp) -> tuple[Operation, ...] | None:
    """The ops that compute `value` from the kernel's arguments, constants
    and the launch's sizes by ops without effects (none of them a thread or
    block index: the same value in every thread of a row of the grid), in
    program order; None if it is not such a value."""
    varying = (ThreadIdOp, GlobalIdOp, LaneIdOp, BlockIdOp)
    return computing_ops(value, func.body.block, varying, nested=True)


def speculatable(op: Operation) -> bool:
    """Whether the launch entry may compute `op` for every row although the
    kernel computes it only where a branch leads to it: no division, which
    may trap, and nothing that may be poison (overflow flags), which the
    assumption made of it would turn into undefined behaviour."""
    if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        return str(op.properties.get("overflowFlags")) == "#arith.overflow<none>"
    return isinstance(
        op,
        arith.ConstantOp
        | arith.IndexCastOp
        | arith.ExtSIOp
        | arith.ExtUIOp
        | BlockDimOp
        | GridDimOp,
    )


def adds_in_any_order(
    func: FuncOp,
    summed: frozenset[int],
    known: list[SSAValue],
) -> bool:
    """Whether the split loop over x of `func` may be marked
    `llvm.loop.parallel_accesses` where the `known` conditions (its edge
    tests, in x and in y, and its thread guards) are told to it: every
    access is a load or store of a kernel argument, which threads share only
    in a data race (undefined, as on GPUs), or a regrouped add into a summed
    parameter (`summed`: plain read-add-writes into the OS thread's own
    copy, in any order across threads, each whole), and there is one such
    add; and every branch is decided by the known conditions, so the vector
    loop has no masks. (LLVM 22's InstCombine moves a masked load past a
    masked store to the same address, and a store's adjoint reads and
    zeroes its shadow; a branch on a value the same in every thread could
    stay a branch under a mask as well.)"""
    if len(func.body.blocks) != 1:
        return False
    steps: Steps = {}
    adds = 0
    for op in func.walk():
        if isinstance(op, ACCESSES):
            base = op.ptr
            while isinstance(base.owner, POINTER_MATH):
                owner = base.owner
                base = owner.ptr if isinstance(owner, OffsetOp) else owner.source
            if not (isinstance(base, BlockArgument) and base.block.parent_op() is func):
                return False
            if isinstance(op, AtomicCmpXchgOp):
                return False
            if isinstance(op, AtomicRMWOp):
                # A vector of read-add-writes is whole only at distinct
                # addresses: an add every thread makes at one is a sum.
                if (
                    REGROUPED not in op.attributes
                    or base.index not in summed
                    or address_step(op, steps) != 1
                ):
                    return False
                adds += 1
        elif isinstance(op, scf.IfOp):
            if not decided(op.cond, known):
                return False
        elif isinstance(op, scf.ForOp):
            if any(x_step(v, steps) != 0 for v in (op.lb, op.ub, op.step)):
                return False
        elif op.regions and not isinstance(op, FuncOp):
            return False
        elif isinstance(op, CallOp | CallIndirectOp):
            return False
        elif any(isinstance(r.type, PtrType) for r in op.results) and not isinstance(
            op, POINTER_MATH
        ):
            return False  # private or shared memory of its own
    return adds > 0


def decided(condition: SSAValue, known: list[SSAValue]) -> bool:
    """Whether `condition` is a constant, or one of `known`, or `and`, `or`
    and `xor` of such (its value is known in each piece of the loop)."""
    owner = condition.owner
    if any(condition is k for k in known) or isinstance(owner, arith.ConstantOp):
        return True
    if isinstance(owner, arith.AndIOp | arith.OrIOp | arith.XOrIOp):
        return decided(owner.lhs, known) and decided(owner.rhs, known)
    return False
