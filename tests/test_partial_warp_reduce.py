"""The shuffle reduction of ptx and amdgpu (`shuffle_tree_reduce`,
gpuc/lowering/subgroup.py) in a block's last, partial subgroup: it must read only
lanes the subgroup has (`shfl.sync` over the warp's exact member mask leaves
any other lane's value undefined) and still give every lane the reduction of
all of them.

No GPU runs here, so the function's own code is run on a stand-in for
llvmlite's builder that evaluates each instruction at once on all 32 lanes
(numpy arrays) and a stand-in target whose lane read records what it reads;
the PTX it emits is checked by tests/filecheck/targets/ptx/subgroup.mlir.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from llvmlite import ir

from gpuc.dialects.subgroup import ReduceKind
from gpuc.lowering.subgroup import WARP_LANES, shuffle_tree_reduce

Array = np.ndarray[Any, Any]


@dataclass
class Lanes:
    """A value of every lane of the warp."""

    values: Array
    type: ir.Type


def lanes(value: Lanes | ir.Constant) -> Array:
    if isinstance(value, ir.Constant):
        return np.full(WARP_LANES, value.constant, dtype=np.int64)
    return value.values


class LaneBuilder:
    """The part of llvmlite's IRBuilder the reduction uses, on all lanes."""

    def trunc(self, value: Lanes, ty: ir.IntType) -> Lanes:
        return Lanes(lanes(value) & ((1 << ty.width) - 1), ty)

    def add(self, x: Lanes | ir.Constant, y: Lanes | ir.Constant) -> Lanes:
        return Lanes(lanes(x) + lanes(y), x.type)

    def fadd(self, x: Lanes, y: Lanes) -> Lanes:
        return Lanes(lanes(x) + lanes(y), x.type)

    def icmp_unsigned(self, op: str, x: Lanes, y: Lanes | ir.Constant) -> Lanes:
        assert op == "<", op
        return Lanes(lanes(x) < lanes(y), ir.IntType(1))

    def icmp_signed(self, op: str, x: Lanes, y: Lanes) -> Lanes:
        compare = {">": np.greater, "<": np.less}[op]
        return Lanes(compare(lanes(x), lanes(y)), ir.IntType(1))

    def select(self, c: Lanes, x: Lanes, y: Lanes) -> Lanes:
        return Lanes(np.where(lanes(c), lanes(x), lanes(y)), x.type)


class PartialWarp:
    """A warp of `size` threads: its lane ids and size, and a lane read that
    fails on a lane the warp has not."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.reads = 0

    def subgroup_index(self, fl: Any, kind: str) -> Lanes:
        values = {
            "lane_id": np.arange(WARP_LANES),
            "subgroup_size": np.full(WARP_LANES, self.size),
        }[kind]
        return Lanes(values, ir.IntType(64))

    def read_lane(
        self, fl: Any, op: Any, value: Lanes, lane: Lanes | ir.Constant
    ) -> Lanes:
        source = lanes(lane)
        members = source[: self.size]
        assert (members < self.size).all(), f"reads lanes {sorted(set(members))}"
        self.reads += 1
        return Lanes(value.values[np.minimum(source, WARP_LANES - 1)], value.type)


@dataclass
class Lowering:
    builder: LaneBuilder


@pytest.mark.parametrize("size", range(1, WARP_LANES + 1))
@pytest.mark.parametrize(
    ("kind", "ty", "reference"),
    [
        (ReduceKind.ADD, ir.IntType(32), np.sum),
        (ReduceKind.MAX, ir.IntType(32), np.max),
        (ReduceKind.ADD, ir.FloatType(), np.sum),
    ],
    ids=["add-i32", "max-i32", "add-f32"],
)
def test_a_partial_warp_reduces_its_lanes_only(
    size: int, kind: ReduceKind, ty: ir.Type, reference: Any
) -> None:
    rng = np.random.default_rng(size)
    values = rng.integers(-1000, 1000, WARP_LANES)
    # What a missing lane's register holds is undefined: make it loud.
    values[size:] = 10**9
    warp = PartialWarp(size)
    result = shuffle_tree_reduce(
        Lowering(LaneBuilder()),  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        warp,  # type: ignore[arg-type]
        kind,
        Lanes(values, ty),  # type: ignore[arg-type]
    )
    want = reference(values[:size])
    np.testing.assert_array_equal(lanes(result)[:size], np.full(size, want))
    assert warp.reads == 6  # five steps down and lane 0's result
