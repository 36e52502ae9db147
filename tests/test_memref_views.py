"""memref views in device code from other frontends: `memref.subview`
(static and dynamic offsets, sizes and strides, rank-reducing, of a view, of
workgroup memory), `memref.reinterpret_cast` and `memref.memory_space_cast`
(to generic, between spellings of one space), loads and stores through them
and views passed to helpers, on native and spirv (Intel's OpenCL CPU
runtime) against numpy on fresh random inputs with poisoned outputs; the same
kernels as mlir-opt-16 and -22 print them; and through ptxas and the amdgpu
back-end. Rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kernel_modules import compiled, seeded

import gpuc
from gpuc.compiler import compile_module

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_memref_views: GPUC_TEST_SEED={SEED}")
Array = np.ndarray[Any, Any]
VERSIONS = Path(__file__).parent / "filecheck" / "import" / "Inputs" / "versions"

SOURCE = (Path(__file__).parent / "memref_views_kernels.mlir").read_text()


def module(target: str) -> gpuc.Module:
    return compiled(SOURCE, target)


def rng(*key: object) -> np.random.Generator:
    return seeded(SEED, *key)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_views_match_numpy(target: str) -> None:
    r = rng("views", target)
    a = r.standard_normal((16, 32)).astype(np.float32)
    b = r.standard_normal(40).astype(np.float32)
    o0, o1, st = int(r.integers(0, 12)), int(r.integers(0, 8)), int(r.integers(1, 4))
    out = np.full((10, 4, 8), np.nan, np.float32)
    row = np.full(32, np.nan, np.float32)
    into = np.full((8, 16), np.nan, np.float32)
    module(target)["views"][(1,), (8, 4)](a, b, o0, o1, st, out, row, into)
    y, x = np.mgrid[0:4, 0:8]
    s = a[2:14:3, 4:20:2]
    d = a[o0 : o0 + 4, o1 : o1 + 8 * st : st]
    corner = a[:4, :8]  # what the threads store into the workgroup view
    want = [
        s,
        2 * s,
        d,
        d[1 + y % 2, 2 + x % 4],
        b[3 + 9 * y + x],  # reinterpret_cast of a dynamic 1-D memref
        a.reshape(-1)[o1 + st * y + x],  # reinterpret_cast of a view: its base
        corner[::-1, ::-1],
        corner[::-1, ::-1],
        corner[::-1, :],
        # through generic, and back to workgroup memory
        (corner[:, ::-1] + corner[:, ::-1]) + a.reshape(-1)[36 + 16 * y + x],
    ]
    for k, expected in enumerate(want):
        np.testing.assert_array_equal(out[k], expected, err_msg=f"result {k}")
    np.testing.assert_array_equal(row, a[5])
    expected_into = np.full((8, 16), np.nan, np.float32)
    expected_into[1:9:2, 2:10] = corner
    np.testing.assert_array_equal(into, expected_into)


@pytest.mark.parametrize("version", [16, 22])
@pytest.mark.parametrize("target", ["native", "spirv"])
def test_mlir_printed_views_match_numpy(target: str, version: int) -> None:
    """The fixture as mlir-opt prints it (Inputs/versions/memref_views.mlir)."""
    path = VERSIONS / f"memref_views_mlir{version}_generic.mlir"
    r = rng("fixture", target, version)
    a = r.standard_normal((16, 32)).astype(np.float32)
    off = int(r.integers(0, 12))
    out = np.full((5, 4, 8), np.nan, np.float32)
    gpuc.compile(path, target=target)["views"][(1,), (8, 4)](a, off, out)
    y, x = np.mgrid[0:4, 0:8]
    s = a[2:14:3, 4:20:2]
    np.testing.assert_array_equal(out[0], s)
    np.testing.assert_array_equal(out[1], a[off : off + 4, 1:25:3])
    np.testing.assert_array_equal(out[2], a[off, 7 * y + x])
    np.testing.assert_array_equal(out[3], a.reshape(-1)[5 + 11 * y + x])
    np.testing.assert_array_equal(out[4], s[::-1, :])


@pytest.mark.parametrize("sm", [75, 90])
def test_ptx_passes_ptxas(sm: int) -> None:
    ptx = compile_module(SOURCE, "ptx", sm=sm, validate=True).artefact
    assert isinstance(ptx, str) and ".entry views" in ptx


def test_spirv_passes_spirv_val() -> None:
    assert compile_module(SOURCE, "spirv", validate=True).artefact


def test_amdgpu_compiles() -> None:
    assert compile_module(SOURCE, "amdgpu").artefact
