"""f16 and bf16 arithmetic and conversions on native and spirv (Intel's OpenCL
CPU runtime), against numpy on fresh random inputs with poisoned outputs, and
the same kernels through ptxas (sm_75 and sm_90) and the amdgpu back-end.

f16 single ops must round as numpy's float16 does; bf16 ones (computed in f32,
gpuc/lowering/bf16.py) as the f32 result rounded to nearest-even on its top 16
bits. Conversions are checked against an exact reference (`rounded`), with
inputs chosen where a double rounding would go wrong. bf16 arrays are uint16
arrays of the bit patterns. Rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import math
import os
import secrets
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.compiler import compile_module
from gpuc.runtime.args import LaunchError

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_half_types: GPUC_TEST_SEED={SEED}")
Array = np.ndarray[Any, Any]
N = 256
FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127)}
"""Type -> (significant bits, lowest normal exponent, highest exponent)."""
CONSTANTS = {
    "f16": (0.1, -3.14159, 65519.0, 1e-6, 4e-8, 2049.0),
    "bf16": (0.1, -3.14159, 65519.0, 1e-6, 1e-40, 3.3e38),
}
"""Constants each type rounds (xDSL refuses ones beyond the type's range)."""
BINARY = ("addf", "subf", "mulf", "divf", "maximumf", "minimumf")
PREDICATES = ("olt", "oeq", "une", "uno")


def kernels(t: str) -> str:
    """The test's kernels on `t` (f16 or bf16), one thread per element."""
    p = f"!gpuc.ptr<{t}, global>"
    lines = [
        f"gpuc.func @arith(%a: {p}, %b: {p}, %out: {p}, %cmp: !gpuc.ptr<i32, global>)"
        " kernel {",
        "  %i = gpuc.global_id x",
        f"  %x = gpuc.load %a[%i] : {p}",
        f"  %y = gpuc.load %b[%i] : {p}",
        f"  %neg = arith.negf %x : {t}",
    ]
    results = []
    for op in BINARY:
        lines.append(f"  %{op} = arith.{op} %x, %y : {t}")
        results.append(f"%{op}")
    results.append("%neg")
    lines += stores(results, "%out", p, "arith")
    bits = []
    for k, pred in enumerate(PREDICATES):
        lines += [
            f"  %c{pred} = arith.cmpf {pred}, %x, %y : {t}",
            f"  %e{pred} = arith.extui %c{pred} : i1 to i32",
            f"  %k{pred} = arith.constant {1 << k} : i32",
            f"  %m{pred} = arith.muli %e{pred}, %k{pred} : i32",
        ]
        bits.append(f"%m{pred}")
    lines += ["  %bits0 = arith.ori %molt, %moeq : i32"]
    lines += ["  %bits1 = arith.ori %bits0, %mune : i32"]
    lines += ["  %bits = arith.ori %bits1, %muno : i32"]
    lines += [
        "  gpuc.store %bits, %cmp[%i] : !gpuc.ptr<i32, global>",
        "  gpuc.return",
        "}",
    ]
    lines += [
        f"gpuc.func @convert(%h: {p}, %f: !gpuc.ptr<f32, global>,"
        " %d: !gpuc.ptr<f64, global>, %s: !gpuc.ptr<i32, global>,"
        f" %l: !gpuc.ptr<i64, global>, %u: !gpuc.ptr<i32, global>, %out: {p},"
        " %wide: !gpuc.ptr<f64, global>, %single: !gpuc.ptr<f32, global>,"
        " %ints: !gpuc.ptr<i32, global>) kernel {",
        "  %i = gpuc.global_id x",
        f"  %vh = gpuc.load %h[%i] : {p}",
        "  %vf = gpuc.load %f[%i] : !gpuc.ptr<f32, global>",
        "  %vd = gpuc.load %d[%i] : !gpuc.ptr<f64, global>",
        "  %vs = gpuc.load %s[%i] : !gpuc.ptr<i32, global>",
        "  %vl = gpuc.load %l[%i] : !gpuc.ptr<i64, global>",
        "  %vu = gpuc.load %u[%i] : !gpuc.ptr<i32, global>",
        f"  %tf = arith.truncf %vf : f32 to {t}",
        f"  %td = arith.truncf %vd : f64 to {t}",
        f"  %ss = arith.sitofp %vs : i32 to {t}",
        f"  %sl = arith.sitofp %vl : i64 to {t}",
        f"  %ul = arith.uitofp %vl : i64 to {t}",
        f"  %uu = arith.uitofp %vu : i32 to {t}",
        f"  %hbits = arith.bitcast %vh : {t} to i16",
        f"  %back = arith.bitcast %hbits : i16 to {t}",
    ]
    converted = ["%tf", "%td", "%ss", "%sl", "%ul", "%uu", "%back"]
    for k, value in enumerate(CONSTANTS[t]):
        lines.append(f"  %const{k} = arith.constant {value:.17e} : {t}")
        converted.append(f"%const{k}")
    lines += stores(converted, "%out", p, "convert")
    lines += [
        f"  %ed = arith.extf %vh : {t} to f64",
        "  gpuc.store %ed, %wide[%i] : !gpuc.ptr<f64, global>",
        f"  %ef = arith.extf %vh : {t} to f32",
        "  gpuc.store %ef, %single[%i] : !gpuc.ptr<f32, global>",
        f"  %fs = arith.fptosi %vh : {t} to i32",
        f"  %fu = arith.fptoui %vh : {t} to i32",
        "  %bits32 = arith.extui %hbits : i16 to i32",
    ]
    lines += stores(
        ["%fs", "%fu", "%bits32"], "%ints", "!gpuc.ptr<i32, global>", "ints"
    )
    lines += ["  gpuc.return", "}"]
    return "\n".join(lines) + "\n"


def stores(values: list[str], ptr: str, ptr_type: str, tag: str) -> list[str]:
    """Store `values` at `ptr[i * len(values) + k]`."""
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
    return lines


_modules: dict[tuple[str, str], gpuc.Module] = {}


def module(t: str, target: str) -> gpuc.Module:
    if (t, target) not in _modules:
        _modules[(t, target)] = gpuc.compile(kernels(t), target=target)
    return _modules[(t, target)]


def rng(*key: object) -> np.random.Generator:
    return np.random.default_rng([SEED, *(hash(str(k)) % 2**32 for k in key)])


def rounded(x: float | int, t: str) -> float:
    """`x` rounded to `t` to nearest-even, exactly (from its Fraction)."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return x
    precision, emin, emax = FORMATS[t]
    f = Fraction(x)
    if f == 0:
        return math.copysign(0.0, x) if isinstance(x, float) else 0.0
    sign, f = (-1 if f < 0 else 1), abs(f)
    e = f.numerator.bit_length() - f.denominator.bit_length()
    if Fraction(2) ** e > f:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - precision + 1)
    value = round(f / quantum) * quantum  # round() on a Fraction: ties to even
    if value >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(value)


def bf16_bits(x: Array) -> Array:
    """f32 values (exactly bf16) as their top 16 bits."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_round(x: Array) -> Array:
    """f32 values rounded to bf16 (nearest-even on the top 16 bits; NaN kept)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    near = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(x, np.float32))
    return np.where(nan, (bits >> 16) | 0x40, near).astype(np.uint16)


def bf16_value(bits: Array) -> Array:
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def host(values: list[float], t: str) -> Array:
    """Values of `t` (exactly representable) as the array a kernel takes."""
    single = np.array(values, np.float32)
    return single.astype(np.float16) if t == "f16" else bf16_bits(single)


def as_floats(out: Array, t: str) -> Array:
    return out.astype(np.float64) if t == "f16" else bf16_value(out).astype(np.float64)


def poison(shape: int, t: str) -> Array:
    if t == "f16":
        return np.full(shape, 0x7E55, np.uint16).view(np.float16)
    return np.full(shape, 0x7FAA, np.uint16)


def same(got: Array, want: Array, t: str, signed_zero: bool = True) -> None:
    """Equal values (NaN matching NaN); with `signed_zero`, equal signs too."""
    g, w = as_floats(got, t), np.asarray(want, np.float64)
    nan = np.isnan(w)
    bad = np.nonzero((np.isnan(g) != nan) | (~nan & (g != w)))[0]
    if signed_zero:
        bad = np.union1d(bad, np.nonzero(~nan & (np.signbit(g) != np.signbit(w)))[0])
    assert len(bad) == 0, (
        f"{len(bad)} mismatches, first at {bad[:5]}: {g[bad[:5]]} vs {w[bad[:5]]}"
    )


def samples(t: str, r: np.random.Generator) -> list[float]:
    """Values of `t`: random over many binades, and zeros, infinities, a NaN,
    subnormals and the extremes."""
    precision, emin, emax = FORMATS[t]
    exponents = r.integers(emin - precision, emax + 1, N)
    raw = r.uniform(1, 2, N) * np.exp2(exponents.astype(np.float64))
    raw *= np.where(r.random(N) < 0.5, -1.0, 1.0)
    values = [rounded(float(v), t) for v in raw]
    top = float(2**emax * (2 - 2.0 ** (1 - precision)))
    special = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -2.0, top, -top]
    special += [2.0 ** (emin - precision + 1), 2.0**emin, 3.0, 0.5]
    values[: len(special)] = special
    return values


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_arith_matches_numpy(t: str, target: str) -> None:
    r = rng("arith", t)
    a_values = samples(t, r)
    b_values = [*samples(t, r)[N // 2 :], *r.permutation(a_values)[: N // 2]]
    b_values[:4] = [0.0, 0.0, 1.0, math.nan]  # x / 0, 0 / 0, the NaN
    a, b = host(a_values, t), host(b_values, t)
    out, cmp = poison(N * 7, t), np.full(N, -1, np.int32)
    module(t, target)["arith"][(N // 64,), (64,)](a, b, out, cmp)
    x, y = as_floats(a, t), as_floats(b, t)
    with np.errstate(all="ignore"):
        if t == "f16":
            fa, fb = a, b
            ref = {
                "addf": fa + fb,
                "subf": fa - fb,
                "mulf": fa * fb,
                "divf": fa / fb,
                "maximumf": np.maximum(fa, fb),
                "minimumf": np.minimum(fa, fb),
            }
        else:
            fa, fb = bf16_value(a), bf16_value(b)
            ref = {
                "addf": bf16_value(bf16_round(fa + fb)),
                "subf": bf16_value(bf16_round(fa - fb)),
                "mulf": bf16_value(bf16_round(fa * fb)),
                "divf": bf16_value(bf16_round(fa / fb)),
                "maximumf": np.maximum(fa, fb),
                "minimumf": np.minimum(fa, fb),
            }
    got = out.reshape(N, 7)
    for k, op in enumerate(BINARY):
        # maximum and minimum order -0 below +0; numpy's pick between them varies.
        same(got[:, k], ref[op], t, signed_zero=op not in ("maximumf", "minimumf"))
    # a[1] = -0, b[1] = +0: maximum is +0, minimum -0 (LLVM's and IEEE's).
    assert not np.signbit(as_floats(got[1:2, 4], t)[0])
    assert np.signbit(as_floats(got[1:2, 5], t)[0])
    neg = got[:, 6]
    np.testing.assert_array_equal(
        neg.view(np.uint16) ^ np.uint16(0x8000), a.view(np.uint16)
    )
    with np.errstate(invalid="ignore"):
        want = (
            (x < y) * 1 | (x == y) * 2 | (x != y) * 4 | (np.isnan(x) | np.isnan(y)) * 8
        )
    np.testing.assert_array_equal(cmp, want)


def conversion_inputs(t: str, r: np.random.Generator) -> dict[str, Array]:
    """Inputs of @convert: random ones, and ties and near-ties in `t` (where
    rounding twice, to f32 then to `t`, or through an f64, goes wrong)."""
    precision, emin, emax = FORMATS[t]
    h = host(samples(t, r), t)
    f = (r.standard_normal(N) * np.exp2(r.integers(-30, 30, N))).astype(np.float32)
    d = r.standard_normal(N) * np.exp2(r.integers(-140, 140, N).astype(np.float64))
    s = r.integers(-(2**31), 2**31, N, dtype=np.int64).astype(np.int32)
    s64 = r.integers(-(2**63), 2**63, N, dtype=np.int64)
    u = r.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32).view(np.int32)
    for k in range(16):
        e = int(r.integers(0, 20))
        m = int(r.integers(2 ** (precision - 1), 2**precision))
        tie = (2 * m + 1) * 2.0 ** (e - precision)  # halfway between two of t
        f[k] = np.float32(tie)
        d[k] = tie * (1 + 2.0**-40) if k % 2 else tie * (1 - 2.0**-40)
        shift = 2 if t == "f16" else 10  # 12 or 10 significant bits: a tie
        s[k] = np.int32(((2 * m + 1) << shift) * (1 if k % 2 else -1))
        big = ((2 * m + 1) << (62 - precision)) | (1 if k % 3 else 0)
        s64[k] = big if k % 2 else -big
    d[16:20] = [1e300, -1e300, 1e-300, math.nan]
    f[16:18] = [np.inf, np.float32(2.0 ** (emin - precision))]  # a tie to 0
    return {"h": h, "f": f, "d": d, "s": s, "l": s64, "u": u}


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_conversions_round_exactly(t: str, target: str) -> None:
    inputs = conversion_inputs(t, rng("convert", t))
    width = 7 + len(CONSTANTS[t])
    out = poison(N * width, t)
    wide, single = np.full(N, np.nan), np.full(N, np.nan, np.float32)
    ints = np.full(N * 3, -7, np.int32)
    i = inputs
    module(t, target)["convert"][(N // 64,), (64,)](
        i["h"], i["f"], i["d"], i["s"], i["l"], i["u"], out, wide, single, ints
    )
    got = out.reshape(N, width)
    u = i["u"].view(np.uint32)
    columns = [
        [rounded(float(v), t) for v in i["f"]],
        [rounded(float(v), t) for v in i["d"]],
        [rounded(int(v), t) for v in i["s"]],
        [rounded(int(v), t) for v in i["l"]],
        [rounded(int(v) % 2**64, t) for v in i["l"]],
        [rounded(int(v), t) for v in u],
    ]
    for k, want in enumerate(columns):
        same(got[:, k], np.array(want), t)
    np.testing.assert_array_equal(got[:, 6].view(np.uint16), i["h"].view(np.uint16))
    for k, value in enumerate(CONSTANTS[t]):
        same(got[:, 7 + k], np.full(N, rounded(value, t)), t)
    h = as_floats(i["h"], t)
    same_nan = np.isnan(wide) & np.isnan(h)
    assert (same_nan | (wide == h)).all()
    assert (np.isnan(single) & np.isnan(h) | (single.astype(np.float64) == h)).all()
    ints = ints.reshape(N, 3)
    in_range = np.isfinite(h) & (np.abs(h) < 2**31)
    np.testing.assert_array_equal(ints[in_range, 0], np.trunc(h[in_range]))
    unsigned = np.isfinite(h) & (h > -1) & (h < 2**31)
    np.testing.assert_array_equal(ints[unsigned, 1], np.trunc(h[unsigned]))
    np.testing.assert_array_equal(ints[:, 2], i["h"].view(np.uint16))


def test_rounded_reference() -> None:
    """The reference itself: ties to even, subnormals, overflow."""
    assert rounded(1 + 2.0**-8, "bf16") == 1.0
    assert rounded(1 + 3 * 2.0**-8, "bf16") == 1 + 2.0**-6
    assert rounded(65519.0, "f16") == 65504.0
    assert rounded(65520.0, "f16") == math.inf
    assert rounded(2.0**-25, "f16") == 0.0
    assert rounded(3 * 2.0**-26, "f16") == 2.0**-24
    assert rounded(2**62 + 2**54 + 1, "bf16") == 2**62 + 2**55
    np.testing.assert_array_equal(
        np.array([rounded(float(v), "f16") for v in [0.1, 1e-5, -7.3]]),
        np.array([0.1, 1e-5, -7.3]).astype(np.float16).astype(np.float64),
    )


@pytest.mark.parametrize("t", ["f16", "bf16"])
@pytest.mark.parametrize("sm", [75, 90])
def test_ptx_passes_ptxas(t: str, sm: int) -> None:
    """ptxas accepts both (compile validates); bf16 is f32 code, f16 native."""
    ptx = compile_module(kernels(t), "ptx", sm=sm).artefact
    assert isinstance(ptx, str) and ".entry arith" in ptx
    if t == "f16":
        assert "add.f16" in ptx or "add.rn.f16" in ptx
    else:
        assert ".bf16" not in ptx and "add.rn.f32" in ptx


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_amdgpu_compiles(t: str) -> None:
    result = compile_module(kernels(t), "amdgpu")
    assert result.artefact


def test_bf16_scalar_parameter_is_refused() -> None:
    source = (
        "gpuc.func @k(%p: !gpuc.ptr<bf16, global>, %v: bf16) kernel {\n"
        "  gpuc.store %v, %p : !gpuc.ptr<bf16, global>\n  gpuc.return\n}\n"
    )
    kernel = gpuc.compile(source, target="native")["k"]
    out = np.zeros(1, np.uint16)
    with pytest.raises(LaunchError, match="is of type bf16, which has no numpy dtype"):
        kernel[(1,), (1,)](out, np.float32(1.0))
    source = (
        "gpuc.func @k(%p: !gpuc.ptr<bf16, global>) kernel {\n"
        "  %v = arith.constant 1.0 : bf16\n"
        "  gpuc.store %v, %p : !gpuc.ptr<bf16, global>\n  gpuc.return\n}\n"
    )
    kernel = gpuc.compile(source, target="native")["k"]
    with pytest.raises(LaunchError, match="must be a numpy array of uint16"):
        kernel[(1,), (1,)](np.zeros(1, np.float16))
    for dtype in (np.uint16, np.int16):
        out = np.zeros(1, dtype)
        kernel[(1,), (1,)](out)
        assert out.view(np.uint16)[0] == 0x3F80


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_bf16_math_is_the_f32_op_rounded(target: str) -> None:
    """sqrt (correctly rounded in f32, so once more to bf16 is exact) and absf."""
    p = "!gpuc.ptr<bf16, global>"
    source = (
        f"gpuc.func @m(%a: {p}, %r: {p}, %s: {p}) kernel {{\n"
        "  %i = gpuc.global_id x\n"
        f"  %x = gpuc.load %a[%i] : {p}\n"
        "  %q = math.sqrt %x : bf16\n"
        "  %b = math.absf %x : bf16\n"
        f"  gpuc.store %q, %r[%i] : {p}\n"
        f"  gpuc.store %b, %s[%i] : {p}\n"
        "  gpuc.return\n}\n"
    )
    a = host(samples("bf16", rng("math")), "bf16")
    roots, absolute = poison(N, "bf16"), poison(N, "bf16")
    gpuc.compile(source, target=target)["m"][(N // 64,), (64,)](a, roots, absolute)
    x = bf16_value(a)
    with np.errstate(invalid="ignore"):
        same(roots, bf16_value(bf16_round(np.sqrt(x))), "bf16")
    np.testing.assert_array_equal(absolute, a & np.uint16(0x7FFF))


ATOMICS_N, ATOMICS_SLOTS = 2048, 9
"""Threads, and the bf16 slots they contend for (neighbours share a 32-bit
word, which spirv's loop exchanges whole); at most 256 adds of 1 per slot,
so every partial sum is exact in bf16 and the order does not matter."""
BF = "!gpuc.ptr<bf16, global>"
BF16_ATOMICS = f"""
gpuc.func @atomics(%acc: {BF}, %olds: {BF}, %vals: {BF}, %mx: {BF}, %mn: {BF},
                   %xc: {BF}, %xold: {BF}, %shared_out: {BF}, %m: index) kernel {{
  %i = gpuc.global_id x
  %t = gpuc.thread_id x
  %slot = arith.remui %i, %m : index
  %one = arith.constant 1.0 : bf16
  %o = gpuc.atomic_rmw add %acc[%slot], %one : {BF}
  gpuc.store %o, %olds[%i] : {BF}
  %v = gpuc.load %vals[%i] : {BF}
  %a = gpuc.atomic_rmw max %mx[%slot], %v : {BF}
  %b = gpuc.atomic_rmw min %mn[%slot], %v : {BF}
  %c = gpuc.atomic_rmw exchange %xc[%slot], %v : {BF}
  gpuc.store %c, %xold[%i] : {BF}
  %s = gpuc.shared_alloc 3 : !gpuc.ptr<bf16, shared>
  %three = arith.constant 3 : index
  %zero = arith.constant 0.0 : bf16
  %lt = arith.cmpi ult, %t, %three : index
  scf.if %lt {{
    gpuc.store %zero, %s[%t] : !gpuc.ptr<bf16, shared>
  }}
  gpuc.barrier
  %k = arith.remui %t, %three : index
  %p = gpuc.atomic_rmw add %s[%k], %one : !gpuc.ptr<bf16, shared>
  gpuc.barrier
  scf.if %lt {{
    %sum = gpuc.load %s[%t] : !gpuc.ptr<bf16, shared>
    %block = gpuc.block_id x
    %base = arith.muli %block, %three : index
    %at = arith.addi %base, %t : index
    gpuc.store %sum, %shared_out[%at] : {BF}
  }}
  gpuc.return
}}
"""


def to_bf16(x: Array) -> Array:
    """float32 values exact in bf16 as their bits."""
    bits: Array = (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return bits


def from_bf16(bits: Array) -> Array:
    values: Array = (bits.astype(np.uint32) << 16).view(np.float32)
    return values


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_bf16_atomics_under_contention(target: str) -> None:
    """2048 threads on 9 slots: add (each old value seen exactly once: the
    adds are atomic), max, min and exchange (the old values and the last
    are the initial value and the stored ones), and adds to shared memory."""
    n, slots = ATOMICS_N, ATOMICS_SLOTS
    r = np.random.default_rng([SEED, 16])
    vals = to_bf16(r.standard_normal(n).astype(np.float32))
    acc = np.zeros(slots, np.uint16)
    olds, xold = np.full(n, 0xFFFF, np.uint16), np.full(n, 0xFFFF, np.uint16)
    mx, mn = to_bf16(np.full(slots, -np.inf)), to_bf16(np.full(slots, np.inf))
    xc = to_bf16(np.full(slots, 7.0))
    block, blocks = 128, n // 128
    shared_out = np.full(blocks * 3, 0xFFFF, np.uint16)
    k = gpuc.compile(BF16_ATOMICS, target=target)["atomics"]
    k[(blocks,), (block,)](acc, olds, vals, mx, mn, xc, xold, shared_out, slots)
    slot = np.arange(n) % slots
    counts = np.bincount(slot, minlength=slots)
    np.testing.assert_array_equal(from_bf16(acc), counts)
    for s in range(slots):
        mine = slot == s
        assert sorted(from_bf16(olds[mine])) == list(range(counts[s])), s
        assert from_bf16(mx)[s] == from_bf16(vals[mine]).max()
        assert from_bf16(mn)[s] == from_bf16(vals[mine]).min()
        seen = sorted([*xold[mine], xc[s]])
        assert seen == sorted([*vals[mine], to_bf16(np.float32(7.0))]), s
    per_block = np.bincount(np.arange(block) % 3)
    np.testing.assert_array_equal(from_bf16(shared_out), np.tile(per_block, blocks))


IMPORTED_BF16_ATOMICS = """
func.func @imported(%acc: memref<9xbf16>, %vals: memref<?xbf16>)
    attributes {gpu.kernel} {
  %i = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c9 = arith.constant 9 : index
  %slot = arith.remui %i, %c9 : index
  %one = arith.constant 1.0 : bf16
  %o = memref.atomic_rmw addf %one, %acc[%slot] : (bf16, memref<9xbf16>) -> bf16
  %v = memref.load %vals[%i] : memref<?xbf16>
  %m = memref.atomic_rmw maxf %v, %vals[%slot] : (bf16, memref<?xbf16>) -> bf16
  return
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_imported_bf16_atomics(target: str) -> None:
    """memref.atomic_rmw addf and maxf on bf16 from another frontend."""
    n = 1024
    r = np.random.default_rng([SEED, 17])
    acc = np.zeros(9, np.uint16)
    values = to_bf16(r.standard_normal(n).astype(np.float32))
    vals = values.copy()
    gpuc.compile(IMPORTED_BF16_ATOMICS, target=target)["imported"][(8,), (128,)](
        acc, vals
    )
    np.testing.assert_array_equal(from_bf16(acc), np.bincount(np.arange(n) % 9))
    # Slot s (< 9) ends as the maximum of its own value and those thrown at it;
    # its own load may come before or after another thread's max: either way.
    for s in range(9):
        thrown = from_bf16(values[np.arange(n) % 9 == s]).max()
        assert from_bf16(vals)[s] == max(thrown, from_bf16(values)[s]), s


@pytest.mark.parametrize("sm", [75, 90])
def test_bf16_atomics_pass_ptxas(sm: int) -> None:
    ptx = compile_module(BF16_ATOMICS, "ptx", sm=sm, validate=True).artefact
    assert isinstance(ptx, str) and "atom" in ptx


def test_bf16_atomics_pass_spirv_val_and_amdgpu() -> None:
    assert compile_module(BF16_ATOMICS, "spirv", validate=True).artefact
    assert compile_module(BF16_ATOMICS, "amdgpu").artefact
