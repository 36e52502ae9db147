"""Pooled adds of a lane loop (work_groups.py's `emit_lanes`), batched.

An add that every lane of a group makes at one address (`_poolable`:
matmul's reversed tile loop adds to `da_tile[ty * 16 + j]` from each lane of
a row) is pooled: each lane stores its value in a row of the pool, and the
group adds the row's sum once. A row per loop iteration, summed on its own,
is a horizontal reduction per iteration; worse, the vector load of the row
right after the lane loop stored it in pieces (the vectorizer's width, half
a row on AVX2 widths) cannot take its data from the stores in flight, and
waits for them to reach the cache (a store-forwarding stall: 12 of the 16 ms
of matmul's reverse on an AVX-512 machine). So a pool holds ROWS rows, one
per iteration, with each row's index; it is summed when it is full and when
the loop ends: the ROWS rows, transposed and added pairwise, then the last
vector's halves while a row spans several of its lanes (`row_sums`), then
each sum is added at its row's address. Deferring the adds within the loop
is right because nothing else in the loop's body touches the allocation
(`_poolable`) and the adds are regrouped: no lane can see the difference
before the loop ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llvmlite import ir

from gpuc.dialects.memory import AtomicRMWOp
from gpuc.lowering.context import FunctionLowering
from gpuc.lowering.memory import tag_space
from gpuc.targets.native.common import counted_loop

I32 = ir.IntType(32)
I64 = ir.IntType(64)
LANES = 16
"""Threads of a row that `emit_lanes` runs together (a vector of f32 on
AVX-512, two on AVX2): the width of a pool's rows."""
ROWS = 8
"""Rows (iterations) a pool holds before it is summed. Fewer than LANES:
matmul's fused reverse step keeps a pool's rows live in registers beside 16
`db_tile` rows and 16 `b_tile` rows, and with 16 pool rows LLVM spilled in
every step; 8 rows cost about the same adds (7, then one of the halves of
the last vector, for 8 sums; 15 for 16) and the reverse took 1.9-2.0 ms against
2.4-2.5 (4 rows: 2.0-2.1; 2 rows: 2.5)."""
POOL_ALIGN = 64
"""The alignment of a pool's rows, stated on its stack slot and on each
vector load of a row: without it the load takes the vector's own ABI
alignment (64 bytes for 16 floats) while the slot had its element's (4), and
x86 faults on an aligned vector load (`vmovaps`) from a slot LLVM placed 8
bytes off."""
REGROUPING = ("reassoc", "nsz")


@dataclass(frozen=True)
class Pool:
    """One pooled add's rows of lane values (`ROWS` x `LANES`) and, when it
    has an index, each row's (`ROWS` x i64)."""

    add: AtomicRMWOp
    values: ir.Value
    at: ir.Value | None


class Pools:
    """The pools of one lane loop, with the count of rows they hold."""

    def __init__(self, fl: FunctionLowering, adds: Sequence[AtomicRMWOp]):
        self.fl = fl
        self.pools = [
            Pool(
                add,
                fl.alloca(
                    ir.ArrayType(ir.ArrayType(fl.type(add.value.type), LANES), ROWS),
                    "pool",
                    align=POOL_ALIGN,
                ),
                fl.alloca(ir.ArrayType(I64, ROWS), "pool.at")
                if add.index is not None
                else None,
            )
            for add in adds
        ]
        self.rows = fl.alloca(I64, "pool.rows") if adds else None
        self.row: ir.Value | None = None
        """The row this iteration's lanes store to (`begin_row` to `end_row`)."""

    def find(self, op: object) -> Pool | None:
        return next((p for p in self.pools if p.add is op), None)

    def start(self) -> None:
        """Empty the pools (before a group's loop)."""
        if self.rows is not None:
            self.fl.builder.store(ir.Constant(I64, 0), self.rows)

    def begin_row(self) -> None:
        """Before an iteration's lane loop: the row it fills."""
        if self.rows is not None:
            self.row = self.fl.builder.load(self.rows, typ=I64)

    def put(self, pool: Pool, lane: ir.Value) -> None:
        """Inside the lane loop: lane `lane`'s value of `pool`'s add, and
        (the same for every lane) its index."""
        b, fl, add = self.fl.builder, self.fl, pool.add
        assert self.row is not None
        ty = fl.type(add.value.type)
        row_type = ir.ArrayType(ty, LANES)
        zero = ir.Constant(I64, 0)
        slot = b.gep(
            pool.values,
            [zero, self.row, lane],
            inbounds=True,
            source_etype=ir.ArrayType(row_type, ROWS),
        )
        b.store(fl.values[add.value], slot)
        if pool.at is not None:
            assert add.index is not None
            at = b.gep(
                pool.at,
                [zero, self.row],
                inbounds=True,
                source_etype=ir.ArrayType(I64, ROWS),
            )
            b.store(fl.values[add.index], at)

    def end_row(self) -> None:
        """After the iteration's lane loop: the row is taken; full pools are
        summed."""
        if self.rows is None or self.row is None:
            return
        b = self.fl.builder
        rows = b.add(self.row, ir.Constant(I64, 1), flags=["nuw"])
        b.store(rows, self.rows)
        full = b.icmp_unsigned("==", rows, ir.Constant(I64, ROWS))
        with b.if_then(full, likely=False):
            self._sum(ir.Constant(I64, ROWS))
        self.row = None

    def finish(self) -> None:
        """After the loop: sum what the pools hold."""
        if self.rows is None:
            return
        b = self.fl.builder
        rows = b.load(self.rows, typ=I64)
        with b.if_then(b.icmp_unsigned("!=", rows, ir.Constant(I64, 0))):
            self._sum(rows)

    def _sum(self, rows: ir.Value) -> None:
        """Add each of the first `rows` rows' sums at its address; empty the
        pools."""
        for pool in self.pools:
            self._sum_pool(pool, rows)
        assert self.rows is not None
        self.fl.builder.store(ir.Constant(I64, 0), self.rows)

    def _sum_pool(self, pool: Pool, rows: ir.Value) -> None:
        b, fl = self.fl.builder, self.fl
        zero = ir.Constant(I64, 0)
        ty = fl.type(pool.add.value.type)
        vector = ir.VectorType(ty, LANES)
        table = ir.ArrayType(ir.ArrayType(ty, LANES), ROWS)

        def row_at(r: ir.Value) -> ir.Value:
            return b.gep(pool.values, [zero, r], inbounds=True, source_etype=table)

        if not (isinstance(rows, ir.Constant) and rows.constant == ROWS):
            # Rows past the last taken are zeros, not what a former batch left.
            counted_loop(
                b,
                rows,
                ir.Constant(I64, ROWS),
                lambda r: b.store(
                    ir.Constant(vector, None), row_at(r), align=POOL_ALIGN
                ),
                "pool.clear",
            )
        loaded = [
            b.load(row_at(ir.Constant(I64, r)), typ=vector, align=POOL_ALIGN)
            for r in range(ROWS)
        ]
        sums = row_sums(b, loaded)
        base = fl.values[pool.add.ptr]

        def add(r: ir.Value) -> None:
            where = base
            if pool.at is not None:
                at = b.gep(
                    pool.at,
                    [zero, r],
                    inbounds=True,
                    source_etype=ir.ArrayType(I64, ROWS),
                )
                where = b.gep(
                    base, [b.load(at, typ=I64)], inbounds=True, source_etype=ty
                )
            old = b.load(where, typ=ty)
            tag_space(fl, old, pool.add.ptr)
            total = b.fadd(old, b.extract_element(sums, r), flags=REGROUPING)
            tag_space(fl, b.store(total, where), pool.add.ptr)

        counted_loop(b, zero, rows, add, "pool.add")


def row_sums(b: ir.IRBuilder, rows: list[ir.Value]) -> ir.Value:
    """The vector whose lane r is the sum of the lanes of `rows[r]` (a power
    of two of vectors of as many lanes or more, a power of two too): pairs of
    vectors are halved and added, each holding the partial sums of twice as
    many rows in half as many lanes, until one vector holds all the rows;
    then, while a row spans several lanes, its halves are added (a vector
    half as wide), until one lane per row is left, in order."""
    width = rows[0].type.count
    part = width
    while len(rows) > 1:
        half = part // 2
        low: list[int] = []
        high: list[int] = []
        for v in (0, 1):
            for block in range(width // part):
                first = v * width + block * part
                low += range(first, first + half)
                high += range(first + half, first + part)
        rows = [
            _add_halves(b, x, y, low, high)
            for x, y in zip(rows[::2], rows[1::2], strict=True)
        ]
        part = half
    total = rows[0]
    while part > 1:
        half = part // 2
        blocks = range(0, width, part)
        low = [i for first in blocks for i in range(first, first + half)]
        high = [i + half for i in low]
        total = _add_halves(b, total, total, low, high)
        width //= 2
        part = half
    return total


def _add_halves(
    b: ir.IRBuilder, x: ir.Value, y: ir.Value, low: list[int], high: list[int]
) -> ir.Value:
    return b.fadd(
        b.shuffle_vector(x, y, _mask(low)),
        b.shuffle_vector(x, y, _mask(high)),
        flags=REGROUPING,
    )


def _mask(lanes: list[int]) -> ir.Constant:
    return ir.Constant(ir.VectorType(I32, len(lanes)), lanes)
