"""MLIR's amdgpu buffer ops (tests/amdgpu_buffer_kernels.mlir) imported into
bounds-checked gpuc loads, stores and atomics: against numpy on native and
spirv, with offsets inside, across and outside the buffer (negative ones
too), scalars and vectors, `indexOffset`, `sgprOffset`, `boundsCheck =
false`; outputs poisoned first, and each buffer a view of the first N
elements of a longer array, so that a write past the buffer shows. The kernels
compile for ptx too (ptxas checks the PTX where it is installed)."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kernel_modules import compiled, seeded

import gpuc
from gpuc.compiler import compile_module
from gpuc.diagnostics import DiagnosticException

SOURCE = Path(__file__).with_name("amdgpu_buffer_kernels.mlir")
SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_amdgpu_buffer: GPUC_TEST_SEED={SEED}")
TARGETS = ["native", "spirv"]
N = 24
"""Elements of each buffer the kernels see (their arrays have SPARE more)."""
SPARE = 8
Array = np.ndarray[Any, Any]


def module(target: str) -> gpuc.Module:
    return compiled(SOURCE, target)


def rng(*key: object) -> np.random.Generator:
    return seeded(SEED, *key)


def source(*key: object) -> Array:
    return rng(*key).standard_normal(N + SPARE).astype(np.float32)


def poisoned(size: int, dtype: Any = np.float32) -> Array:
    if np.dtype(dtype).kind == "f":
        return np.full(size, np.nan, dtype)
    return np.full(size, -(2**31), dtype)


def read(src: Array, at: Array) -> Array:
    """src[at] where 0 <= at < N, else 0 (what a checked buffer load reads)."""
    inside = (at >= 0) & (at < N)
    return np.where(inside, src[np.clip(at, 0, N - 1)], 0).astype(src.dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("base", [0, 8, 20, 24, -5, -40, 2**30])
def test_a_checked_scalar_load_reads_0_outside(target: str, base: int) -> None:
    src, dst = source("load", base), poisoned(16)
    module(target)["load"][1, 16](src, N, dst, base)
    np.testing.assert_array_equal(dst, read(src, base + np.arange(16)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("base", "sgpr"), [(0, 0), (3, 1), (10, 4), (-9, 3)])
def test_a_vector_load_checks_each_element(target: str, base: int, sgpr: int) -> None:
    """index + indexOffset (2) + sgprOffset; a vector partly outside reads
    its elements inside. What is checked is index + indexOffset: sgprOffset,
    a scalar register's offset, is not range-checked (as on the hardware)."""
    src = rng("load4", base, sgpr).integers(-1000, 1000, N + SPARE, dtype=np.int32)
    dst = poisoned(4 * 6, np.int32)
    module(target)["load4"][1, 6](src, N, dst, base, sgpr)
    checked = base + 4 * np.arange(6)[:, None] + np.arange(4) + 2
    inside = (checked >= 0) & (checked < N)
    want = np.where(inside, src[np.clip(checked + sgpr, 0, N + SPARE - 1)], 0)
    np.testing.assert_array_equal(dst.reshape(6, 4), want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("base", [0, 5, 13, -3, 30])
def test_a_checked_vector_store_writes_only_inside(target: str, base: int) -> None:
    src, dst = source("store2", base), poisoned(N + SPARE)
    module(target)["store2"][1, 8](src, dst, N, base)
    want = poisoned(N + SPARE)
    for k in range(16):
        if 0 <= base + k < N:
            want[base + k] = 2 * src[k]
    np.testing.assert_array_equal(dst, want)


@pytest.mark.parametrize("target", TARGETS)
def test_an_unchecked_store_is_a_plain_store(target: str) -> None:
    src, dst = source("unchecked"), poisoned(N + SPARE)
    module(target)["store_unchecked"][1, 8](src, dst, 4)
    want = poisoned(N + SPARE)
    want[4:12] = src[:8]
    np.testing.assert_array_equal(dst, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("base", [0, 20, -4])
def test_atomic_adds_only_inside(target: str, base: int) -> None:
    src = rng("add", base).integers(-8, 8, 64).astype(np.float32)
    acc = np.zeros(N + SPARE, np.float32)
    module(target)["add"][1, 64](src, acc, N, base)
    want = np.zeros(N + SPARE, np.float32)
    for t in range(64):
        if 0 <= base + t % 8 < N:
            want[base + t % 8] += src[t]
    np.testing.assert_array_equal(acc, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("base", [0, 20, -3])
def test_atomic_max_and_min_only_inside(target: str, base: int) -> None:
    r = rng("extrema", base)
    x = r.standard_normal(64).astype(np.float32)
    xi = r.integers(-(2**31), 2**31 - 1, 64, dtype=np.int32)
    size = N + SPARE
    fa = np.full(size, -0.5, np.float32)
    sa = np.full(size, -(2**20), np.int32)
    ua = np.full(size, 2**30, np.int32)
    want = fa.copy(), sa.copy(), ua.copy()
    module(target)["extrema"][1, 64](x, xi, fa, sa, ua, N, base)
    for t in range(64):
        j = base + t % 8
        if 0 <= j < N:
            want[0][j] = max(want[0][j], x[t])
            want[1][j] = max(want[1][j], xi[t])
            unsigned = want[2].view(np.uint32)  # umin compares unsigned
            unsigned[j] = min(unsigned[j], xi.view(np.uint32)[t])
    for got, expected in zip((fa, sa, ua), want, strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("row", [0, 4, 5, -1])
def test_a_2d_buffer_is_checked_against_its_whole_extent(target: str, row: int) -> None:
    rows = 5
    m = rng("load2d", row).standard_normal((rows + 2, 4)).astype(np.float32)
    dst = poisoned(4)
    module(target)["load2d"][1, 4](m[:rows], dst, row)
    flat = m.reshape(-1)
    at = row * 4 + np.arange(4)
    want = np.where((at >= 0) & (at < rows * 4), flat[np.clip(at, 0, None)], 0)
    np.testing.assert_array_equal(dst, want.astype(np.float32))


def test_the_kernels_compile_for_ptx() -> None:
    validate = shutil.which("ptxas") is not None
    ptx = str(compile_module(SOURCE, "ptx", validate=validate).artefact)
    names = ("load", "load4", "store2", "store_unchecked", "add", "load2d", "extrema")
    for name in names:
        assert f".entry {name}(" in ptx
    assert "ld.global" in ptx and "st.global" in ptx and "atom.global" in ptx


BAD = {
    "of another element type": (
        "%v = amdgpu.raw_buffer_load %m[%i] : memref<?xf32>, i32 -> i32",
        "accesses i32 in memref<?xf32> in @k: the element types must be the same",
    ),
    "in workgroup memory": (
        "%w = memref.alloca() : memref<8xf32, #gpu.address_space<workgroup>>\n"
        "  %v = amdgpu.raw_buffer_load %w[%i] : "
        "memref<8xf32, #gpu.address_space<workgroup>>, i32 -> f32",
        "buffer ops take memrefs in global memory",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_buffer_ops_gpuc_cannot_take_are_diagnostics(case: str) -> None:
    body, message = BAD[case]
    text = (
        "func.func @k(%m: memref<?xf32>, %i: i32) attributes {gpu.kernel} {\n"
        f"  {body}\n  return\n}}\n"
    )
    with pytest.raises(DiagnosticException) as info:
        gpuc.compile(text, target="native")
    assert message in str(info.value)


@pytest.mark.parametrize("target", TARGETS)
def test_a_view_with_an_offset_is_in_bounds_to_its_end(target: str) -> None:
    """The buffer of a view starts at its offset: all 8 elements of
    a[4:12] read back (they were checked against the offset added in)."""
    mod = compiled(
        Path(__file__).parent / "fixtures" / "amdgpu_view_offset.mlir", target
    )
    a = rng("view").standard_normal(16).astype(np.float32)
    d = np.full(8, np.nan, np.float32)
    mod["k"][1, 8](a, d)
    np.testing.assert_array_equal(d, a[4:12])
    one, out = np.array(2.5, np.float32), np.full(1, np.nan, np.float32)
    mod["zerod"][1, 1](one, out)
    assert out[0] == 2.5
