"""Math functions the native target defines in the module itself, so that
LLVM inlines them and vectorizes the loops that call them (a call to libm's
`expf` stays a scalar call in a vector loop: LLVM scalarizes `llvm.exp` on
x86 without a vector math library).

`__gpuc_expf` is exp on f32 computed in f64, as C libraries compute expf,
so that the one rounding to f32 is the only error that shows (results differ
from the correctly rounded ones where the f64 value lies within its own
error, about 2^-37 relative, of a halfway point between two floats): x
clamped to [LOW, HIGH] (past which the result is 0 or infinity, as the
rounding gives), x = n ln2 + r with n = rint(x / ln2) and |r| <= ln2/2,
e^r by its Taylor series to degree DEGREE (the remainder under 2^-42
relative on that interval), times 2^n built from its exponent bits (a normal
f64 for every n the clamp allows, so results below f32's normal range round
once). A NaN is returned as it came.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuc.lowering.context import ModuleLowering

EXPF = "__gpuc_expf"
FUNCTIONS = {"exp": EXPF}
"""C math function (f32) -> the function of this module that computes it."""

LOW, HIGH = -104.0, 89.0
"""e^LOW is below half the least f32 subnormal, e^HIGH above the largest f32."""
DEGREE = 10


def define(ml: ModuleLowering) -> None:
    """Give a body to each function of this module the lowering declared."""
    fn = ml.llvm.globals.get(EXPF)
    if fn is not None and fn.is_declaration:
        define_expf(ml, fn)


def define_expf(ml: ModuleLowering, fn: object) -> None:
    from llvmlite import ir

    f32, f64, i64 = ir.FloatType(), ir.DoubleType(), ir.IntType(64)

    def call(name: str, *args: ir.Value) -> ir.Value:
        ty = args[0].type
        symbol = f"llvm.{name}.{ty.intrinsic_name}"
        return b.call(ml.intrinsic(symbol, ty, [ty] * len(args)), args)

    assert isinstance(fn, ir.Function)
    fn.linkage = "internal"
    for attr in ("alwaysinline", "nounwind", "readnone"):
        fn.attributes.add(attr)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    (x,) = fn.args
    bounded = call(
        "minnum", call("maxnum", x, ir.Constant(f32, LOW)), ir.Constant(f32, HIGH)
    )
    c = b.fpext(bounded, f64)
    n = call("rint", b.fmul(c, ir.Constant(f64, 1 / math.log(2.0))))
    r = call("fma", n, ir.Constant(f64, -math.log(2.0)), c)
    p = ir.Constant(f64, 1 / math.factorial(DEGREE))
    for k in range(DEGREE - 1, -1, -1):
        p = call("fma", p, r, ir.Constant(f64, 1 / math.factorial(k)))
    exponent = b.add(b.fptosi(n, i64), ir.Constant(i64, 1023))
    power = b.bitcast(b.shl(exponent, ir.Constant(i64, 52)), f64)
    y = b.fptrunc(b.fmul(p, power), f32)
    b.ret(b.select(b.fcmp_unordered("uno", x, x), x, y))
