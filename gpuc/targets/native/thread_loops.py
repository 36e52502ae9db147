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
from xdsl.ir import Operation, SSAValue

from gpuc.dialects.attrs import AddressSpace, Dim, FinalizedAttr, PtrType
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.index import BlockIdOp
from gpuc.lowering.context import FunctionLowering, ModuleLowering, translator_for
from gpuc.targets.native.common import LoopHint, access_group, counted_loop
from gpuc.targets.native.private_sums import summed
from gpuc.targets.native.thread_guards import thread_guards
from gpuc.targets.native.x_steps import (
    EdgeTest,
    adds_in_any_order,
    edge_tests,
    walks_rows,
)

I64 = ir.IntType(64)

Write = Callable[[str, int, ir.Value], None]
"""Stores a value into a field (and dimension) of the kernel's state."""

SUMS_INTERLEAVED: LoopHint = ("llvm.loop.interleave.count", 2)
"""The parallel loop over x (private sums in any order) runs two vectors of
threads per step. Its adds into neighbouring elements overlap from one add to
the next (stencil2d's reverse: din[x-1..x+6] read right after din[x+1..x+8]
is stored), and a load that a pending store only partly covers waits for the
store to reach the cache: a chain of such waits per step, whatever its width.
Two vectors a step take the same waits for twice the threads. The parts of
one add touch distinct elements (one further per thread), so each
read-add-write stays whole."""

INTERLEAVED_STEP = 16
"""The threads a step of that loop runs (two vectors of 8: AVX2 and AVX-512
alike, which prefers 256-bit vectors). It runs whole steps only; a loop of
its own, not interleaved, runs the rest, a vector where 8 are left (alone, a
block of 8 threads in x ran scalar: the reverse of a 2048 x 2048 stencil2d
took 17 ms against 12.6)."""


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
        rows: bool,
    ) -> None:
        self.ml, self.func, self.kernel, self.b = ml, func, kernel, b
        self.state, self.args, self.block, self.write = state, args, block, write
        self.guards = thread_guards(func)
        self.edges = edge_tests(func) if rows else []
        self.row_edges: list[EdgeTest] = []
        """Edge tests in y, where the loop over x is parallel (below)."""
        self.group: ir.Value | None = None
        """The access group of the split loop over x, where it is parallel:
        in the rows at none of `row_edges`."""
        if self.edges:
            row_edges = edge_tests(func, Dim.Y)
            known = [t.condition for t in self.edges + row_edges]
            known += [guard.condition for guard in self.guards]
            if adds_in_any_order(func, summed(func), known):
                self.row_edges = row_edges
                self.group = access_group(ml.llvm)

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
        bounds = translate(
            self.ml,
            self.func,
            b,
            self.state,
            self.args,
            [(guard.bound, guard.ops) for guard in self.guards],
        )
        edges = translate(
            self.ml,
            self.func,
            b,
            self.state,
            self.args,
            [(edge.bound, edge.ops) for edge in self.edges + self.row_edges],
        )
        edges, row_edges = edges[: len(self.edges)], edges[len(self.edges) :]
        # Marked parallel where it may be: in a row at none of row_edges.
        parallel = outside = self.group is not None and not row_edges
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

        def at(in_parallel: bool) -> None:
            nonlocal parallel
            parallel = in_parallel

        # Each loop is made by the one around it, none by itself: a function
        # in a cell its own closure holds would keep the builder and the
        # kernel's values alive for the cycle collector.
        def threads(dim: int, n: ir.Value, inner: Callable[[], None]) -> None:
            def run(t: ir.Value) -> None:
                self.write("thread_id", dim, t)
                thread[dim] = t
                inner()

            counted_loop(b, ir.Constant(I64, 0), n, run, f"thread.{'xyz'[dim]}")

        def run_x(block_x: ir.Value) -> None:
            if block_x is not block_id[0]:
                self.write("block_id", 0, block_x)
                first[0] = b.mul(block_x, block[0], flags=["nuw", "nsw"])
            count_x = block[0]
            for guard, bound in zip(self.guards, bounds, strict=True):
                if guard.dim == 0:
                    count_x = threads_below(b, first[0], bound, count_x, guard.signed)
            if edges:
                self._split_x(first, thread, bounds, edges, count_x, parallel)
            else:
                threads(0, count_x, lambda: self._thread(first, thread, bounds))

        def rows() -> None:
            if row_edges:
                self._split_rows(first, thread[1], row_edges, lambda: over_x(run_x), at)
                at(outside)
            else:
                over_x(run_x)

        threads(2, count[2], lambda: threads(1, count[1], rows))

    def _split_rows(
        self,
        first: list[ir.Value],
        t: ir.Value,
        row_edges: list[ir.Value],
        run: Callable[[], None],
        at: Callable[[bool], None],
    ) -> None:
        """`run()` for the row of threads y = `t`: twice, once for a row at
        one of `row_edges` (the global id y equal to its bound) and once,
        told so, for a row at none, whose loop over x is parallel."""
        b = self.b
        gid = b.add(first[1], t, flags=["nuw", "nsw"])
        on_edge = b.icmp_unsigned("==", gid, row_edges[0])
        for edge in row_edges[1:]:
            on_edge = b.or_(on_edge, b.icmp_unsigned("==", gid, edge))
        with b.if_else(on_edge) as (edge_row, other_row):
            with edge_row:
                at(False)
                run()
            with other_row:
                for edge in row_edges:
                    assume(self.ml, b, b.icmp_unsigned("!=", gid, edge))
                at(True)
                run()

    def _split_x(
        self,
        first: list[ir.Value],
        thread: dict[int, ir.Value],
        bounds: list[ir.Value],
        edges: list[ir.Value],
        count: ir.Value,
        parallel: bool,
    ) -> None:
        """The loop over x in pieces: the threads between two edges (a global
        id x equal to an edge's bound), each told that it is at none, then
        the edge's thread alone."""
        b = self.b
        before = b.block
        head = b.append_basic_block("piece.head")
        body = b.append_basic_block("piece.body")
        done = b.append_basic_block("piece.done")
        b.branch(head)
        b.position_at_end(head)
        start = b.phi(I64, name="piece")
        start.add_incoming(ir.Constant(I64, 0), before)
        b.cbranch(b.icmp_unsigned("<", start, count), body, done)
        b.position_at_end(body)
        stop = count
        for edge in edges:
            at = b.sub(edge, first[0])  # past the block (or before it): huge
            inside = b.and_(
                b.icmp_unsigned(">=", at, start), b.icmp_unsigned("<", at, stop)
            )
            stop = b.select(inside, at, stop)
        group = self.group if parallel else None

        def between(t: ir.Value) -> None:
            self._thread(first, thread, bounds, t, edges, group)

        if group is None:
            counted_loop(b, start, stop, between, "thread.x")
        else:
            # Steps of 16 threads, then the rest (a vector of 8 where 8 are left).
            whole = b.and_(b.sub(stop, start), ir.Constant(I64, -INTERLEAVED_STEP))
            mid = b.add(start, whole)
            marked: LoopHint = ("llvm.loop.parallel_accesses", group)
            counted_loop(b, start, mid, between, "thread.x", [marked, SUMS_INTERLEAVED])
            counted_loop(b, mid, stop, between, "thread.x.rest", [marked])
        at_edge = b.icmp_unsigned("<", stop, count)
        with b.if_then(at_edge):
            self._thread(first, thread, bounds, stop, [])
        after = b.select(at_edge, b.add(stop, ir.Constant(I64, 1)), count)
        start.add_incoming(after, b.block)
        b.branch(head)
        b.position_at_end(done)

    def _thread(
        self,
        first: list[ir.Value],
        thread: dict[int, ir.Value],
        bounds: list[ir.Value],
        t: ir.Value | None = None,
        edges: list[ir.Value] | None = None,
        group: ir.Value | None = None,
    ) -> None:
        """The kernel for one thread (x = `t` where given: a thread of the
        split loop over x, at none of `edges` if those are given)."""
        b = self.b
        tagged: list[ir.Instruction] = []
        if t is not None:
            self.write("thread_id", 0, t)
            thread[0] = t
        for guard, bound in zip(self.guards, bounds, strict=True):
            gid = b.add(first[guard.dim], thread[guard.dim], flags=["nuw", "nsw"])
            cmp = b.icmp_signed if guard.signed else b.icmp_unsigned
            tagged.append(assume(self.ml, b, cmp("<", gid, bound)))
        if edges:
            gid = b.add(first[0], thread[0], flags=["nuw", "nsw"])
            for edge in edges:
                tagged.append(assume(self.ml, b, b.icmp_unsigned("!=", gid, edge)))
        tagged.append(b.call(self.kernel, [self.state, *self.args]))
        if group is not None:
            # Inlining passes the group on to the kernel's memory accesses.
            for instruction in tagged:
                instruction.set_metadata("llvm.access.group", group)


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


def translate(
    ml: ModuleLowering,
    func: FuncOp,
    b: ir.IRBuilder,
    state: ir.Value,
    args: list[ir.Value],
    values: list[tuple[SSAValue, tuple[Operation, ...]]],
) -> list[ir.Value]:
    """Each value, computed at the builder's position in the launch entry by
    translating the ops given with it as the kernel's own body would (a
    guard's bound, an edge's)."""
    if not values:
        return []
    fl = FunctionLowering(ml, func, b.function)
    fl.hidden_args = (state,)
    fl.builder = b
    entry = func.body.blocks.first
    assert entry is not None
    fl.values.update(zip(entry.args, args, strict=True))
    translated: set[Operation] = set()
    for _, ops in values:
        for op in ops:
            if op not in translated:
                translator_for(op)(op, fl)
                translated.add(op)
    return [fl.get(value) for value, _ in values]


def threads_below(
    b: ir.IRBuilder, first: ir.Value, bound: ir.Value, limit: ir.Value, signed: bool
) -> ir.Value:
    """How many threads from global id `first` on, at most `limit`, are below
    `bound`: `first < bound ? min(bound - first, limit) : 0`."""
    cmp = b.icmp_signed if signed else b.icmp_unsigned
    left = b.sub(bound, first)
    fewer = b.select(b.icmp_unsigned("<", left, limit), left, limit)
    return b.select(cmp("<", first, bound), fewer, ir.Constant(limit.type, 0))


def assume(ml: ModuleLowering, b: ir.IRBuilder, condition: ir.Value) -> ir.Instruction:
    fn = ml.intrinsic("llvm.assume", ir.VoidType(), [ir.IntType(1)])
    return b.call(fn, [condition])
