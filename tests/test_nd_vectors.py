"""Vectors of several dimensions in device code from MLIR frontends
(gpuc/transforms/foreign/vector_unroll.py), on native and spirv (Intel's OpenCL
CPU runtime) against numpy on fresh random inputs with poisoned outputs:
2-D transfer_read/transfer_write with and without transposition, partly out
of bounds (in_bounds false), with a broadcast dimension and as a 1-D minor
identity; arith chains, dense constants, extract, insert, broadcast,
shape_cast and transpose; vector.contract in f16 and f32 (and f16 into f32,
ABt, kind maximumf, matrix-vector, dot, i32); vector values live across a
barrier; and the diagnostics of what is refused. ptxas and spirv-val check the
same kernels (test_kernels_pass_the_validators). Rerun with
GPUC_TEST_SEED=<seed> to reproduce.
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
from gpuc.diagnostics import OpError

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_nd_vectors: GPUC_TEST_SEED={SEED}")
Array = np.ndarray[Any, Any]
SOURCE = (Path(__file__).parent / "nd_vector_kernels.mlir").read_text()
THREADS = 8


def module(target: str) -> gpuc.Module:
    return compiled(SOURCE, target)


def rng(*key: object) -> np.random.Generator:
    return seeded(SEED, *key)


def padded(a: Array, rows: slice, cols: slice, fill: float) -> Array:
    """a[rows, cols] with the elements past a's end reading `fill`."""
    big = np.full((a.shape[0] + 8, a.shape[1] + 16), fill, a.dtype)
    big[: a.shape[0], : a.shape[1]] = a
    return big[rows, cols]


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_tiles_match_numpy(target: str) -> None:
    r = rng("tiles", target)
    a = r.standard_normal((16, 13)).astype(np.float32)
    s = np.float32(r.standard_normal())
    out = np.full((THREADS * 10, 4, 4), np.nan, np.float32)
    w = np.full((16, 13), np.nan, np.float32)
    wt = np.full((16, 13), np.nan, np.float32)
    module(target)["tiles"][(1,), (THREADS,)](a, out, w, wt, s)
    k = np.array(
        [[1, 2, 3, 4], [5, 6, 7, 8], [0.5, 0.25, -1, -2], [10, 20, 30, 40]],
        np.float32,
    )
    expected_w = np.full((16, 13), np.nan, np.float32)
    expected_wt = np.full((16, 13), np.nan, np.float32)
    for t in range(THREADS):
        r0 = padded(a, slice(2 * t, 2 * t + 4), slice(10, 14), -1)
        r1 = a[t : t + 4, 1:5].T
        sel = np.where(r0 < r1, r1 * r1 - r0, -r1)
        r2 = np.maximum(sel, -r1)
        r4 = np.broadcast_to(a[t, :4], (4, 4))
        r5 = padded(a, slice(t, t + 1), slice(0, 16), -1).reshape(4, 4) + k
        r6 = r0.copy()
        r6[0] = r1[2]
        r6[3, 3] = s
        r7 = np.broadcast_to(r1[2], (4, 4))
        r8 = np.full((4, 4), r1[1, 2])
        want = [r0, r1, r2, r0.T, r4, r5, r6, r7, r8, r0 + 1]
        for i, tile in enumerate(want):
            # r1 * r1 - r0 may be one fmuladd (gpuc contracts by default).
            tolerance = 1e-5 if i == 2 else 0
            np.testing.assert_allclose(
                out[10 * t + i], tile, tolerance, tolerance, err_msg=f"{t}: {i}"
            )
        rows = min(4, 16 - 2 * t)
        expected_w[2 * t : 2 * t + rows, 10:13] = r1[:rows, :3]
        expected_wt[2 * t : 2 * t + rows, 10:13] = r1.T[:rows, :3]
    np.testing.assert_array_equal(w, expected_w)
    np.testing.assert_array_equal(wt, expected_wt)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_matmul_matches_numpy(target: str) -> None:
    r = rng("matmul", target)
    # Small integers: every product and partial sum is exact in f16, so the
    # f16 accumulation is exact whatever the order or fusion.
    a = r.integers(-4, 5, (16, 16)).astype(np.float16)
    b = r.integers(-4, 5, (16, 16)).astype(np.float16)
    h = r.integers(-8, 9, (16, 16)).astype(np.float16)
    c = r.standard_normal((16, 16)).astype(np.float32)
    af = r.standard_normal((8, 8)).astype(np.float32)
    bf = r.standard_normal((8, 8)).astype(np.float32)
    d = np.full((16, 16), np.nan, np.float32)
    dh = np.full((16, 16), np.nan, np.float16)
    dt = np.full((8, 8), np.nan, np.float32)
    module(target)["matmul"][(1,), (1,)](a, b, c, h, af, bf, d, dh, dt)
    wide = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(d, wide + c, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(dh, (wide + h).astype(np.float16))
    exact = af.astype(np.float64) @ bf.astype(np.float64).T + c[:8, :8]
    np.testing.assert_allclose(dt, exact, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_contraction_shapes_match_numpy(target: str) -> None:
    r = rng("shapes", target)
    a = r.standard_normal((4, 8)).astype(np.float32)
    b = r.standard_normal((8, 3)).astype(np.float32)
    c = r.standard_normal((4, 3)).astype(np.float32)
    x = r.standard_normal(8).astype(np.float32)
    ia = r.integers(-50, 50, (4, 8)).astype(np.int32)
    ib = r.integers(-50, 50, (8, 3)).astype(np.int32)
    out_max = np.full((4, 3), np.nan, np.float32)
    mv = np.full(4, np.nan, np.float32)
    dot = np.full(1, np.nan, np.float32)
    imm = np.full((4, 3), -12345, np.int32)
    module(target)["shapes"][(1,), (1,)](a, b, c, x, ia, ib, out_max, mv, dot, imm)
    products = a[:, :, None] * b[None, :, :]  # rounded to f32 as the kernel does
    np.testing.assert_array_equal(out_max, np.maximum(c, products.max(axis=1)))
    np.testing.assert_allclose(mv, a.astype(np.float64) @ x, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        dot[0], a[1].astype(np.float64) @ x, rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(imm, ia @ ib + 7)


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("negate", [False, True])
def test_tiled_loop_matches_numpy(target: str, negate: bool) -> None:
    r = rng("tiled", target, negate)
    a = r.standard_normal((8, 16)).astype(np.float32)
    b = r.standard_normal((16, 8)).astype(np.float32)
    c = np.full((8, 8), np.nan, np.float32)
    module(target)["tiled"][(1,), (4,)](a, b, c, np.bool_(negate))
    want = a.astype(np.float64) @ b
    np.testing.assert_allclose(c, -want if negate else want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_odd_shapes_match_numpy(target: str) -> None:
    r = rng("odd", target)
    a = r.standard_normal((3, 5)).astype(np.float32)
    b = r.standard_normal((4, 17)).astype(np.float32)
    t = r.standard_normal((2, 3, 4)).astype(np.float16)
    c = np.full((17, 3), np.nan, np.float32)
    u = np.full((4, 2, 3), np.nan, np.float16)
    module(target)["odd"][(1,), (1,)](a, b, c, t, u)
    padded_b = np.vstack([b, np.full((1, 17), 1.5, np.float32)])
    want = a.astype(np.float64) @ padded_b
    np.testing.assert_allclose(c, want.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(u, t.transpose(2, 0, 1) * np.float16(2))


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_moves_used_in_a_loop_match_numpy(target: str) -> None:
    a = rng("moves", target).standard_normal(16).astype(np.float32)
    t = a.reshape(4, 4).T.copy()
    module(target)["moves_in_loop"][(1,), (1,)](a, 3)
    np.testing.assert_allclose(a, ((t + 3 * t) * t).reshape(-1), rtol=1e-6)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_vectors_live_across_a_barrier(target: str) -> None:
    a = rng("barrier", target).standard_normal((16, 4)).astype(np.float32)
    out = np.full((16, 4), np.nan, np.float32)
    module(target)["neighbours"][(1,), (THREADS,)](a, out)
    mine = a.reshape(THREADS, 2, 4)
    want = mine * mine + np.roll(mine, -1, axis=0)
    np.testing.assert_allclose(out, want.reshape(16, 4), rtol=1e-6)


REFUSED = [
    (
        "%v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, "
        "vector<4x4xf32>\n  %mask = arith.cmpf olt, %v, %v : vector<4x4xf32>\n"
        "  %m = vector.transfer_read %a[%c0, %c0], %pad, %mask : memref<4x4xf32>, "
        "vector<4x4xf32>",
        "has a mask in @k, which gpuc does not support; use in_bounds = false",
    ),
    (
        "%v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, "
        "vector<4x4xf32>\n  %e = vector.extract %v[%i] : vector<4xf32> from "
        "vector<4x4xf32>",
        "has a dynamic position in a vector of several dimensions in @k",
    ),
    (
        "%v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, "
        "vector<4x4xf32>\n  %r = vector.reduction <add>, %v : vector<4x4xf32> "
        "into f32",
        "'vector.reduction' op works on vector<4x4xf32> in @k; gpuc unrolls "
        "vectors of several dimensions through",
    ),
    (
        "%v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, "
        "vector<4x4xf32>\n  %d = vector.contract {indexing_maps = ["
        "affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> "
        "(d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = "
        '["parallel", "parallel", "reduction"], kind = #vector.kind<and>} '
        "%v, %v, %v : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>",
        "has kind and on f32 in @k; gpuc takes add, mul, minimumf",
    ),
]


@pytest.mark.parametrize("target", ["ptx", "spirv"])
def test_kernels_pass_the_validators(target: str) -> None:
    """ptxas (ptx, every kernel's PTX) and spirv-val (spirv) accept the kernels
    the numpy tests run: the contractions are thousands of packed f16 FMAs."""
    gpuc.compile(SOURCE, target=target, validate=True, cache=False)


@pytest.mark.parametrize(("body", "message"), REFUSED)
def test_refused_with_a_located_diagnostic(body: str, message: str) -> None:
    source = f"""
func.func @k(%a: memref<4x4xf32>, %i: index) attributes {{gpu.kernel}} {{
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  {body}
  return
}}
"""
    with pytest.raises(OpError) as caught:
        compile_module(source, "native")
    text = str(caught.value)
    assert message in text, text
    assert any(f"<source>:{n}:" in text for n in (5, 6, 7)), text  # the op's line
