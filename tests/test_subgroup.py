"""Subgroup shuffles and reductions (tests/subgroup_kernels.mlir) on the native
target's work-group functions and on spirv (Intel's OpenCL CPU runtime),
against numpy on fresh random inputs with poisoned outputs.

The runtime forms the subgroups (OpenCL picks the sub-group size: 8, 16 or 32
on Intel's CPU runtime; native and CUDA use warps of 32): every kernel writes
each thread's subgroup id, lane and subgroup size, the test checks that they
describe a partition of each block, and computes the reference from it.
Inputs differ per run; rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc

SOURCE = Path(__file__).with_name("subgroup_kernels.mlir")
SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_subgroup: GPUC_TEST_SEED={SEED}")
TARGETS = ["native", "spirv"]
LAUNCHES = [(1, 1), (64, 64), (96, 96), (150, 50), (1000, 200)]
"""(threads, block): whole subgroups, and blocks whose last one is partial."""
Array = np.ndarray[Any, Any]

_modules: dict[str, gpuc.Module] = {}


def module(target: str, source: Path = SOURCE) -> gpuc.Module:
    key = f"{source}:{target}"
    if key not in _modules:
        _modules[key] = gpuc.compile(source, target=target)
    return _modules[key]


def rng(*key: object) -> np.random.Generator:
    return np.random.default_rng([SEED, *(hash(str(k)) % 2**32 for k in key)])


class Subgroups:
    """The subgroups a launch formed, from the ids its threads wrote."""

    def __init__(self, ids: Array, block: int, target: str):
        sid, lane, size = ids.reshape(-1, 3).T.astype(np.int64)
        self.block = np.arange(len(sid)) // block
        self.sid, self.lane, self.size = sid, lane, size
        if target == "native":  # warps of 32 consecutive threads
            local = np.arange(len(sid)) % block
            np.testing.assert_array_equal(sid, local // 32)
            np.testing.assert_array_equal(lane, local % 32)
        self.where: dict[tuple[int, int, int], int] = {}
        for t, key in enumerate(zip(self.block, sid, lane, strict=True)):
            assert key not in self.where, f"two threads are lane {key}"
            self.where[(int(key[0]), int(key[1]), int(key[2]))] = t
        counts = Counter((b, s) for (b, s, _) in self.where)
        for t in range(len(sid)):
            count = counts[(int(self.block[t]), int(sid[t]))]
            assert size[t] == count and 0 <= lane[t] < count, f"thread {t}"
        self.lanes = int(size.max())
        """The subgroup size (the largest the launch formed)."""

    def members(self, t: int) -> list[int]:
        """The threads of `t`'s subgroup, in lane order."""
        key = (int(self.block[t]), int(self.sid[t]))
        return [self.where[(*key, lane)] for lane in range(int(self.size[t]))]

    def shuffle(
        self, x: Array, mode: str, offset: int, width: int | None
    ) -> tuple[Array, Array]:
        """What `gpuc.shuffle` computes (gpuc/dialects/subgroup.py), per thread."""
        out, valid = x.copy(), np.zeros(len(x), bool)
        for t in range(len(x)):
            w = width if width is not None else self.lanes
            lane = int(self.lane[t])
            position = lane % w
            if mode == "xor":
                source, inside = position ^ offset, (position ^ offset) < w
            elif mode == "up":
                source, inside = position - offset, offset <= position
            elif mode == "down":
                source = position + offset
                inside = offset < w and source < w
            else:
                source, inside = offset, offset < w
            at = lane - position + source
            if inside and at < self.size[t]:
                valid[t] = True
                out[t] = x[self.members(t)[at]]
        return out, valid

    def reduce(self, x: Array, fold: Any) -> Array:
        return np.array([fold(x[self.members(t)]) for t in range(len(x))], x.dtype)


def launch_ids(target: str, n: int, block: int) -> Subgroups:
    x = np.zeros(n, np.float32)
    out = np.zeros(4 * n, np.float32)
    valid = np.zeros(n, np.int32)
    ids = np.full(3 * n, -1, np.int32)
    module(target)["shuffles"][(n // block,), (block,)](
        x, out, valid, ids, *(np.int32(0),) * 4, np.int32(32)
    )
    return Subgroups(ids, block, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), LAUNCHES)
@pytest.mark.parametrize("width", [32, 16, 4])
def test_shuffles_match_numpy(target: str, n: int, block: int, width: int) -> None:
    r = rng("shuffles", n, block, width)
    x = r.standard_normal(n).astype(np.float32)
    offsets = [int(o) for o in r.integers(0, width + 3, 4)]
    out = np.full(4 * n, np.nan, np.float32)
    valid = np.full(n, -1, np.int32)
    ids = np.full(3 * n, -1, np.int32)
    module(target)["shuffles"][(n // block,), (block,)](
        x, out, valid, ids, *map(np.int32, offsets), np.int32(width)
    )
    groups = Subgroups(ids, block, target)
    cases = [("xor", width), ("up", None), ("down", None), ("idx", width)]
    for k, ((mode, w), offset) in enumerate(zip(cases, offsets, strict=True)):
        want, want_valid = groups.shuffle(x, mode, offset, w)
        message = f"seed {SEED}: {mode} by {offset}, width {w}"
        np.testing.assert_array_equal(out[k * n : (k + 1) * n], want, message)
        np.testing.assert_array_equal((valid >> k) & 1, want_valid, message)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), LAUNCHES)
def test_64_bit_shuffles(target: str, n: int, block: int) -> None:
    r = rng("shuffles64", n, block)
    x = r.integers(-(2**62), 2**62, n, dtype=np.int64)
    y = r.standard_normal(n)
    od, ox = (int(o) for o in r.integers(0, 8, 2))
    out = np.full(n, -7, np.int64)
    outy = np.full(n, np.nan)
    ids = np.full(3 * n, -1, np.int32)
    module(target)["shuffles64"][(n // block,), (block,)](
        x, y, out, outy, ids, np.int32(od), np.int32(ox)
    )
    groups = Subgroups(ids, block, target)
    np.testing.assert_array_equal(out, groups.shuffle(x, "down", od, None)[0])
    np.testing.assert_array_equal(outy, groups.shuffle(y, "xor", ox, None)[0])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), LAUNCHES)
def test_shuffle_in_a_helper(target: str, n: int, block: int) -> None:
    r = rng("helper", n, block)
    x = r.standard_normal(n).astype(np.float32)
    offset = int(r.integers(0, 5))
    out = np.full(n, np.nan, np.float32)
    ids = np.full(3 * n, -1, np.int32)
    module(target)["in_helper"][(n // block,), (block,)](x, out, ids, np.int32(offset))
    want = Subgroups(ids, block, target).shuffle(x, "down", offset, None)[0]
    np.testing.assert_array_equal(out, want, f"seed {SEED}")


def wrapping(fold: Any) -> Any:
    """`fold` on int32 values with the 32-bit wrap-around of the kernels."""

    def run(v: Array) -> int:
        return (int(fold(v.astype(object))) + 2**31) % 2**32 - 2**31

    return run


INT_FOLDS = [
    wrapping(sum),
    wrapping(lambda v: np.prod(v)),
    np.min,
    np.max,
    np.bitwise_and.reduce,
    np.bitwise_or.reduce,
    np.bitwise_xor.reduce,
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), LAUNCHES)
def test_reductions_match_numpy(target: str, n: int, block: int) -> None:
    lanes = launch_ids(target, max(block, 32), block).lanes
    r = rng("reductions", n, block)
    xi = r.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    xf = r.standard_normal(n).astype(np.float32)
    xd = r.standard_normal(n)
    sums = np.full(n, -7, np.int32)
    red = np.full(7 * n, -7, np.int32)
    redf = np.full(3 * n, np.nan, np.float32)
    redd = np.full(n, np.nan)
    ids = np.full(3 * n, -1, np.int32)
    module(target)["reductions"][(n // block,), (block,)](
        xi, xf, xd, sums, red, redf, redd, ids, np.int32(lanes)
    )
    groups = Subgroups(ids, block, target)
    acc = xi.copy()
    step = lanes // 2
    while step:  # the butterfly, with a shuffle's own value where it is invalid
        acc = acc + groups.shuffle(acc, "xor", step, None)[0]
        step //= 2
    np.testing.assert_array_equal(sums, acc, f"seed {SEED}: butterfly sum")
    for k, fold in enumerate(INT_FOLDS):
        want = groups.reduce(xi, fold)
        np.testing.assert_array_equal(red[k * n : (k + 1) * n], want, f"seed {SEED}")
    for k, fold in enumerate([np.sum, np.min, np.max]):
        got = redf[k * n : (k + 1) * n].astype(np.float64)
        want = groups.reduce(xf.astype(np.float64), fold)
        bound = 32 * np.finfo(np.float32).eps * groups.reduce(np.abs(xf), np.sum)
        assert (np.abs(got - want) <= bound).all(), f"seed {SEED}: fold {k}"
    bound = 32 * np.finfo(np.float64).eps * groups.reduce(np.abs(xd), np.sum)
    want = groups.reduce(xd, np.sum)
    assert (np.abs(redd - want) <= bound).all(), f"seed {SEED}"


IMPORTED = """
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%x: memref<?xf32>, %pairs: memref<?xf32>, %sums: memref<?xf32>):
      %t = "gpu.global_id"() {dimension = #gpu<dim x>} : () -> index
      %v = "memref.load"(%x, %t) : (memref<?xf32>, index) -> f32
      %one = "arith.constant"() {value = 1 : i32} : () -> i32
      %width = "arith.constant"() {value = 32 : i32} : () -> i32
      %r:2 = "gpu.shuffle"(%v, %one, %width) {mode = #gpu<shuffle_mode xor>}
        : (f32, i32, i32) -> (f32, i1)
      %s = "gpu.subgroup_reduce"(%r#0) {op = #gpu<all_reduce_op add>, uniform}
        : (f32) -> f32
      "memref.store"(%r#0, %pairs, %t) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%s, %sums, %t) : (f32, memref<?xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> (),
        gpu.kernel, sym_name = "pairs"} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()
"""
"""gpu.shuffle and gpu.subgroup_reduce as mlir-opt-16 --mlir-print-op-generic
prints them."""


@pytest.mark.parametrize("target", TARGETS)
def test_imported_gpu_shuffle_and_reduce(target: str, tmp_path: Path) -> None:
    source = tmp_path / "imported.mlir"
    source.write_text(IMPORTED)
    n, block = 256, 64
    lanes = launch_ids(target, block, block).lanes
    x = rng("imported").standard_normal(n).astype(np.float32)
    pairs = np.full(n, np.nan, np.float32)
    sums = np.full(n, np.nan, np.float32)
    gpuc.compile(source, target=target)["pairs"][(n // block,), (block,)](
        x, pairs, sums
    )
    np.testing.assert_array_equal(pairs, x.reshape(-1, 2)[:, ::-1].ravel())
    want = np.repeat(x.reshape(-1, lanes).astype(np.float64).sum(axis=1), lanes)
    bound = (
        32
        * np.finfo(np.float32).eps
        * np.repeat(np.abs(x).reshape(-1, lanes).sum(axis=1), lanes)
    )
    assert (np.abs(sums - want) <= bound).all(), f"seed {SEED}"


ALL_REDUCE = (
    Path(__file__).parent
    / "filecheck/import/Inputs/versions/all_reduce_mlir16_generic.mlir"
)
"""gpu.all_reduce add (uniform) of f32, max of i32, and a region that xors."""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), [(1, 1), (200, 50), (1024, 256), (2048, 1024)])
def test_imported_all_reduce(target: str, n: int, block: int) -> None:
    r = rng("all_reduce", n, block)
    x = r.standard_normal(n).astype(np.float32)
    xi = r.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    sums, maxes = x.copy(), xi.copy()
    xors = np.full(n, -7, np.int32)
    kernel = module(target, ALL_REDUCE)["k"]
    kernel[(n // block,), (block,)](sums, maxes, xors)
    v = x.reshape(-1, block).astype(np.float64)
    want = np.repeat(v.sum(axis=1), block)
    bound = np.repeat(32 * np.finfo(np.float32).eps * np.abs(v).sum(axis=1), block)
    assert (np.abs(sums - want) <= bound).all(), f"seed {SEED}: add"
    rows = xi.reshape(-1, block)
    np.testing.assert_array_equal(maxes, np.repeat(rows.max(axis=1), block))
    want_xor = np.repeat(np.bitwise_xor.reduce(rows, axis=1), block)
    np.testing.assert_array_equal(xors, want_xor, f"seed {SEED}: region")
