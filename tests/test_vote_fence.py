"""Subgroup votes and ballots, the reduction kinds of MLIR 19 and later, and
fences (tests/vote_fence_kernels.mlir and the imported
Inputs/versions/reduce_kinds_mlir{19,22}_generic.mlir) on the native
target's work-group functions and on spirv (Intel's OpenCL CPU runtime),
against numpy on fresh random inputs with poisoned outputs. The reference
comes from the subgroups each launch formed (test_subgroup.Subgroups).
Rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_subgroup import LAUNCHES, SEED, TARGETS, Array, Subgroups, module, rng

SOURCE = Path(__file__).with_name("vote_fence_kernels.mlir")
VERSIONS = Path(__file__).parent / "filecheck/import/Inputs/versions"


def ballot(groups: Subgroups, p: Array, bits: int) -> Array:
    """Each thread's mask: bit i set where lane i of its subgroup has `p`."""
    out = np.zeros(len(p), np.uint64)
    for t in range(len(p)):
        mask = 0
        for lane, member in enumerate(groups.members(t)):
            if lane < bits and p[member]:
                mask |= 1 << lane
        out[t] = mask
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), LAUNCHES)
@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 0.97, 1.0])
def test_votes_and_ballots_match_numpy(
    target: str, n: int, block: int, density: float
) -> None:
    r = rng("votes", n, block, density)
    x = r.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    threshold = np.int32(-(2**31) + 1)
    x[r.random(n) >= density] = threshold  # p = x > threshold
    out = np.full(3 * n, -7, np.int32)
    wide = np.full(n, -7, np.int64)
    ids = np.full(3 * n, -1, np.int32)
    module(target, SOURCE)["votes"][(n // block,), (block,)](
        x, threshold, out, wide, ids
    )
    groups = Subgroups(ids, block, target)
    p = x > threshold
    message = f"seed {SEED}: density {density}"
    np.testing.assert_array_equal(out[:n], groups.reduce(p, np.any), message)
    np.testing.assert_array_equal(out[n : 2 * n], groups.reduce(p, np.all), message)
    got32 = out[2 * n :].view(np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(got32, ballot(groups, p, 32), message)
    np.testing.assert_array_equal(wide.view(np.uint64), ballot(groups, p, 64), message)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), [(64, 64), (150, 50)])
def test_ballot_in_a_helper(target: str, n: int, block: int) -> None:
    r = rng("helper", n, block)
    x = r.integers(-100, 100, n, dtype=np.int32)
    wide = np.full(n, -7, np.int64)
    ids = np.full(3 * n, -1, np.int32)
    module(target, SOURCE)["in_helper"][(n // block,), (block,)](
        x, np.int32(0), wide, ids
    )
    groups = Subgroups(ids, block, target)
    want = ballot(groups, x > 0, 64)
    np.testing.assert_array_equal(wide.view(np.uint64), want, f"seed {SEED}")


def minimum(v: Array) -> Any:
    """IEEE 754-2019 minimum: NaN from any NaN, -0 below +0."""
    if np.isnan(v).any():
        return np.float32(np.nan)
    low = v.min()
    return np.float32(-0.0) if low == 0 and np.signbit(v[v == 0]).any() else low


def maximum(v: Array) -> Any:
    if np.isnan(v).any():
        return np.float32(np.nan)
    high = v.max()
    return np.float32(0.0) if high == 0 and not np.signbit(v[v == 0]).all() else high


INT_KINDS = [np.min, np.min, np.max, np.max]
"""minsi, minui (on the bits as unsigned), maxsi, maxui."""
FLOAT_KINDS = [np.fmin.reduce, np.fmax.reduce, minimum, maximum]
"""minnumf, maxnumf, minimumf, maximumf."""


def same_floats(got: Array, want: Array, signed_zero: bool) -> bool:
    """Equal (to the bit if `signed_zero`: minNum and maxNum may give either
    zero of -0 and +0), or both NaN."""
    both_nan = np.isnan(got) & np.isnan(want)
    equal = got.view(np.uint32) == want.view(np.uint32) if signed_zero else got == want
    return bool((both_nan | equal).all())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mlir", [19, 22])
@pytest.mark.parametrize(("n", "block"), [(64, 64), (150, 50), (1000, 200)])
def test_mlir_19_reduction_kinds(target: str, mlir: int, n: int, block: int) -> None:
    """All eight min/max kinds of gpu.all_reduce and gpu.subgroup_reduce as
    mlir-opt-19 and -22 print them, on values with NaNs and signed zeros."""
    r = rng("kinds", mlir, n, block)
    xi = r.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    xf = r.standard_normal(n).astype(np.float32)
    special = r.random(n)
    xf[special < 0.1] = 0.0
    xf[(special >= 0.1) & (special < 0.2)] = -0.0
    xf[special > 0.99] = np.nan
    ri = np.full(8 * n, -7, np.int32)
    rf = np.full(8 * n, 7.5, np.float32)
    ids = np.full(3 * n, -1, np.int32)
    source = VERSIONS / f"reduce_kinds_mlir{mlir}_generic.mlir"
    module(target, source)["kinds"][(n // block,), (block,)](xi, xf, ri, rf, ids)
    groups = Subgroups(ids, block, target)
    blocks = np.arange(n) // block
    for k, fold in enumerate(INT_KINDS):
        values = xi.view(np.uint32) if k in (1, 3) else xi
        want_block = np.array([fold(values[blocks == b]) for b in blocks])
        want_group = groups.reduce(values, fold)
        got = ri.view(np.uint32) if k in (1, 3) else ri
        message = f"seed {SEED}: integer kind {k}"
        np.testing.assert_array_equal(got[k * n : (k + 1) * n], want_block, message)
        at = (4 + k) * n
        np.testing.assert_array_equal(got[at : at + n], want_group, message)
    for k, fold in enumerate(FLOAT_KINDS):
        want_block = np.array([fold(xf[blocks == b]) for b in blocks], np.float32)
        want_group = groups.reduce(xf, fold)
        message = f"seed {SEED}: float kind {k}"
        exact = k >= 2
        assert same_floats(rf[k * n : (k + 1) * n], want_block, exact), message
        at = (4 + k) * n
        assert same_floats(rf[at : at + n], want_group, exact), message


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("blocks", "block"), [(1, 1), (7, 32), (64, 16), (300, 4)])
def test_fenced_last_block_sum(target: str, blocks: int, block: int) -> None:
    n = blocks * block
    x = rng("fence", blocks, block).integers(-(2**40), 2**40, n, dtype=np.int64)
    partial = np.full(blocks, -7, np.int64)
    count = np.zeros(1, np.int32)
    out = np.full(1, -7, np.int64)
    kernel = module(target, SOURCE)["last_block_sum"]
    kernel[(blocks,), (block,)](x, partial, count, out)
    np.testing.assert_array_equal(partial, x.reshape(blocks, block).sum(axis=1))
    assert count[0] == blocks
    assert out[0] == x.sum(), f"seed {SEED}"
