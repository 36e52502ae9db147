"""bf16 on every target: an `i16` of its bits in LLVM IR, computed in f32.

No back-end gpuc uses takes `bfloat` everywhere (LLVM's SPIR-V back-end needs
SPV_KHR_bfloat16, which Intel's OpenCL CPU runtime lacks; x86 narrows through
a compiler-rt call the JIT cannot find), so bf16 values are their bits and the
conversions are integer code. Widening to f32 is exact; an add, subtract,
multiply or divide in f32 rounded once more to bf16 is correctly rounded
(f32 has more than 2 * 8 + 2 bits), so each op gives the bf16 result exactly.
Narrowing a wider source goes through f32 rounded to odd, which a second
rounding to nearest-even cannot spoil. Every function here takes a scalar or
a vector (`vector<Nxbf16>` is `<N x i16>`), element by element.
"""

from __future__ import annotations

import math
import struct

from llvmlite import ir
from xdsl.dialects.builtin import BFloat16Type, VectorType
from xdsl.ir import Attribute

I1, I16, I32, I64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)
F32, F64 = ir.FloatType(), ir.DoubleType()


def is_bf16(attr: Attribute) -> bool:
    """bf16, or a vector of it."""
    if isinstance(attr, VectorType):
        attr = attr.get_element_type()
    return isinstance(attr, BFloat16Type)


def shaped(like: ir.Value, scalar: ir.Type) -> ir.Type:
    """`scalar`, as a vector of `like`'s length where `like` is a vector."""
    ty = like.type
    return ir.VectorType(scalar, ty.count) if isinstance(ty, ir.VectorType) else scalar


def constant(like: ir.Value, scalar: ir.Type, value: object) -> ir.Constant:
    """`value` as a `scalar` constant shaped like `like` (in every element)."""
    ty = shaped(like, scalar)
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [value] * ty.count)
    return ir.Constant(ty, value)


def scalar_type(value: ir.Value) -> ir.Type:
    ty = value.type
    return ty.element if isinstance(ty, ir.VectorType) else ty


def widen(b: ir.IRBuilder, bits: ir.Value) -> ir.Value:
    """The f32 of a bf16's bits (exact: they are the f32's top half)."""
    wide = b.zext(bits, shaped(bits, I32))
    return b.bitcast(b.shl(wide, constant(bits, I32, 16)), shaped(bits, F32))


def narrow(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """`value` (an f32) rounded to the nearest bf16, ties to even; a NaN keeps
    its sign and top payload bits and is quieted, as LLVM's fptrunc does."""
    bits = b.bitcast(value, shaped(value, I32))
    magnitude = b.and_(bits, constant(value, I32, 0x7FFFFFFF))
    is_nan = b.icmp_unsigned(">", magnitude, constant(value, I32, 0x7F800000))
    sixteen = constant(value, I32, 16)
    odd = b.and_(b.lshr(bits, sixteen), constant(value, I32, 1))
    rounded = b.add(bits, b.add(constant(value, I32, 0x7FFF), odd))
    quiet = b.or_(bits, constant(value, I32, 0x00400000))
    return b.trunc(
        b.lshr(b.select(is_nan, quiet, rounded), sixteen), shaped(value, I16)
    )


def narrow_double(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """`value` (an f64) rounded to the nearest bf16: to f32 rounded to odd
    (inexact results get their last bit set, toward `value`), then `narrow`."""
    single = b.fptrunc(value, shaped(value, F32))
    back = b.fpext(single, value.type)
    bits = b.bitcast(single, shaped(value, I32))
    inexact = b.fcmp_ordered("!=", back, value)
    one, zero = constant(value, I32, 1), constant(value, I32, 0)
    even = b.icmp_unsigned("==", b.and_(bits, one), zero)
    # A step of the bits away from zero grows the magnitude, toward it shrinks it.
    grow = b.fcmp_ordered("<", call_fabs(b, back), call_fabs(b, value))
    step = b.select(grow, one, constant(value, I32, -1))
    odd = b.add(bits, step)
    fixed = b.select(b.and_(inexact, even), odd, bits)
    return narrow(b, b.bitcast(fixed, single.type))


def call_fabs(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    module = b.module
    ty = value.type
    suffix = (
        f"v{ty.count}{ty.element.intrinsic_name}"
        if isinstance(ty, ir.VectorType)
        else ty.intrinsic_name
    )
    name = f"llvm.fabs.{suffix}"
    fn = module.globals.get(name)
    if not isinstance(fn, ir.Function):
        fn = ir.Function(module, ir.FunctionType(ty, [ty]), name)
    return b.call(fn, [value])


def from_float(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """A half, float or double value rounded to bf16."""
    if isinstance(scalar_type(value), ir.DoubleType):
        return narrow_double(b, value)
    if isinstance(scalar_type(value), ir.HalfType):
        value = b.fpext(value, shaped(value, F32))  # exact
    return narrow(b, value)


def to_float(b: ir.IRBuilder, bits: ir.Value, ty: ir.Type) -> ir.Value:
    """A bf16 as `ty` (half, float or double, or vectors of them): exact to
    f32 and f64, one rounding to f16 (whose range is narrower)."""
    single = widen(b, bits)
    scalar = ty.element if isinstance(ty, ir.VectorType) else ty
    if isinstance(scalar, ir.DoubleType):
        return b.fpext(single, ty)
    if isinstance(scalar, ir.HalfType):
        return b.fptrunc(single, ty)
    return single


def from_int(b: ir.IRBuilder, value: ir.Value, signed: bool) -> ir.Value:
    """An integer (up to 64 bits) rounded to bf16. Up to 32 bits the f64 is
    exact; wider, the magnitude's bits below the f64's 53 fold into a sticky
    bit first, so the f64 still rounds like the integer."""
    width = scalar_type(value).width
    convert = b.sitofp if signed else b.uitofp
    f64 = shaped(value, F64)
    if width <= 32:
        return narrow_double(b, convert(value, f64))
    if width < 64:
        value = (b.sext if signed else b.zext)(value, shaped(value, I64))
    zero = constant(value, I64, 0)
    negative = b.icmp_signed("<", value, zero) if signed else constant(value, I1, False)
    magnitude = b.select(negative, b.sub(zero, value), value)
    big = b.icmp_unsigned(">=", magnitude, constant(value, I64, 1 << 53))
    low = b.and_(magnitude, constant(value, I64, 0x7FF))
    sticky = b.zext(b.icmp_unsigned("!=", low, zero), shaped(value, I64))
    folded = b.or_(b.lshr(magnitude, constant(value, I64, 11)), sticky)
    scaled = b.fmul(b.uitofp(folded, f64), constant(value, F64, 2.0**11))
    double = b.select(big, scaled, b.uitofp(magnitude, f64))
    return narrow_double(b, b.select(negative, b.fneg(double), double))


def constant_bits(value: float) -> int:
    """The bf16 nearest `value` (ties to even), as `narrow_double` computes it;
    a NaN keeps its sign and top payload bits, quieted."""
    double = int.from_bytes(struct.pack("<d", value), "little")
    if math.isnan(value):
        return (double >> 48) & 0x8000 | 0x7FC0 | (double >> 45) & 0x7F
    bits = int.from_bytes(struct.pack("<f", single_rounded_to_odd(value)), "little")
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def single_rounded_to_odd(value: float) -> float:
    """`value` as the f32 rounded to odd (Python's struct rounds to nearest)."""
    try:
        nearest: float = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        nearest = math.copysign(math.inf, value)
    if nearest == value or math.isinf(value):
        return nearest
    bits = int.from_bytes(struct.pack("<f", nearest), "little")
    if bits & 1 == 0:
        bits += 1 if abs(nearest) < abs(value) else -1
    odd: float = struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    return odd
