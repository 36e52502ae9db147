"""`vector<NxT>` values on native and spirv (Intel's OpenCL CPU runtime)
against numpy on fresh random inputs with poisoned outputs: arith on vectors,
vector memory through `!gpuc.ptr<vector<NxT>, global>` (an array of T, N
consecutive elements a vector), vector.broadcast, extract, insert (static
and dynamic positions), shuffle and fma; and the same kernels through ptxas
and the amdgpu back-end. Rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.driver import compile_module

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_vectors: GPUC_TEST_SEED={SEED}")
Array = np.ndarray[Any, Any]
N = 128
"""Threads (one vector of each input per thread)."""

V4 = "vector<4xf32>"
P4 = f"!gpuc.ptr<{V4}, global>"
I4 = "vector<4xi32>"
PI4 = f"!gpuc.ptr<{I4}, global>"
H8 = "vector<8xf16>"
PH8 = f"!gpuc.ptr<{H8}, global>"
D2 = "vector<2xf64>"
PD2 = f"!gpuc.ptr<{D2}, global>"
FLOAT_RESULTS = 10
INT_RESULTS = 7

SOURCE = f"""
gpuc.func @floats(%a: {P4}, %b: {P4}, %out: {P4},
                  %scalars: !gpuc.ptr<f32, global>, %s: f32, %j: index) kernel {{
  %i = gpuc.global_id x
  %x = gpuc.load %a[%i] : {P4}
  %y = gpuc.load %b[%i] : {P4}
  %c = arith.constant dense<[1.5, -2.0, 0.25, 8.0]> : {V4}
  %sum = arith.addf %x, %y : {V4}
  %diff = arith.subf %x, %c : {V4}
  %prod = arith.mulf %x, %y : {V4}
  %quot = arith.divf %x, %y : {V4}
  %max = arith.maximumf %x, %y : {V4}
  %neg = arith.negf %x : {V4}
  %less = arith.cmpf olt, %x, %y : {V4}
  %sel = arith.select %less, %x, %y : {V4}
  %conv = arith.minimumf %x, %y : {V4}
  %splat = vector.broadcast %s : f32 to {V4}
  %fma = vector.fma %x, %y, %splat : {V4}
  %shuf = vector.shuffle %x, %y [7, 0, 5, 2] : {V4}, {V4}
  %e1 = vector.extract %x[1] : f32 from {V4}
  %ej = vector.extract %y[%j] : f32 from {V4}
  %ins = vector.insert %e1, %y[3] : f32 into {V4}
  %ins2 = vector.insert %ej, %ins[0] : f32 into {V4}
  %insj = vector.insert %s, %x[%j] : f32 into {V4}
{{stores}}
  gpuc.return
}}

gpuc.func @ints(%a: {PI4}, %b: {PI4}, %out: {PI4},
                %narrow: !gpuc.ptr<vector<4xi16>, global>) kernel {{
  %i = gpuc.global_id x
  %x = gpuc.load %a[%i] : {PI4}
  %y = gpuc.load %b[%i] : {PI4}
  %three = arith.constant dense<3> : {I4}
  %sum = arith.addi %x, %y : {I4}
  %prod = arith.muli %x, %y : {I4}
  %shl = arith.shli %x, %three : {I4}
  %max = arith.maxsi %x, %y : {I4}
  %xor = arith.xori %x, %y : {I4}
  %ceil = arith.ceildivsi %x, %three : {I4}
  %ge = arith.cmpi sge, %x, %y : {I4}
  %sel = arith.select %ge, %y, %x : {I4}
  %half = arith.constant dense<[1, 2, 3, 4]> : vector<4xi16>
  %short = gpuc.load %narrow[%i] : !gpuc.ptr<vector<4xi16>, global>
  %more = arith.addi %short, %half : vector<4xi16>
  gpuc.store %more, %narrow[%i] : !gpuc.ptr<vector<4xi16>, global>
{{int_stores}}
  gpuc.return
}}

gpuc.func @wide(%h: {PH8}, %d: {PD2}, %hout: {PH8}, %dout: {PD2}) kernel {{
  %i = gpuc.global_id x
  %x = gpuc.load %h[%i] : {PH8}
  %hs = arith.mulf %x, %x : {H8}
  %ha = arith.addf %hs, %x : {H8}
  gpuc.store %ha, %hout[%i] : {PH8}
  %v = gpuc.load %d[%i] : {PD2}
  %dm = arith.mulf %v, %v : {D2}
  %dd = arith.divf %dm, %v : {D2}
  gpuc.store %dd, %dout[%i] : {PD2}
  gpuc.return
}}
"""


def stores(values: list[str], ptr: str, ptr_type: str, tag: str) -> str:
    """Store `values` at `ptr[i * len(values) + k]` (whole vectors)."""
    lines = [
        f"  %{tag}_n = arith.constant {len(values)} : index",
        f"  %{tag}_base = arith.muli %i, %{tag}_n : index",
    ]
    for k, value in enumerate(values):
        lines += [
            f"  %{tag}_k{k} = arith.constant {k} : index",
            f"  %{tag}_j{k} = arith.addi %{tag}_base, %{tag}_k{k} : index",
            f"  gpuc.store {value}, {ptr}[%{tag}_j{k}] : {ptr_type}",
        ]
    return "\n".join(lines)


FLOATS = ["%sum", "%diff", "%prod", "%quot", "%max", "%neg", "%sel", "%conv"]
FLOATS += ["%fma", "%shuf"]
MORE = ["%ins2", "%insj"]
INTS = ["%sum", "%prod", "%shl", "%max", "%xor", "%ceil", "%sel"]
TEXT = SOURCE.replace(
    "{stores}",
    stores(FLOATS + MORE, "%out", P4, "v")
    + "\n"
    + stores(["%e1", "%ej"], "%scalars", "!gpuc.ptr<f32, global>", "s"),
).replace("{int_stores}", stores(INTS, "%out", PI4, "v"))

_modules: dict[str, gpuc.Module] = {}


def module(target: str) -> gpuc.Module:
    if target not in _modules:
        # No contraction: each op rounds once, as numpy's does.
        _modules[target] = gpuc.compile(TEXT, target=target, fp_contract=False)
    return _modules[target]


def rng(*key: object) -> np.random.Generator:
    return np.random.default_rng([SEED, *(hash(str(k)) % 2**32 for k in key)])


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_float_vectors_match_numpy(target: str) -> None:
    r = rng("floats")
    x = r.standard_normal((N, 4)).astype(np.float32)
    y = r.standard_normal((N, 4)).astype(np.float32)
    s, j = np.float32(r.standard_normal()), int(r.integers(0, 4))
    out = np.full(N * 4 * 12, np.nan, np.float32)
    scalars = np.full(N * 2, np.nan, np.float32)
    module(target)["floats"][(N // 64,), (64,)](x, y, out, scalars, s, j)
    c = np.array([1.5, -2.0, 0.25, 8.0], np.float32)
    got = out.reshape(N, 12, 4)
    ins2 = y.copy()
    ins2[:, 3] = x[:, 1]
    ins2[:, 0] = y[:, j]
    insj = x.copy()
    insj[:, j] = s
    both = np.concatenate([x, y], axis=1)
    want = [
        x + y,
        x - c,
        x * y,
        x / y,
        np.maximum(x, y),
        -x,
        np.where(x < y, x, y),
        np.minimum(x, y),
        (x.astype(np.float64) * y + s).astype(np.float32),  # fma: one rounding
        both[:, [7, 0, 5, 2]],
        ins2,
        insj,
    ]
    for k, expected in enumerate(want):
        np.testing.assert_array_equal(got[:, k], expected, err_msg=f"result {k}")
    np.testing.assert_array_equal(scalars.reshape(N, 2)[:, 0], x[:, 1])
    np.testing.assert_array_equal(scalars.reshape(N, 2)[:, 1], y[:, j])


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_int_vectors_match_numpy(target: str) -> None:
    r = rng("ints")
    x = r.integers(-(2**31), 2**31, (N, 4), dtype=np.int64).astype(np.int32)
    y = r.integers(-(2**31), 2**31, (N, 4), dtype=np.int64).astype(np.int32)
    out = np.full(N * 4 * INT_RESULTS, -7, np.int32)
    shorts = r.integers(-(2**15), 2**15, N * 4).astype(np.int16)
    narrow = shorts.copy()
    module(target)["ints"][(N // 64,), (64,)](x, y, out, narrow)
    got = out.reshape(N, INT_RESULTS, 4)
    with np.errstate(over="ignore"):
        want = [
            x + y,
            x * y,
            x << np.int32(3),
            np.maximum(x, y),
            x ^ y,
            -((-x.astype(np.int64)) // 3),
            np.where(x >= y, y, x),
        ]
    for k, expected in enumerate(want):
        np.testing.assert_array_equal(got[:, k], expected, err_msg=f"result {k}")
    with np.errstate(over="ignore"):
        added = shorts.reshape(N, 4) + np.array([1, 2, 3, 4], np.int16)
    np.testing.assert_array_equal(narrow.reshape(N, 4), added)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_f16_and_f64_vectors_match_numpy(target: str) -> None:
    r = rng("wide")
    h = (r.standard_normal((N, 8)) * 8).astype(np.float16)
    d = r.standard_normal((N, 2))
    hout, dout = np.full((N, 8), np.nan, np.float16), np.full((N, 2), np.nan)
    module(target)["wide"][(N // 64,), (64,)](h, d, hout, dout)
    np.testing.assert_array_equal(hout, h * h + h)
    np.testing.assert_array_equal(dout, d * d / d)


@pytest.mark.parametrize("sm", [75, 90])
def test_ptx_passes_ptxas(sm: int) -> None:
    ptx = compile_module(TEXT, "ptx", sm=sm).artefact
    assert isinstance(ptx, str) and ".entry floats" in ptx
    assert "ld.global.v4.f32" in ptx or "ld.global.v4.b32" in ptx


def test_amdgpu_compiles() -> None:
    assert compile_module(TEXT, "amdgpu").artefact


ELEMENTS = f"""
gpuc.func @elements(%a: {P4}, %out: !gpuc.ptr<f32, global>, %s: f32) kernel {{
  %i = gpuc.global_id x
  %v = gpuc.load %a[%i] : {P4}
  %four = arith.constant 4 : index
  %lane = arith.remui %i, %four : index
  %w = vector.insertelement %s, %v[%lane : index] : {V4}
  gpuc.store %w, %a[%i] : {P4}
  %next = arith.constant 1 : index
  %plus = arith.addi %lane, %next : index
  %other = arith.remui %plus, %four : index
  %e = vector.extractelement %w[%other : index] : {V4}
  gpuc.store %e, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_extractelement_insertelement_match_numpy(target: str) -> None:
    """MLIR's element ops at a dynamic position (the thread's lane)."""
    x = rng("elements").standard_normal((N, 4)).astype(np.float32)
    a, out, s = x.copy(), np.full(N, np.nan, np.float32), np.float32(7.25)
    gpuc.compile(ELEMENTS, target=target)["elements"][(N // 64,), (64,)](a, out, s)
    lanes = np.arange(N) % 4
    want = x.copy()
    want[np.arange(N), lanes] = s
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(out, want[np.arange(N), (lanes + 1) % 4])
