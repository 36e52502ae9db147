"""What LLVM 22's SPIR-V back-end cannot emit, legalized before it: extended
multiplies without a double-width (i128) product, and constant arithmetic
folded at -O0 (unfolded, the back-end reaches UNREACHABLE "Unexpected integer
constant pattern"). Each kernel runs on the spirv executor (a real OpenCL
runtime) against numpy, on fresh random inputs with poisoned outputs: rerun a
failure with its GPUC_TEST_SEED.
"""

from __future__ import annotations

import os
import secrets

import numpy as np
import pytest

import gpuc

pytest.importorskip("pyopencl")

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
BLOCK = 64
WIDTHS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}

MUL_EXTENDED = """
gpuc.func @k(%a: !gpuc.ptr<T, global>, %b: !gpuc.ptr<T, global>,
             %lo: !gpuc.ptr<T, global>, %hi: !gpuc.ptr<T, global>) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %a[%t] : !gpuc.ptr<T, global>
  %y = gpuc.load %b[%t] : !gpuc.ptr<T, global>
  %l, %h = arith.OP %x, %y : T
  gpuc.store %l, %lo[%t] : !gpuc.ptr<T, global>
  gpuc.store %h, %hi[%t] : !gpuc.ptr<T, global>
  gpuc.return
}
"""


def operands(rng: np.random.Generator, width: int) -> np.ndarray:
    """Random values of `width` bits, with the extremes and zero among them."""
    dtype = np.dtype(f"int{width}")
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, BLOCK, dtype=dtype, endpoint=True)
    values[:4] = rng.permutation(np.array([info.min, info.max, -1, 0], dtype))
    return values


@pytest.mark.parametrize("opt_level", [0, 2, 3])
@pytest.mark.parametrize("op", ["mului_extended", "mulsi_extended"])
@pytest.mark.parametrize("ty", list(WIDTHS))
def test_extended_multiply_matches_numpy(ty: str, op: str, opt_level: int) -> None:
    width = WIDTHS[ty]
    seed = [BASE_SEED, opt_level, list(WIDTHS).index(ty), op == "mulsi_extended"]
    rng = np.random.default_rng(seed)
    a, b = operands(rng, width), operands(rng, width)
    lo = np.full(BLOCK, 77, a.dtype)
    hi = np.full(BLOCK, 77, a.dtype)
    source = MUL_EXTENDED.replace("T", ty).replace("OP", op)
    module = gpuc.compile(source, target="spirv", opt_level=opt_level)
    module.launch("k", 1, BLOCK, (a, b, lo, hi))
    mask = (1 << width) - 1
    as_int = int if op == "mulsi_extended" else lambda v: int(v) & mask
    products = [as_int(x) * as_int(y) for x, y in zip(a, b, strict=True)]
    context = f"{op} on {ty} at -O{opt_level} (GPUC_TEST_SEED={BASE_SEED})"
    assert [int(v) & mask for v in lo] == [p & mask for p in products], context
    assert [int(v) & mask for v in hi] == [(p >> width) & mask for p in products], (
        context
    )


CONSTANT_ARITH = {
    # name -> (the op on constants %a, %b, %s = 3 and %z = 0, numpy's value of it)
    "xori": ("arith.xori %a, %a", lambda a, b: a ^ a),
    "subi": ("arith.subi %a, %a", lambda a, b: a - a),
    "addi": ("arith.addi %a, %b", lambda a, b: a + b),
    "muli": ("arith.muli %a, %z", lambda a, b: a * 0),
    "muli_nonzero": ("arith.muli %a, %b", lambda a, b: a * b),
    "shli": ("arith.shli %a, %s", lambda a, b: a << 3),
    "andi": ("arith.andi %a, %z", lambda a, b: a & 0),
}

CONSTANT_KERNEL = """
gpuc.func @k(%out: !gpuc.ptr<i32, global>, %x: i32) kernel {
  %t = gpuc.thread_id x
  %a = arith.constant A : i32
  %b = arith.constant B : i32
  %s = arith.constant 3 : i32
  %z = arith.constant 0 : i32
  %c = OP : i32
  %ti = arith.index_cast %t : index to i32
  %v = arith.addi %c, %ti : i32
  %w = arith.xori %v, %x : i32
  gpuc.store %w, %out[%t] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("name", list(CONSTANT_ARITH))
def test_constant_arithmetic_at_o0_matches_numpy(name: str) -> None:
    op, value = CONSTANT_ARITH[name]
    rng = np.random.default_rng([BASE_SEED, list(CONSTANT_ARITH).index(name)])
    a, b = (int(v) for v in rng.integers(-1000, 1000, 2))
    x = int(rng.integers(-(2**31), 2**31))
    source = CONSTANT_KERNEL.replace("OP", op).replace("A", str(a)).replace("B", str(b))
    out = np.full(BLOCK, 77, np.int32)
    module = gpuc.compile(source, target="spirv", opt_level=0)
    module.launch("k", 1, BLOCK, (out, np.int32(x)))
    c = np.int32(value(np.int32(a), np.int32(b)))
    expected = (c + np.arange(BLOCK, dtype=np.int32)) ^ np.int32(x)
    context = f"{name} with a={a}, b={b} (GPUC_TEST_SEED={BASE_SEED})"
    np.testing.assert_array_equal(out, expected, err_msg=context)


NARROWED_ZEXT = """
gpuc.func @k(%a: !gpuc.ptr<W, global>, %out: !gpuc.ptr<N, global>,
             %hi: !gpuc.ptr<M, global>) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %a[%t] : !gpuc.ptr<W, global>
  %n = arith.trunci %x : W to M
  %z = arith.extui %n : M to N
  gpuc.store %z, %out[%t] : !gpuc.ptr<N, global>
  %l, %h = arith.mului_extended %n, %n : M
  gpuc.store %h, %hi[%t] : !gpuc.ptr<M, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize(
    ("wide", "narrow", "middle"),
    [("i64", "i8", "i32"), ("i64", "i16", "i32"), ("i32", "i8", "i16")],
)
def test_zero_extension_of_a_truncation_matches_numpy(
    wide: str, narrow: str, middle: str, opt_level: int
) -> None:
    """`zext (trunc iK to iM) to iN` with K > N: at -O0 the back-end folded
    it into an `OpBitwiseAnd` spirv-val rejects (fuzz seed 80115)."""
    rng = np.random.default_rng([BASE_SEED, opt_level, WIDTHS[wide], WIDTHS[narrow]])
    a = operands(rng, WIDTHS[wide])
    out = np.full(BLOCK, 77, f"int{WIDTHS[middle]}")
    hi = np.full(BLOCK, 77, f"int{WIDTHS[narrow]}")
    source = NARROWED_ZEXT.replace("W", wide).replace("M", narrow).replace("N", middle)
    module = gpuc.compile(source, target="spirv", opt_level=opt_level)
    module.launch("k", 1, BLOCK, (a, out, hi))
    mask = (1 << WIDTHS[narrow]) - 1
    low = [int(v) & mask for v in a]
    context = (
        f"{wide} -> {narrow} -> {middle} at -O{opt_level} (GPUC_TEST_SEED={BASE_SEED})"
    )
    assert [int(v) for v in out] == low, context
    assert [int(v) & mask for v in hi] == [
        (v * v >> WIDTHS[narrow]) & mask for v in low
    ], context
