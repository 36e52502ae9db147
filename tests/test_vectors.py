"""`vector<NxT>` values on native and spirv (Intel's OpenCL CPU runtime)
against numpy on fresh random inputs with poisoned outputs: arith on vectors,
vector memory through `!gpuc.ptr<vector<NxT>, global>` (an array of T, N
consecutive elements a vector), vector.broadcast, extract, insert (static
and dynamic positions), shuffle and fma; casts on vectors (arith's, f16 and
bf16 ones included, and vector.bitcast) and bf16 vector arithmetic; and the
same kernels through ptxas, spirv-val and the amdgpu back-end. Rerun with
GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.compiler import compile_module

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
  %sel = arith.select %less, %x, %y : vector<4xi1>, {V4}
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
  %sel = arith.select %ge, %y, %x : vector<4xi1>, {I4}
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


def vector_ptr(t: str) -> str:
    return f"!gpuc.ptr<vector<{t}>, global>"


CAST_RESULTS = {"4xf32": 4, "4xf16": 1, "4xbf16": 6, "4xi32": 5, "4xi16": 1}
CASTS_TEXT = f"""
gpuc.func @casts(%xs: {vector_ptr("4xf32")}, %ns: {vector_ptr("4xi32")},
                 %ss: {vector_ptr("4xi16")}, %hs: {vector_ptr("4xf16")},
                 %bs: {vector_ptr("4xbf16")}, %cs: {vector_ptr("4xbf16")},
                 %of: {vector_ptr("4xf32")}, %oh: {vector_ptr("4xf16")},
                 %ob: {vector_ptr("4xbf16")}, %oi: {vector_ptr("4xi32")},
                 %os: {vector_ptr("4xi16")}, %ol: {vector_ptr("2xi64")},
                 %ow: {vector_ptr("2xi32")}) kernel {{
  %i = gpuc.global_id x
  %x = gpuc.load %xs[%i] : {vector_ptr("4xf32")}
  %n = gpuc.load %ns[%i] : {vector_ptr("4xi32")}
  %s = gpuc.load %ss[%i] : {vector_ptr("4xi16")}
  %h = gpuc.load %hs[%i] : {vector_ptr("4xf16")}
  %b = gpuc.load %bs[%i] : {vector_ptr("4xbf16")}
  %c = gpuc.load %cs[%i] : {vector_ptr("4xbf16")}
  %eh = arith.extf %h : vector<4xf16> to vector<4xf32>
  %eb = arith.extf %b : vector<4xbf16> to vector<4xf32>
  %si = arith.sitofp %n : vector<4xi32> to vector<4xf32>
  %ui = arith.uitofp %n : vector<4xi32> to vector<4xf32>
  %th = arith.truncf %x : vector<4xf32> to vector<4xf16>
  %tb = arith.truncf %x : vector<4xf32> to vector<4xbf16>
  %add = arith.addf %b, %c : vector<4xbf16>
  %mul = arith.mulf %b, %c : vector<4xbf16>
  %neg = arith.negf %b : vector<4xbf16>
  %max = arith.maximumf %b, %c : vector<4xbf16>
  %sb = arith.sitofp %n : vector<4xi32> to vector<4xbf16>
  %k = arith.constant dense<1000.0> : vector<4xf32>
  %big = arith.mulf %x, %k : vector<4xf32>
  %nbig = arith.negf %big : vector<4xf32>
  %abs = arith.maximumf %big, %nbig : vector<4xf32>
  %fs = arith.fptosi %big : vector<4xf32> to vector<4xi32>
  %fu = arith.fptoui %abs : vector<4xf32> to vector<4xi32>
  %xs32 = arith.extsi %s : vector<4xi16> to vector<4xi32>
  %xu32 = arith.extui %s : vector<4xi16> to vector<4xi32>
  %bits = vector.bitcast %x : vector<4xf32> to vector<4xi32>
  %tr = arith.trunci %n : vector<4xi32> to vector<4xi16>
  %n2 = vector.shuffle %n, %n [3, 0] : vector<4xi32>, vector<4xi32>
  %ix = arith.index_cast %n2 : vector<2xi32> to vector<2xindex>
  %l = arith.index_cast %ix : vector<2xindex> to vector<2xi64>
  %w = vector.bitcast %b : vector<4xbf16> to vector<2xi32>
{{stores}}
  gpuc.store %l, %ol[%i] : {vector_ptr("2xi64")}
  gpuc.store %w, %ow[%i] : {vector_ptr("2xi32")}
  gpuc.return
}}
""".replace(
    "{stores}",
    "\n".join(
        [
            stores(["%eh", "%eb", "%si", "%ui"], "%of", vector_ptr("4xf32"), "f"),
            stores(["%th"], "%oh", vector_ptr("4xf16"), "h"),
            stores(
                ["%tb", "%add", "%mul", "%neg", "%max", "%sb"],
                "%ob",
                vector_ptr("4xbf16"),
                "b",
            ),
            stores(["%fs", "%fu", "%xs32", "%xu32", "%bits"], "%oi", PI4, "i"),
            stores(["%tr"], "%os", vector_ptr("4xi16"), "s"),
        ]
    ),
)


def bf16_round(x: Array) -> Array:
    """f32 values (no NaN) rounded to bf16, nearest-even, as their bits."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded: Array = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return rounded


def bf16_value(bits: Array) -> Array:
    value: Array = (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(
        np.float32
    )
    return value


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_vector_casts_match_numpy(target: str) -> None:
    """arith casts and vector.bitcast on vectors, f16 and bf16 ones included;
    bf16 arrays are uint16 arrays of the bits."""
    r = rng("casts")
    x = (r.standard_normal((N, 4)) * 100).astype(np.float32)
    n = r.integers(-(2**24), 2**24, (N, 4)).astype(np.int32)
    s = r.integers(-(2**15), 2**15, (N, 4)).astype(np.int16)
    h = (r.standard_normal((N, 4)) * 50).astype(np.float16)
    b = bf16_round(r.standard_normal((N, 4)).astype(np.float32))
    c = bf16_round(r.standard_normal((N, 4)).astype(np.float32))
    outs = {
        "4xf32": np.full((N, 4, 4), np.nan, np.float32),
        "4xf16": np.full((N, 1, 4), np.nan, np.float16),
        "4xbf16": np.full((N, 6, 4), 0x7FAA, np.uint16),
        "4xi32": np.full((N, 5, 4), -7, np.int32),
        "4xi16": np.full((N, 1, 4), -7, np.int16),
    }
    # 16-byte vectors at most: a numpy array is only sure to be 16-aligned.
    wide = np.full((N, 2), -7, np.int64)
    words = np.full((N, 2), -7, np.int32)
    casts = gpuc.compile(CASTS_TEXT, target=target, fp_contract=False)["casts"]
    casts[(N // 64,), (64,)](x, n, s, h, b, c, *outs.values(), wide, words)
    bv, cv = bf16_value(b), bf16_value(c)
    big = x * np.float32(1000)
    expect = {
        "4xf32": [h.astype(np.float32), bv, n.astype(np.float32)]
        + [n.view(np.uint32).astype(np.float32)],
        "4xf16": [x.astype(np.float16)],
        "4xbf16": [bf16_round(x), bf16_round(bv + cv), bf16_round(bv * cv)]
        + [b ^ np.uint16(0x8000), bf16_round(np.maximum(bv, cv))]
        + [bf16_round(n.astype(np.float32))],  # |n| < 2**24: the f32 is exact
        "4xi32": [big.astype(np.int32), np.abs(big).astype(np.uint32).view(np.int32)]
        + [s.astype(np.int32), s.view(np.uint16).astype(np.int32), x.view(np.int32)],
        "4xi16": [n.astype(np.int16)],
    }
    for t, want in expect.items():
        for k, expected in enumerate(want):
            got = outs[t][:, k]
            if t == "4xf16":  # compare bits: no NaN tolerance needed
                got, expected = got.view(np.uint16), expected.view(np.uint16)
            np.testing.assert_array_equal(got, expected, err_msg=f"{t} result {k}")
    np.testing.assert_array_equal(wide, n[:, [3, 0]].astype(np.int64))
    np.testing.assert_array_equal(words, b.view(np.int32).reshape(N, 2))


@pytest.mark.parametrize("sm", [75, 90])
def test_vector_casts_pass_ptxas(sm: int) -> None:
    assert compile_module(CASTS_TEXT, "ptx", sm=sm, validate=True).artefact


def test_vector_casts_pass_spirv_val_and_amdgpu() -> None:
    assert compile_module(CASTS_TEXT, "spirv", validate=True).artefact
    assert compile_module(CASTS_TEXT, "amdgpu").artefact


WIDE_CASTS = f"""
gpuc.func @wide_casts(%ds: {PD2}, %ls: {vector_ptr("2xi64")},
                      %ob: {vector_ptr("2xbf16")}, %od: {PD2}) kernel {{
  %i = gpuc.global_id x
  %d = gpuc.load %ds[%i] : {PD2}
  %l = gpuc.load %ls[%i] : {vector_ptr("2xi64")}
  %a = arith.truncf %d : vector<2xf64> to vector<2xbf16>
  %b = arith.sitofp %l : vector<2xi64> to vector<2xbf16>
  %c = arith.uitofp %l : vector<2xi64> to vector<2xbf16>
  %e = arith.extf %a : vector<2xbf16> to vector<2xf64>
{{stores}}
  gpuc.store %e, %od[%i] : {PD2}
  gpuc.return
}}
""".replace("{stores}", stores(["%a", "%b", "%c"], "%ob", vector_ptr("2xbf16"), "b"))


def bf16_nearest(x: Fraction) -> int:
    """The bits of the bf16 nearest `x` (finite, in range), ties to even."""
    if x == 0:
        return 0
    sign, x = (0x8000, -x) if x < 0 else (0, x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, -126)
    quantum = Fraction(2) ** (e - 7)
    m = round(x / quantum)  # round() on a Fraction: ties to even
    value = float(m * quantum)
    return sign | int(np.float32(value).view(np.uint32) >> 16)


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_wide_vector_casts_round_once(target: str) -> None:
    """f64 and i64 vectors to bf16 round once (f32 rounded to odd, a sticky
    bit): inputs just above a bf16 midpoint, where rounding twice goes wrong."""
    r = rng("wide casts")
    base = bf16_round(r.standard_normal(2 * N).astype(np.float32))
    ulp = 2.0 ** (np.floor(np.log2(np.abs(bf16_value(base).astype(np.float64)))) - 7)
    d = bf16_value(base).astype(np.float64) + ulp * (0.5 + 2.0**-30)
    d[::2] = r.standard_normal(N)  # and plain doubles
    big = r.integers(2**40, 2**62, 2 * N, dtype=np.int64)
    low = big & ~np.int64((1 << 33) - 1)
    mid = low | np.int64(1 << 32) | np.int64(1)  # just above a midpoint
    n = np.where(np.arange(2 * N) % 2 == 0, mid, -mid).astype(np.int64)
    out = np.full((N, 3, 2), 0x7FAA, np.uint16)
    wide = np.full((N, 2), np.nan)
    k = gpuc.compile(WIDE_CASTS, target=target)["wide_casts"]
    k[(N // 64,), (64,)](d.reshape(N, 2), n.reshape(N, 2), out, wide)
    want_a = [bf16_nearest(Fraction(float(v))) for v in d]
    want_b = [bf16_nearest(Fraction(int(v))) for v in n]
    want_c = [bf16_nearest(Fraction(int(v) % 2**64)) for v in n]
    np.testing.assert_array_equal(out[:, 0].reshape(-1), want_a)
    np.testing.assert_array_equal(out[:, 1].reshape(-1), want_b)
    np.testing.assert_array_equal(out[:, 2].reshape(-1), want_c)
    np.testing.assert_array_equal(wide, bf16_value(out[:, 0]).astype(np.float64))


EIGHT = "!gpuc.ptr<vector<8xf32>, global>"
DOUBLE_EIGHT = f"""
gpuc.func @double8(%a: {EIGHT}) kernel {{
  %i = gpuc.global_id x
  %v = gpuc.load %a[%i] : {EIGHT}
  %w = arith.addf %v, %v : vector<8xf32>
  gpuc.store %w, %a[%i] : {EIGHT}
  gpuc.return
}}
"""


def test_wide_vectors_need_only_16_byte_aligned_arrays() -> None:
    """A 32-byte vector's accesses claim 16 bytes of alignment, what a numpy
    buffer has: claiming 32 made x86's aligned moves fault (SIGSEGV) on an
    array 16 but not 32 bytes aligned."""
    buf = np.zeros(N * 8 + 8, np.float32)
    skip = (16 - buf.ctypes.data % 32) % 32 // 4
    a = buf[skip : skip + N * 8]
    assert a.ctypes.data % 32 == 16
    x = rng("eight").standard_normal(N * 8).astype(np.float32)
    a[:] = x
    gpuc.compile(DOUBLE_EIGHT, target="native")["double8"][(N // 64,), (64,)](a)
    np.testing.assert_array_equal(a, x + x)


WIDE_COPY = """
gpuc.func @k(%a: !gpuc.ptr<vector<8xf32>, global>,
             %b: !gpuc.ptr<vector<8xf32>, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %a[%t] : !gpuc.ptr<vector<8xf32>, global>
  %w = arith.addf %v, %v : vector<8xf32>
  gpuc.store %w, %b[%t] : !gpuc.ptr<vector<8xf32>, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_a_vector_pointer_refuses_an_unaligned_slice(target: str) -> None:
    """A vector access claims up to 16 bytes of alignment: an array slice
    that starts between (a[1:] of f32) is refused at launch, not a fault."""
    rng = np.random.default_rng()
    a = rng.standard_normal(33).astype(np.float32)
    b = np.full(32, np.nan, np.float32)
    module = gpuc.compile(WIDE_COPY, target)
    module.launch("k", 1, 4, (a[:32], b))
    np.testing.assert_array_equal(b, a[:32] + a[:32])
    with pytest.raises(gpuc.LaunchError, match="not a multiple of 16 bytes"):
        module.launch("k", 1, 4, (a[1:], b))
