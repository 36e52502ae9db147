"""Translators of the math dialect. Each float op is a C math function; the
target names the function that computes it (an LLVM intrinsic, libdevice on
ptx, an OpenCL builtin on spirv, libm on native). Integer ops are intrinsics."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from xdsl.dialects import math

from gpuc.diagnostics import OpError
from gpuc.lowering.context import FunctionLowering, translates

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
    fl: FunctionLowering, op: Any, name: str, args: list[ir.Value]
) -> ir.Value:
    ty = args[0].type
    if str(ty) not in ("float", "double") and name not in ("fabs", "copysign", "fma"):
        raise OpError(op, f"math on {ty} is not supported; extend to f32 first")
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
    root = call_math(fl, op, "sqrt", fl.operands(op))
    one = ir.Constant(root.type, 1.0)
    fl.set(op, fl.builder.fdiv(one, root, flags=list(float_flags(op))))


@translates(*INT_INTRINSICS)
def translate_int_intrinsic(op: Any, fl: FunctionLowering) -> None:
    (value,) = fl.operands(op)
    ty = value.type
    base = INT_INTRINSICS[type(op)]
    args = (
        [value] if base == "llvm.ctpop" else [value, ir.Constant(ir.IntType(1), False)]
    )
    fn = fl.ml.intrinsic(f"{base}.{ty.intrinsic_name}", ty, [a.type for a in args])
    fl.set(op, fl.builder.call(fn, args))
