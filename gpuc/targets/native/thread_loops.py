"""The launch entry's loops over the threads of a barrier-free kernel
(docs/native-abi.md, "Entry points the executor calls"): the kernel, inlined
by LLVM, runs once per thread of a loop nest with thread x innermost, so the
loop over x vectorizes across threads.

The threads run block by block, or, where the kernel allows any order (no
shared memory, nothing that names a block in a report), a row of the grid at
a time: for z and y in the block, for each block of the grid's row, for x in
the block. A row of threads then walks its arrays' memory in order, where
block by block a 16 x 16 block visited one 64-byte piece of each of 16 rows
of a 2048-wide grid, 8 KB apart, which map to the same cache sets.

A thread guard (thread_guards.py) bounds the loop it is about and is assumed
in each thread it runs.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from gpuc.dialects.attrs import AddressSpace, Dim, FinalizedAttr, PtrType
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
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    StoreOp,
)
from gpuc.lowering.context import FunctionLowering, ModuleLowering, translator_for
from gpuc.targets.native.common import counted_loop
from gpuc.targets.native.thread_guards import ThreadGuard, thread_guards

I64 = ir.IntType(64)
POINTER_MATH = (OffsetOp, AddrSpaceCastOp)

Write = Callable[[str, int, ir.Value], None]
"""Stores a value into a field (and dimension) of the kernel's state."""


def by_rows(func: FuncOp, record: FinalizedAttr, reports: bool) -> bool:
    """Whether the launch entry runs `func`'s threads a row of the grid at a
    time rather than block by block. A kernel without barriers may run its
    threads in any order, but one with shared memory needs a block's threads
    together (each block has its own), one that reports faults or asserts or
    prints names the block, and a thread guard whose bound reads the block
    index is computed per block. And the order pays only where each access
    moves along its array by one element from one thread x to the next (or
    not at all): a row of threads of a transpose, reading a column, touches
    a line per thread, which block by block the block's next rows reuse."""
    if record.uses_barrier or reports or record.reaches_print or record.shared_bytes:
        return False
    if any(
        isinstance(t, PtrType) and t.address_space is AddressSpace.SHARED
        for t in func.function_type.inputs.data
    ):
        return False
    if any(
        isinstance(op, BlockIdOp) for guard in thread_guards(func) for op in guard.ops
    ):
        return False
    return walks_rows(func)


def walks_rows(func: FuncOp) -> bool:
    """Whether every memory access of `func` is at an address whose step from
    one thread x to the next is 0 or 1 element (a helper call's accesses are
    unknown: no)."""
    steps: dict[SSAValue, int | None] = {}
    for op in func.walk():
        if isinstance(op, CallOp | CallIndirectOp):
            return False
        if isinstance(op, POINTER_MATH):
            continue
        if isinstance(op, LoadOp | StoreOp | AtomicRMWOp | AtomicCmpXchgOp):
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
            if step not in (0, 1):
                return False
        elif any(isinstance(v.type, PtrType) for v in op.operands):
            return False  # another op that takes a pointer
    return True


def x_step(value: SSAValue, steps: dict[SSAValue, int | None]) -> int | None:
    """How much `value` grows from one thread x to the next, the other
    indices equal: 0 if it does not depend on thread x, None if unknown (or
    not a constant step)."""
    if value in steps:
        return steps[value]
    steps[value] = None  # a cycle through block arguments: unknown
    owner = value.owner
    step: int | None = None
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        step = 0 if isinstance(parent, FuncOp) else None
    elif isinstance(owner, GlobalIdOp | ThreadIdOp):
        step = 1 if owner.dimension.data == Dim.X else 0
    elif isinstance(owner, BlockIdOp):
        step = None if owner.dimension.data == Dim.X else 0
    elif isinstance(owner, BlockDimOp | GridDimOp | arith.ConstantOp):
        step = 0
    elif isinstance(owner, arith.AddiOp | arith.SubiOp):
        lhs, rhs = x_step(owner.lhs, steps), x_step(owner.rhs, steps)
        if lhs is not None and rhs is not None:
            step = lhs + rhs if isinstance(owner, arith.AddiOp) else lhs - rhs
    elif isinstance(owner, arith.MuliOp):
        lhs, rhs = x_step(owner.lhs, steps), x_step(owner.rhs, steps)
        if lhs == 0 and rhs == 0:
            step = 0
        elif lhs is not None and rhs is not None:
            step = scaled(owner.lhs, rhs) if lhs == 0 else scaled(owner.rhs, lhs)
    elif isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        step = x_step(owner.input, steps)
    elif (
        isinstance(owner, Operation)
        and not owner.regions
        and is_side_effect_free(owner)
        and not isinstance(owner, LaneIdOp)
        and all(x_step(v, steps) == 0 for v in owner.operands)
    ):
        step = 0
    steps[value] = step
    return step


def scaled(factor: SSAValue, step: int) -> int | None:
    """`step` times `factor` if that is a constant, else None (0 stays 0)."""
    if step == 0:
        return 0
    owner = factor.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return step * owner.value.value.data
    return None


class ThreadLoops:
    """Builds, at `b`'s position, the loops that run `kernel` (the translated
    `func`) on each thread of a block or of a row of the grid's blocks."""

    def __init__(
        self,
        ml: ModuleLowering,
        func: FuncOp,
        kernel: ir.Function,
        b: ir.IRBuilder,
        state: ir.Value,
        args: list[ir.Value],
        block: list[ir.Value],
        write: Write,
    ) -> None:
        self.ml, self.func, self.kernel, self.b = ml, func, kernel, b
        self.state, self.args, self.block, self.write = state, args, block, write
        self.guards = thread_guards(func)

    def block_of(self, block_id: tuple[ir.Value, ir.Value, ir.Value]) -> None:
        """Every thread of the block `block_id` (written to the state)."""
        self._nest(block_id, lambda run_x: run_x(block_id[0]))

    def row(self, bx: ir.Value, end_bx: ir.Value, by: ir.Value, bz: ir.Value) -> None:
        """Every thread of blocks bx..end_bx of the grid's row (by, bz)."""
        self.write("block_id", 0, bx)
        self._nest(
            (bx, by, bz),
            lambda run_x: counted_loop(self.b, bx, end_bx, run_x, "block.x"),
        )

    def _nest(
        self,
        block_id: tuple[ir.Value, ir.Value, ir.Value],
        over_x: Callable[[Callable[[ir.Value], None]], None],
    ) -> None:
        """Loops over z and y in the block around `over_x(run_x)`, which calls
        `run_x(block_x)` for each block whose row of threads is to run."""
        b, block = self.b, self.block
        self.write("block_id", 1, block_id[1])
        self.write("block_id", 2, block_id[2])
        bounds = translate_bounds(
            self.ml, self.func, b, self.state, self.args, self.guards
        )
        # The first global id of the block in each dimension, built as the
        # kernel's `gpuc.global_id` builds it, so LLVM sees the same values.
        first = [b.mul(block_id[d], block[d], flags=["nuw", "nsw"]) for d in range(3)]
        count = list(block)
        for guard, bound in zip(self.guards, bounds, strict=True):
            if guard.dim > 0:
                count[guard.dim] = threads_below(
                    b, first[guard.dim], bound, count[guard.dim], guard.signed
                )
        thread: dict[int, ir.Value] = {}  # dimension -> its loop's variable

        def run_x(block_x: ir.Value) -> None:
            if block_x is not block_id[0]:
                self.write("block_id", 0, block_x)
                first[0] = b.mul(block_x, block[0], flags=["nuw", "nsw"])
            count_x = block[0]
            for guard, bound in zip(self.guards, bounds, strict=True):
                if guard.dim == 0:
                    count_x = threads_below(b, first[0], bound, count_x, guard.signed)
            threads(0, count_x)

        def threads(dim: int, n: ir.Value) -> None:
            def run(t: ir.Value) -> None:
                self.write("thread_id", dim, t)
                thread[dim] = t
                if dim == 2:
                    threads(1, count[1])
                elif dim == 1:
                    over_x(run_x)
                else:
                    self._thread(first, thread, bounds)

            counted_loop(b, ir.Constant(I64, 0), n, run, f"thread.{'xyz'[dim]}")

        threads(2, count[2])

    def _thread(
        self, first: list[ir.Value], thread: dict[int, ir.Value], bounds: list[ir.Value]
    ) -> None:
        b = self.b
        for guard, bound in zip(self.guards, bounds, strict=True):
            gid = b.add(first[guard.dim], thread[guard.dim], flags=["nuw", "nsw"])
            cmp = b.icmp_signed if guard.signed else b.icmp_unsigned
            assume(self.ml, b, cmp("<", gid, bound))
        b.call(self.kernel, [self.state, *self.args])


def row_segments(
    b: ir.IRBuilder,
    begin: ir.Value,
    end: ir.Value,
    grid: list[ir.Value],
    run: Callable[[ir.Value, ir.Value, ir.Value, ir.Value], None],
) -> None:
    """For each row of the grid that the linear blocks [begin, end) (x
    fastest) cover, in order, `run(bx, end_bx, by, bz)` on its blocks
    bx..end_bx (the range's first and last rows may be partial)."""
    before = b.block
    head = b.append_basic_block("segment.head")
    body = b.append_basic_block("segment.body")
    done = b.append_basic_block("segment.done")
    b.branch(head)
    b.position_at_end(head)
    linear = b.phi(begin.type, name="segment")
    linear.add_incoming(begin, before)
    b.cbranch(b.icmp_unsigned("<", linear, end), body, done)
    b.position_at_end(body)
    bx = b.urem(linear, grid[0])
    rest = b.udiv(linear, grid[0])
    by, bz = b.urem(rest, grid[1]), b.udiv(rest, grid[1])
    row_end = b.add(b.sub(linear, bx), grid[0])
    stop = b.select(b.icmp_unsigned("<", row_end, end), row_end, end)
    run(bx, b.add(bx, b.sub(stop, linear)), by, bz)
    linear.add_incoming(stop, b.block)
    b.branch(head)
    b.position_at_end(done)


def translate_bounds(
    ml: ModuleLowering,
    func: FuncOp,
    b: ir.IRBuilder,
    state: ir.Value,
    args: list[ir.Value],
    guards: list[ThreadGuard],
) -> list[ir.Value]:
    """Each guard's bound, computed at the builder's position in the launch
    entry by translating its ops as the kernel's own body would."""
    if not guards:
        return []
    fl = FunctionLowering(ml, func, b.function)
    fl.hidden_args = (state,)
    fl.builder = b
    entry = func.body.blocks.first
    assert entry is not None
    fl.values.update(zip(entry.args, args, strict=True))
    translated: set[object] = set()
    for guard in guards:
        for op in guard.ops:
            if op not in translated:
                translator_for(op)(op, fl)
                translated.add(op)
    return [fl.get(guard.bound) for guard in guards]


def threads_below(
    b: ir.IRBuilder, first: ir.Value, bound: ir.Value, limit: ir.Value, signed: bool
) -> ir.Value:
    """How many threads from global id `first` on, at most `limit`, are below
    `bound`: `first < bound ? min(bound - first, limit) : 0`."""
    cmp = b.icmp_signed if signed else b.icmp_unsigned
    left = b.sub(bound, first)
    fewer = b.select(b.icmp_unsigned("<", left, limit), left, limit)
    return b.select(cmp("<", first, bound), fewer, ir.Constant(limit.type, 0))


def assume(ml: ModuleLowering, b: ir.IRBuilder, condition: ir.Value) -> None:
    fn = ml.intrinsic("llvm.assume", ir.VoidType(), [ir.IntType(1)])
    b.call(fn, [condition])
