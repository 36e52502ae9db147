"""Derivative rules of arith and math ops, as local partial derivatives.

A rule gives, for each floating-point operand of an op with one
floating-point result, the partial derivative of the result by that operand,
built from primal values with an `Emitter`. Forward mode multiplies each
partial by the operand's tangent and sums; reverse mode multiplies the
result's adjoint by each partial and adds it to the operand's adjoint. `ONE`
and `MINUS_ONE` spare the multiplication. Ops whose results are integers,
indices or booleans (comparisons, integer arithmetic, casts to integers) have
no rule: their results are constants to differentiation.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from enum import Enum

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


class Unit(Enum):
    ONE = 1.0
    MINUS_ONE = -1.0


ONE = Unit.ONE
MINUS_ONE = Unit.MINUS_ONE
Partial = SSAValue | Unit


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


class Emitter:
    """Builds ops at an insertion point: the end of a block, or before an op."""

    def __init__(self, block: Block, before: Operation | None = None):
        self.block = block
        self.before = before

    def at_end(self) -> InsertPoint:
        if self.before is not None:
            return InsertPoint.before(self.before)
        return InsertPoint.at_end(self.block)

    def op(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.at_end())
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]

    def const(self, value: float, type: Attribute) -> SSAValue:
        assert isinstance(type, AnyFloat)
        return self.value(arith.ConstantOp(FloatAttr(value, type)))

    def int_const(self, value: int, type: Attribute) -> SSAValue:
        assert isinstance(type, IntegerType | IndexType)
        return self.value(arith.ConstantOp(IntegerAttr(value, type)))

    def zero(self, type: Attribute) -> SSAValue:
        if is_float(type):
            return self.const(0.0, type)
        return self.int_const(0, type)

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.SubfOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.MulfOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.DivfOp(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        return self.value(arith.NegfOp(a))

    def scale(self, partial: Partial, value: SSAValue) -> SSAValue:
        """`partial * value`, without multiplying by one."""
        if partial is ONE:
            return value
        if partial is MINUS_ONE:
            return self.neg(value)
        assert isinstance(partial, SSAValue)
        return self.mul(partial, value)

    def accumulate(self, total: SSAValue | None, term: SSAValue) -> SSAValue:
        return term if total is None else self.add(total, term)


Rule = Callable[[Operation, Sequence[SSAValue], SSAValue, Emitter], list[Partial]]
"""(op, its primal operands, its primal result, emitter) -> one partial per
operand (None-free; a constant operand's partial is unused)."""


def _c(b: Emitter, like: SSAValue, value: float) -> SSAValue:
    return b.const(value, like.type)


def _step(b: Emitter, cond: SSAValue, like: SSAValue) -> SSAValue:
    """1.0 where `cond`, else 0.0."""
    return b.value(arith.SelectOp(cond, _c(b, like, 1.0), _c(b, like, 0.0)))


def _minmax(predicate: str) -> Rule:
    def rule(
        op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
    ) -> list[Partial]:
        first = _step(b, b.value(arith.CmpfOp(x[0], x[1], predicate)), r)
        return [first, b.sub(_c(b, r, 1.0), first)]

    return rule


def _unary(partial: Callable[[Emitter, SSAValue, SSAValue], SSAValue]) -> Rule:
    def rule(
        op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
    ) -> list[Partial]:
        return [partial(b, x[0], r)]

    return rule


def _recip(b: Emitter, v: SSAValue) -> SSAValue:
    return b.div(_c(b, v, 1.0), v)


def _sqrt_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return b.div(_c(b, r, 0.5), r)


def _rsqrt_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return b.mul(_c(b, r, -0.5), b.div(r, x))


def _one_minus_square(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return b.sub(_c(b, r, 1.0), b.mul(r, r))


def _one_plus_square(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return b.add(_c(b, r, 1.0), b.mul(r, r))


def _over_sqrt_one_minus_square(
    sign: float,
) -> Callable[[Emitter, SSAValue, SSAValue], SSAValue]:
    def partial(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
        root = b.value(math.SqrtOp(b.sub(_c(b, x, 1.0), b.mul(x, x))))
        return b.div(_c(b, x, sign), root)

    return partial


def _asinh_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return _recip(b, b.value(math.SqrtOp(b.add(b.mul(x, x), _c(b, x, 1.0)))))


def _acosh_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return _recip(b, b.value(math.SqrtOp(b.sub(b.mul(x, x), _c(b, x, 1.0)))))


def _atanh_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return _recip(b, b.sub(_c(b, x, 1.0), b.mul(x, x)))


def _erf_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    gauss = b.value(math.ExpOp(b.neg(b.mul(x, x))))
    return b.mul(_c(b, x, 2.0 / pymath.sqrt(pymath.pi)), gauss)


def _abs_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    negative = b.value(arith.CmpfOp(x, _c(b, x, 0.0), "olt"))
    return b.value(arith.SelectOp(negative, _c(b, x, -1.0), _c(b, x, 1.0)))


def _zero_d(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
    return _c(b, r, 0.0)


def _scaled_result(factor: float) -> Callable[[Emitter, SSAValue, SSAValue], SSAValue]:
    def partial(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
        return r if factor == 1.0 else b.mul(_c(b, r, factor), r)

    return partial


def _log_d(factor: float) -> Callable[[Emitter, SSAValue, SSAValue], SSAValue]:
    def partial(b: Emitter, x: SSAValue, r: SSAValue) -> SSAValue:
        return b.div(_c(b, x, factor), x)

    return partial


def _addf(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    return [ONE, ONE]


def _subf(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    return [ONE, MINUS_ONE]


def _mulf(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    return [x[1], x[0]]


def _divf(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    inverse = _recip(b, x[1])
    return [inverse, b.neg(b.mul(r, inverse))]


def _negf(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    return [MINUS_ONE]


def _fma(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    return [x[1], x[0], ONE]


def _powf(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    lower = b.value(math.PowFOp(x[0], b.sub(x[1], _c(b, x[1], 1.0))))
    return [b.mul(x[1], lower), b.mul(r, b.value(math.LogOp(x[0])))]


def _fpowi(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    n = x[1]
    n_minus_1 = b.value(arith.SubiOp(n, b.int_const(1, n.type)))
    lower = b.value(math.FPowIOp(x[0], n_minus_1))
    assert isinstance(r.type, AnyFloat)
    return [b.mul(b.value(arith.SIToFPOp(n, r.type)), lower), ONE]


def _atan2(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    y, xx = x
    norm = b.add(b.mul(xx, xx), b.mul(y, y))
    return [b.div(xx, norm), b.neg(b.div(y, norm))]


def _copysign(
    op: Operation, x: Sequence[SSAValue], r: SSAValue, b: Emitter
) -> list[Partial]:
    same = b.value(arith.CmpfOp(b.mul(x[0], r), _c(b, r, 0.0), "oge"))
    sign = b.value(arith.SelectOp(same, _c(b, r, 1.0), _c(b, r, -1.0)))
    return [sign, _c(b, r, 0.0)]


UNARY: dict[type[Operation], Callable[[Emitter, SSAValue, SSAValue], SSAValue]] = {
    math.SqrtOp: _sqrt_d,
    math.RsqrtOp: _rsqrt_d,
    math.ExpOp: _scaled_result(1.0),
    math.Exp2Op: _scaled_result(pymath.log(2.0)),
    math.ExpM1Op: lambda b, x, r: b.add(r, _c(b, r, 1.0)),
    math.LogOp: _log_d(1.0),
    math.Log2Op: _log_d(1.0 / pymath.log(2.0)),
    math.Log10Op: _log_d(1.0 / pymath.log(10.0)),
    math.Log1pOp: lambda b, x, r: _recip(b, b.add(x, _c(b, x, 1.0))),
    math.SinOp: lambda b, x, r: b.value(math.CosOp(x)),
    math.CosOp: lambda b, x, r: b.neg(b.value(math.SinOp(x))),
    math.TanOp: _one_plus_square,
    math.TanhOp: _one_minus_square,
    math.SinhOp: lambda b, x, r: b.value(math.CoshOp(x)),
    math.CoshOp: lambda b, x, r: b.value(math.SinhOp(x)),
    math.AsinOp: _over_sqrt_one_minus_square(1.0),
    math.AcosOp: _over_sqrt_one_minus_square(-1.0),
    math.AtanOp: lambda b, x, r: _recip(b, b.add(_c(b, x, 1.0), b.mul(x, x))),
    math.AsinhOp: _asinh_d,
    math.AcoshOp: _acosh_d,
    math.AtanhOp: _atanh_d,
    math.CbrtOp: lambda b, x, r: b.div(r, b.mul(_c(b, x, 3.0), x)),
    math.ErfOp: _erf_d,
    math.AbsFOp: _abs_d,
    # Piecewise constant: their derivative is zero wherever it exists.
    math.FloorOp: _zero_d,
    math.CeilOp: _zero_d,
    math.RoundOp: _zero_d,
    math.RoundEvenOp: _zero_d,
    math.TruncOp: _zero_d,
}

RULES: dict[type[Operation], Rule] = {
    arith.AddfOp: _addf,
    arith.SubfOp: _subf,
    arith.MulfOp: _mulf,
    arith.DivfOp: _divf,
    arith.NegfOp: _negf,
    arith.MaximumfOp: _minmax("oge"),
    arith.MaxnumfOp: _minmax("oge"),
    arith.MinimumfOp: _minmax("ole"),
    arith.MinnumfOp: _minmax("ole"),
    math.FmaOp: _fma,
    math.PowFOp: _powf,
    math.FPowIOp: _fpowi,
    math.Atan2Op: _atan2,
    math.CopySignOp: _copysign,
    **{op: _unary(partial) for op, partial in UNARY.items()},
}

CONVERSIONS = (arith.ExtFOp, arith.TruncFOp)
"""Float to float: the tangent (adjoint) is converted the same way (back)."""

CONSTANTS_FROM_INTEGERS = (arith.SIToFPOp, arith.UIToFPOp)
"""A float made from an integer: constant to differentiation."""


def is_int1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1
