"""Translators of the math dialect. Each float op is a C math function; the
target names the function that computes it (an LLVM intrinsic, libdevice on
ptx, an OpenCL builtin on spirv, libm on native but for exp on f32, which
native defines in the module: gpuc/targets/native/vector_math.py). Integer
ops are intrinsics.
A float op on bf16 is the f32 one rounded to bf16 (gpuc.lowering.bf16): exact
for sqrt, fabs, copysign and the roundings, one more rounding for the rest.
A float op on f16 is likewise the f32 function rounded to f16, as MLIR's
lowerings compute it."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from xdsl.dialects import math

from gpuc.diagnostics import OpError
from gpuc.lowering import bf16
from gpuc.lowering.context import FunctionLowering, translates
from gpuc.lowering.types import intrinsic_suffix

FLOAT_FUNCTIONS: dict[type[Any], str] = {
    math.AbsFOp: "fabs",
    math.AcosOp: "acos",
    math.AcoshOp: "acosh",
    math.AsinOp: "asin",
    math.AsinhOp: "asinh",
    math.Atan2Op: "atan2",
    math.AtanOp: "atan",
    math.AtanhOp: "atanh",
    math.CbrtOp: "cbrt",
    math.CeilOp: "ceil",
    math.CopySignOp: "copysign",
    math.CosOp: "cos",
    math.CoshOp: "cosh",
    math.ErfOp: "erf",
    math.Exp2Op: "exp2",
    math.ExpM1Op: "expm1",
    math.ExpOp: "exp",
    math.FPowIOp: "powi",
    math.FloorOp: "floor",
    math.FmaOp: "fma",
    math.Log10Op: "log10",
    math.Log1pOp: "log1p",
    math.Log2Op: "log2",
    math.LogOp: "log",
    math.PowFOp: "pow",
    math.RoundEvenOp: "roundeven",
    math.RoundOp: "round",
    math.SinOp: "sin",
    math.SinhOp: "sinh",
    math.SqrtOp: "sqrt",
    math.TanOp: "tan",
    math.TanhOp: "tanh",
    math.TruncOp: "trunc",
}
INT_INTRINSICS: dict[type[Any], str] = {
    math.AbsIOp: "llvm.abs",
    math.CountLeadingZerosOp: "llvm.ctlz",
    math.CountTrailingZerosOp: "llvm.cttz",
    math.CtPopOp: "llvm.ctpop",
}
"""All but ctpop take an `is_poison` flag, false: MLIR defines the zero case."""


def float_flags(op: Any) -> tuple[str, ...]:
    flags = getattr(op, "fastmath", None)
    return tuple(sorted(f.value for f in flags.data)) if flags is not None else ()


def call_math(
    fl: FunctionLowering, op: Any, name: str, args: list[ir.Value], rounded: bool = True
) -> ir.Value:
    """`name` on `args`; on bf16 (unless `rounded` is off: the f32 call of a bf16
    op), widened to f32 and the result rounded back."""
    if rounded and bf16.is_bf16(op.result.type):
        b = fl.builder
        single = [
            bf16.widen(b, a) if bf16.is_bf16(v.type) else a
            for a, v in zip(args, op.operands, strict=True)
        ]
        return bf16.narrow(b, call_math(fl, op, name, single, rounded=False))
    ty = args[0].type
    if isinstance(ty, ir.VectorType):
        raise OpError(
            op,
            f"math on {op.result.type} is not supported; apply it to each "
            "element (vector.extract, vector.insert)",
        )
    exact_on_any = ("fabs", "copysign", "fma")
    if str(ty) == "half" and name not in exact_on_any:
        # As MLIR lowers f16 math: in f32, rounded back once.
        b = fl.builder
        single = [
            b.fpext(a, ir.FloatType()) if str(a.type) == "half" else a for a in args
        ]
        symbol = fl.target.math_function(name, ir.FloatType())
        fn = fl.ml.intrinsic(symbol, ir.FloatType(), [a.type for a in single])
        if not symbol.startswith("llvm."):
            fn.attributes.add("nounwind")
        wide = b.call(fn, single, fastmath=float_flags(op))
        return b.fptrunc(wide, ty)
    if str(ty) not in ("float", "double") and name not in exact_on_any:
        raise OpError(
            op, f"math on {op.result.type} is not supported; extend to f32 first"
        )
    symbol = fl.target.math_function(name, ty)
    fn = fl.ml.intrinsic(symbol, ty, [a.type for a in args])
    if not symbol.startswith("llvm."):
        fn.attributes.add("nounwind")
    return fl.builder.call(fn, args, fastmath=float_flags(op))


@translates(*FLOAT_FUNCTIONS)
def translate_float_function(op: Any, fl: FunctionLowering) -> None:
    fl.set(op, call_math(fl, op, FLOAT_FUNCTIONS[type(op)], fl.operands(op)))


@translates(math.RsqrtOp)
def translate_rsqrt(op: math.RsqrtOp, fl: FunctionLowering) -> None:
    b = fl.builder
    (value,) = fl.operands(op)
    if bf16.is_bf16(op.result.type):
        value = bf16.widen(b, value)
    root = call_math(fl, op, "sqrt", [value], rounded=False)
    one = ir.Constant(root.type, 1.0)
    inverse = b.fdiv(one, root, flags=list(float_flags(op)))
    fl.set(op, bf16.narrow(b, inverse) if bf16.is_bf16(op.result.type) else inverse)


@translates(*INT_INTRINSICS)
def translate_int_intrinsic(op: Any, fl: FunctionLowering) -> None:
    (value,) = fl.operands(op)
    ty = value.type
    base = INT_INTRINSICS[type(op)]
    args = (
        [value] if base == "llvm.ctpop" else [value, ir.Constant(ir.IntType(1), False)]
    )
    fn = fl.ml.intrinsic(f"{base}.{intrinsic_suffix(ty)}", ty, [a.type for a in args])
    fl.set(op, fl.builder.call(fn, args))
