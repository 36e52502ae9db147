"""Translators of the arith dialect: integer and float arithmetic, comparisons,
every cast (the unsigned ones included), `index` at the target's width.
Floating-point add, subtract and multiply carry `contract` unless the compile
turned contraction off (nvcc's default allows fusing them into fma); with it
on, a product whose only use is an add or subtract beside it becomes
`llvm.fmuladd`, as clang emits `a * b + c`: SPIR-V cannot carry `contract`, so
an OpenCL runtime fuses only what arrives as fmuladd. bf16 ops compute in
f32 (gpuc.lowering.bf16) and never contract."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from llvmlite import ir
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.ir import Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.foreign.arith import VECTOR_OPS
from gpuc.lowering import bf16
from gpuc.lowering.context import TRANSLATORS, FunctionLowering, translates
from gpuc.lowering.types import intrinsic_suffix, like, scalar_of, splat

FAST_MATH_ORDER = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")
CONTRACTABLE = (arith.AddfOp, arith.SubfOp, arith.MulfOp)

INT_BINARY: dict[type, str] = {
    # op -> IRBuilder method
    arith.AddiOp: "add",
    arith.SubiOp: "sub",
    arith.MuliOp: "mul",
    arith.DivSIOp: "sdiv",
    arith.DivUIOp: "udiv",
    arith.RemSIOp: "srem",
    arith.RemUIOp: "urem",
    arith.AndIOp: "and_",
    arith.OrIOp: "or_",
    arith.XOrIOp: "xor",
    arith.ShLIOp: "shl",
    arith.ShRSIOp: "ashr",
    arith.ShRUIOp: "lshr",
}
INT_MINMAX = {
    arith.MinSIOp: "llvm.smin",
    arith.MaxSIOp: "llvm.smax",
    arith.MinUIOp: "llvm.umin",
    arith.MaxUIOp: "llvm.umax",
}
FLOAT_BINARY = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
}
FLOAT_MINMAX = {
    arith.MinimumfOp: "llvm.minimum",
    arith.MaximumfOp: "llvm.maximum",
    arith.MinnumfOp: "llvm.minnum",
    arith.MaxnumfOp: "llvm.maxnum",
}
CASTS: dict[type, str] = {
    arith.ExtFOp: "fpext",
    arith.TruncFOp: "fptrunc",
    arith.ExtSIOp: "sext",
    arith.ExtUIOp: "zext",
    arith.TruncIOp: "trunc",
    arith.SIToFPOp: "sitofp",
    arith.UIToFPOp: "uitofp",
    arith.FPToSIOp: "fptosi",
    arith.FPToUIOp: "fptoui",
    arith.BitcastOp: "bitcast",
}
CASTS.update({ours: CASTS[xdsl] for ours, xdsl in VECTOR_OPS.items() if xdsl in CASTS})
"""gpuc's casts on vectors (gpuc/dialects/foreign/arith.py) as xDSL's."""
ICMP = {
    "eq": ("icmp_signed", "=="),
    "ne": ("icmp_signed", "!="),
    "slt": ("icmp_signed", "<"),
    "sle": ("icmp_signed", "<="),
    "sgt": ("icmp_signed", ">"),
    "sge": ("icmp_signed", ">="),
    "ult": ("icmp_unsigned", "<"),
    "ule": ("icmp_unsigned", "<="),
    "ugt": ("icmp_unsigned", ">"),
    "uge": ("icmp_unsigned", ">="),
}


def fast_math(
    op: arith.FloatingPointLikeBinaryOperation | arith.NegfOp | arith.CmpfOp,
    fl: FunctionLowering,
) -> list[str]:
    """LLVM fast-math flags of `op`: its own, plus `contract` where allowed."""
    flags = {f.value for f in op.fastmath.data}
    if fl.ml.fp_contract and isinstance(op, CONTRACTABLE):
        flags.add("contract")
    return ordered_flags(flags)


def ordered_flags(flags: set[str]) -> list[str]:
    """`flags` in LLVM's order, or `fast` when they are all there."""
    if len(flags) == len(FAST_MATH_ORDER):
        return ["fast"]
    return [f for f in FAST_MATH_ORDER if f in flags]


def intrinsic_call(
    fl: FunctionLowering,
    base: str,
    args: list[ir.Value],
    flags: list[str] | None = None,
) -> ir.Value:
    ty = args[0].type
    fn = fl.ml.intrinsic(f"{base}.{intrinsic_suffix(ty)}", ty, [a.type for a in args])
    return fl.builder.call(fn, args, fastmath=tuple(flags or ()))


@translates(arith.ConstantOp)
def translate_constant(op: arith.ConstantOp, fl: FunctionLowering) -> None:
    result_type = op.result.type
    ty = fl.type(result_type)
    value = op.value
    if isinstance(value, IntegerAttr):
        raw = value.value.data
        fl.set(op, ir.Constant(ty, bool(raw & 1) if ty == ir.IntType(1) else raw))
    elif isinstance(value, FloatAttr) and bf16.is_bf16(result_type):
        fl.set(op, ir.Constant(ty, bf16.constant_bits(value.value.data)))
    elif isinstance(value, FloatAttr):
        fl.set(op, float_constant(ty, value.value.data))
    elif isinstance(value, DenseIntOrFPElementsAttr) and bf16.is_bf16(result_type):
        bits = [bf16.constant_bits(float(v)) for v in value.get_values()]
        fl.set(op, ir.Constant(ty, bits))
    elif isinstance(value, DenseIntOrFPElementsAttr) and isinstance(ty, ir.VectorType):
        element = ty.element
        values = [
            (
                float_constant(element, v)
                if isinstance(v, float)
                else ir.Constant(
                    element, bool(v & 1) if element == ir.IntType(1) else v
                )
            )
            for v in value.get_values()
        ]
        fl.set(op, ir.Constant(ty, values))
    else:
        raise OpError(
            op,
            f"constant {value} cannot be lowered; only integer and float "
            "constants (of scalars and vectors) can",
        )


class BitsConstant(ir.Constant):  # type: ignore[misc]  # llvmlite is untyped
    """A float constant spelled as its bits (llvmlite would round a NaN through
    the host's float or half conversion, which quiets it and drops its payload)."""

    def __init__(self, ty: ir.Type, spelling: str):
        super().__init__(ty, None)
        self.spelling = spelling

    def _get_reference(self) -> str:
        return self.spelling


def float_constant(ty: ir.Type, value: float) -> ir.Constant:
    """`value` as a constant of `ty`, a NaN with its sign, quiet bit and payload.

    `value` is a double; a NaN of a narrower type is held with its payload in
    the top bits of the double's (as LLVM widens it). LLVM spells a float as
    the double that holds it and a half as `0xH` and its bits."""
    if not math.isnan(value):
        return ir.Constant(ty, value)
    (bits,) = struct.unpack("<Q", struct.pack("<d", value))
    if isinstance(ty, ir.DoubleType):
        return BitsConstant(ty, f"0x{bits:016X}")
    kept = 23 if isinstance(ty, ir.FloatType) else 10
    payload = (bits & ((1 << 52) - 1)) >> (52 - kept) or 1 << (kept - 1)
    if isinstance(ty, ir.FloatType):
        widened = bits & ~((1 << 52) - 1) | payload << (52 - kept)
        return BitsConstant(ty, f"0x{widened:016X}")
    half = (bits >> 48) & 0x8000 | 0x7C00 | payload
    return BitsConstant(ty, f"0xH{half:04X}")


@translates(*INT_BINARY)
def translate_int_binary(
    op: arith.SignlessIntegerBinaryOperation, fl: FunctionLowering
) -> None:
    overflow = getattr(op, "overflow_flags", None)
    flags = sorted(f.value for f in overflow.data) if overflow is not None else []
    fl.set(op, getattr(fl.builder, INT_BINARY[type(op)])(*fl.operands(op), flags=flags))


@translates(*INT_MINMAX)
def translate_int_minmax(
    op: arith.SignlessIntegerBinaryOperation, fl: FunctionLowering
) -> None:
    fl.set(op, intrinsic_call(fl, INT_MINMAX[type(op)], fl.operands(op)))


@translates(arith.CeilDivUIOp)
def translate_ceildivui(op: arith.CeilDivUIOp, fl: FunctionLowering) -> None:
    """`(a + b - 1) / b` without overflow: `a == 0 ? 0 : (a - 1) / b + 1`."""
    b = fl.builder
    lhs, rhs = fl.operands(op)
    one, zero = splat(lhs.type, 1), splat(lhs.type, 0)
    quotient = b.add(b.udiv(b.sub(lhs, one), rhs), one)
    fl.set(op, b.select(b.icmp_unsigned("==", lhs, zero), zero, quotient))


@translates(arith.CeilDivSIOp, arith.FloorDivSIOp)
def translate_signed_rounding_div(
    op: arith.CeilDivSIOp | arith.FloorDivSIOp, fl: FunctionLowering
) -> None:
    """Truncating division, corrected by one where the remainder is non-zero and
    the exact quotient lies on the side that truncation rounded away from."""
    b = fl.builder
    lhs, rhs = fl.operands(op)
    zero = splat(lhs.type, 0)
    quotient, remainder = b.sdiv(lhs, rhs), b.srem(lhs, rhs)
    inexact = b.icmp_signed("!=", remainder, zero)
    same_sign = b.icmp_signed(
        "==", b.icmp_signed("<", lhs, zero), b.icmp_signed("<", rhs, zero)
    )
    if isinstance(op, arith.CeilDivSIOp):
        adjust, step = b.and_(inexact, same_sign), 1
    else:
        adjust, step = b.and_(inexact, b.not_(same_sign)), -1
    fl.set(op, b.select(adjust, b.add(quotient, splat(lhs.type, step)), quotient))


@translates(arith.DivfOp)
def translate_float_binary(
    op: arith.FloatingPointLikeBinaryOperation, fl: FunctionLowering
) -> None:
    method = getattr(fl.builder, FLOAT_BINARY[type(op)])
    if bf16.is_bf16(op.result.type):
        fl.set(op, in_single(fl, op, lambda *args: method(*args)))
        return
    fl.set(op, method(*fl.operands(op), flags=fast_math(op, fl)))


def in_single(
    fl: FunctionLowering, op: Operation, compute: Callable[..., ir.Value]
) -> ir.Value:
    """`op` on bf16 operands, computed in f32 and rounded back to bf16."""
    b = fl.builder
    return bf16.narrow(b, compute(*(bf16.widen(b, v) for v in fl.operands(op))))


def fused_product(
    op: arith.AddfOp | arith.SubfOp, fl: FunctionLowering
) -> arith.MulfOp | None:
    """The multiply that `op` absorbs into one `llvm.fmuladd` (clang's rule for
    `a * b + c` under -ffp-contract=on): an operand's `arith.mulf` in the same
    block whose only use is `op`, the left operand's first. None when
    contraction is off."""
    if not fl.ml.fp_contract or bf16.is_bf16(op.result.type):
        return None
    for operand in op.operands:
        product = operand.owner
        if (
            isinstance(product, arith.MulfOp)
            and product.result.has_one_use()
            and product.parent_block() is op.parent_block()
            and _straight_between(product, op)
        ):
            return product
    return None


def _straight_between(first: Operation, last: Operation) -> bool:
    """Whether only plain ops (no barrier, region or call, which may hold
    one) lie between `first` and `last` of one block: native's work-group
    functions split a kernel at its barriers, and a product translated in
    its add must be in the add's part."""
    between = first.next_op
    while between is not None and between is not last:
        if between.regions or between.name in _SPLITTING:
            return False
        between = between.next_op
    return between is last


_SPLITTING = frozenset({"gpuc.barrier", "gpuc.call", "gpuc.call_indirect"})


@translates(arith.MulfOp)
def translate_mulf(op: arith.MulfOp, fl: FunctionLowering) -> None:
    """A product that fuses into its add or subtract is translated there."""
    user = op.result.get_user_of_unique_use()
    if isinstance(user, arith.AddfOp | arith.SubfOp) and fused_product(user, fl) is op:
        return
    translate_float_binary(op, fl)


@translates(arith.AddfOp, arith.SubfOp)
def translate_addf_subf(op: arith.AddfOp | arith.SubfOp, fl: FunctionLowering) -> None:
    """`a * b + c` -> fmuladd(a, b, c); `a * b - c` -> fmuladd(a, b, -c);
    `c - a * b` -> fmuladd(-a, b, c). Negation is exact, so each is the
    expression with one rounding at most fewer."""
    product = fused_product(op, fl)
    if product is None:
        translate_float_binary(op, fl)
        return
    a, b = fl.operands(product)
    lhs, rhs = op.operands
    product_first = lhs is product.result
    c = fl.get(rhs if product_first else lhs)
    if isinstance(op, arith.SubfOp):
        if product_first:
            c = fl.builder.fneg(c)
        else:
            a = fl.builder.fneg(a)
    shared = {f.value for f in product.fastmath.data} & {
        f.value for f in op.fastmath.data
    }
    fl.set(op, intrinsic_call(fl, "llvm.fmuladd", [a, b, c], ordered_flags(shared)))


@translates(*FLOAT_MINMAX)
def translate_float_minmax(
    op: arith.FloatingPointLikeBinaryOperation, fl: FunctionLowering
) -> None:
    base = FLOAT_MINMAX[type(op)]
    if bf16.is_bf16(op.result.type):
        fl.set(op, in_single(fl, op, lambda *args: propagating(fl, op, base, [*args])))
        return
    fl.set(op, propagating(fl, op, base, fl.operands(op)))


def propagating(
    fl: FunctionLowering, op: Operation, base: str, args: list[ir.Value]
) -> ir.Value:
    """`base` on `args`; maximumf and minimumf on a target without exact ones
    (`Target.exact_float_minmax`: LLVM's SPIR-V back-end makes OpenCL's fmax,
    which returns the other operand of a NaN and either zero) get a NaN from a
    NaN operand, and from equal operands the bits of both and-ed (the +0 of
    maximum) or or-ed (the -0 of minimum)."""
    assert isinstance(op, arith.FloatingPointLikeBinaryOperation)
    flags = fast_math(op, fl) if args[0].type == fl.type(op.result.type) else []
    result = intrinsic_call(fl, base, args, flags)
    maximum = isinstance(op, arith.MaximumfOp)
    if fl.target.exact_float_minmax or not (
        maximum or isinstance(op, arith.MinimumfOp)
    ):
        return result
    b, (x, y) = fl.builder, args
    bits = like(x.type, ir.IntType(element_bits(scalar_of(x.type))))
    x_bits, y_bits = b.bitcast(x, bits), b.bitcast(y, bits)
    both = b.and_(x_bits, y_bits) if maximum else b.or_(x_bits, y_bits)
    result = b.select(b.fcmp_ordered("==", x, y), b.bitcast(both, x.type), result)
    return b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), result)


def element_bits(ty: ir.Type) -> int:
    return {"half": 16, "float": 32, "double": 64}[str(ty)]


@translates(arith.NegfOp)
def translate_negf(op: arith.NegfOp, fl: FunctionLowering) -> None:
    if bf16.is_bf16(op.result.type):
        value = fl.get(op.operand)
        sign = bf16.constant(value, ir.IntType(16), 0x8000)
        fl.set(op, fl.builder.xor(value, sign))
        return
    fl.set(op, fl.builder.fneg(fl.get(op.operand), flags=fast_math(op, fl)))


@translates(arith.CmpiOp)
def translate_cmpi(op: arith.CmpiOp, fl: FunctionLowering) -> None:
    method, predicate = ICMP[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
    fl.set(op, getattr(fl.builder, method)(predicate, *fl.operands(op)))


@translates(arith.CmpfOp)
def translate_cmpf(op: arith.CmpfOp, fl: FunctionLowering) -> None:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    lhs, rhs = fl.operands(op)
    if bf16.is_bf16(op.lhs.type):
        lhs, rhs = bf16.widen(fl.builder, lhs), bf16.widen(fl.builder, rhs)
    if predicate in ("false", "true"):
        fl.set(op, splat(fl.type(op.result.type), predicate == "true"))
        return
    instr = ir.instructions.FCMPInstr(
        fl.builder.block, predicate, lhs, rhs, flags=fast_math(op, fl)
    )
    fl.builder._insert(instr)  # noqa: SLF001 - llvmlite's builder has no raw fcmp
    fl.set(op, instr)


@translates(arith.SelectOp)
def translate_select(op: arith.SelectOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.builder.select(*fl.operands(op)))


@translates(*CASTS)
def translate_cast(op: arith.ExtFOp, fl: FunctionLowering) -> None:
    value, ty = fl.get(op.input), fl.type(op.result.type)
    if bf16.is_bf16(op.input.type) or bf16.is_bf16(op.result.type):
        fl.set(op, bf16_cast(op, fl))
        return
    cast = getattr(fl.builder, CASTS[type(op)])
    if ty == ir.IntType(1) and isinstance(op, arith.FPToSIOp | arith.FPToUIOp):
        # Through i32: LLVM's SPIR-V back-end cannot legalize a conversion to i1
        # (and every in-range result is the same).
        fl.set(op, fl.builder.trunc(cast(value, ir.IntType(32)), ty))
        return
    fl.set(op, cast(value, ty))


def bf16_cast(op: arith.ExtFOp, fl: FunctionLowering) -> ir.Value:
    """A cast from or to bf16 (`op`'s class is one of CASTS)."""
    b, value = fl.builder, fl.get(op.input)
    ty = fl.type(op.result.type)
    if isinstance(op, arith.BitcastOp):
        return value if value.type == ty else b.bitcast(value, ty)
    if isinstance(op, arith.SIToFPOp | arith.UIToFPOp):
        return bf16.from_int(b, value, isinstance(op, arith.SIToFPOp))
    if not bf16.is_bf16(op.input.type):  # extf or truncf to bf16
        return bf16.from_float(b, value)
    if not bf16.is_bf16(op.result.type) and isinstance(
        op, arith.ExtFOp | arith.TruncFOp
    ):
        return bf16.to_float(b, value, ty)
    if isinstance(op, arith.FPToSIOp | arith.FPToUIOp):
        cast = b.fptosi if isinstance(op, arith.FPToSIOp) else b.fptoui
        single = bf16.widen(b, value)
        if ty == ir.IntType(1):  # through i32, as translate_cast does
            return b.trunc(cast(single, ir.IntType(32)), ty)
        return cast(single, ty)
    return value  # bf16 to bf16


@translates(arith.IndexCastOp)
def translate_index_cast(op: arith.IndexCastOp, fl: FunctionLowering) -> None:
    """Signed, like MLIR: sign-extend a narrower integer, truncate a wider one."""
    value, ty = fl.get(op.input), fl.type(op.result.type)
    if scalar_of(value.type).width < scalar_of(ty).width:
        value = fl.builder.sext(value, ty)
    elif scalar_of(value.type).width > scalar_of(ty).width:
        value = fl.builder.trunc(value, ty)
    fl.set(op, value)


@translates(arith.AddUIExtendedOp)
def translate_addui_extended(op: arith.AddUIExtendedOp, fl: FunctionLowering) -> None:
    scalars_only(op, fl)
    pair = fl.builder.uadd_with_overflow(*fl.operands(op))
    fl.set(op, fl.builder.extract_value(pair, 0), fl.builder.extract_value(pair, 1))


@translates(arith.MulSIExtendedOp, arith.MulUIExtendedOp)
def translate_mul_extended(
    op: arith.MulSIExtendedOp | arith.MulUIExtendedOp, fl: FunctionLowering
) -> None:
    """Low and high halves of the double-width product, in integer types every
    target has: up to 32 bits, one product in i32 or i64; an even wider type,
    the high half from products of its halves (`high_half_of_product`), since
    LLVM's SPIR-V back-end has no i128 without an extension."""
    scalars_only(op, fl)
    b = fl.builder
    lhs, rhs = fl.operands(op)
    signed = isinstance(op, arith.MulSIExtendedOp)
    width = lhs.type.width
    if width > 32 and width % 2 == 0:
        low = b.mul(lhs, rhs)
        fl.set(op, low, high_half_of_product(b, lhs, rhs, signed))
        return
    wide = ir.IntType(32 if width <= 16 else 64 if width <= 32 else 2 * width)
    extend = b.sext if signed else b.zext
    product = b.mul(extend(lhs, wide), extend(rhs, wide))
    high = b.lshr(product, ir.Constant(wide, width))
    fl.set(op, b.trunc(product, lhs.type), b.trunc(high, lhs.type))


def scalars_only(op: Operation, fl: FunctionLowering) -> None:
    """Raise at `op` if it works on vectors, which its lowering does not."""
    if any(isinstance(fl.type(t), ir.VectorType) for t in op.operand_types):
        raise OpError(
            op, "is not lowered on vectors; apply it to each element (vector.extract)"
        )


def high_half_of_product(
    b: ir.IRBuilder, lhs: ir.Value, rhs: ir.Value, signed: bool
) -> ir.Value:
    """The high half of `lhs * rhs`'s double-width product, computed in their
    own (even) width from products of half-width halves (Hacker's Delight's
    mulhs, the high halves signed); the unsigned high half adds each operand
    that the other's sign bit counted as negative. Built from the signed form:
    LLVM 22's aggressive instcombine turns the unsigned one back into a
    double-width multiply, which LLVM's SPIR-V back-end cannot emit."""
    ty = lhs.type
    half = ir.Constant(ty, ty.width // 2)
    mask = ir.Constant(ty, (1 << (ty.width // 2)) - 1)
    lhs_low, lhs_high = b.and_(lhs, mask), b.ashr(lhs, half)
    rhs_low, rhs_high = b.and_(rhs, mask), b.ashr(rhs, half)
    low_low = b.mul(lhs_low, rhs_low)
    column = b.add(b.mul(lhs_high, rhs_low), b.lshr(low_low, half))
    middle = b.add(b.mul(lhs_low, rhs_high), b.and_(column, mask))
    high = b.add(b.mul(lhs_high, rhs_high), b.ashr(column, half))
    high = b.add(high, b.ashr(middle, half))
    if signed:
        return high
    zero = ir.Constant(ty, 0)
    high = b.add(high, b.select(b.icmp_signed("<", lhs, zero), rhs, zero))
    return b.add(high, b.select(b.icmp_signed("<", rhs, zero), lhs, zero))


# gpuc's arith ops on vectors translate as the xDSL ops they stand for.
TRANSLATORS.update({ours: TRANSLATORS[xdsl] for ours, xdsl in VECTOR_OPS.items()})
