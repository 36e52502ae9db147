"""The `affine` ops loop tiling leaves on index values, and their expansion
into `arith`, for `import`.

MLIR's and xDSL's `scf-parallel-loop-tiling` bound a tile's inner loop with
`affine.min`, MLIR's loop-to-GPU passes compute induction variables and trip
counts with `affine.apply`, and neither `lower-affine` pass (xDSL's leaves
`affine.min`) runs before a module reaches gpuc. gpuc registers
`affine.apply`, `affine.min` (xDSL's ops) and `affine.max` as its `affine`
dialect, and the import expands each, wherever it is (device or host code),
into `arith` ops on `index`: `+`, `*` as `addi`, `muli`; `floordiv`,
`ceildiv` as `floordivsi`, `ceildivsi`; `mod` as `remsi` made non-negative
(an affine `mod` by a positive constant is never negative); the results of a
min or max map folded with `minsi` or `maxsi`. Expressions whose operands
are all constants fold to one `arith.constant`, so launch sizes stay known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class MaxOp(IRDLOperation):
    """`%m = affine.max #map(%d...)[%s...]`: the largest of the map's results
    (xDSL has `affine.min` only). Read as affine.min is, and printed back."""

    name = "affine.max"
    arguments = var_operand_def(IndexType())
    result = result_def(IndexType())
    map = prop_def(AffineMapAttr)

    def __init__(self, operands: Sequence[SSAValue], affine_map: AffineMapAttr):
        super().__init__(
            operands=[operands],
            properties={"map": affine_map},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        m = self.map.data
        if len(self.arguments) != m.num_dims + m.num_symbols:
            raise VerifyException(
                f"affine.max takes {m.num_dims + m.num_symbols} operands (the "
                f"map's dimensions and symbols), got {len(self.arguments)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MaxOp:
        as_min = affine.MinOp.parse(parser)
        op = cls(list(as_min.arguments), as_min.map)
        as_min.erase(safe_erase=False)
        return op

    def print(self, printer: Printer) -> None:
        affine.MinOp.print(self, printer)  # type: ignore[arg-type]


AFFINE_OPS = (affine.ApplyOp, affine.MinOp, MaxOp)
Affine = Dialect("affine", list(AFFINE_OPS))


def _floor_mod(a: int, b: int) -> int:
    return a - b * (a // b)


FOLDS: dict[AffineBinaryOpKind, Callable[[int, int], int]] = {
    AffineBinaryOpKind.Add: lambda a, b: a + b,
    AffineBinaryOpKind.Mul: lambda a, b: a * b,
    AffineBinaryOpKind.Mod: _floor_mod,
    AffineBinaryOpKind.FloorDiv: lambda a, b: a // b,
    AffineBinaryOpKind.CeilDiv: lambda a, b: -(-a // b),
}


class Expander:
    """Emits the arith ops of affine expressions before one op."""

    def __init__(self, before: Operation, operands: Sequence[SSAValue], dims: int):
        self.before = before
        self.dims = list(operands[:dims])
        self.symbols = list(operands[dims:])

    def emit(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.before))
        return op.results[0]

    def constant(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def value(self, expr: AffineExpr) -> int | SSAValue:
        """`expr` as an int when every leaf is a constant, else an SSA value."""
        if isinstance(expr, AffineConstantExpr):
            return expr.value
        if isinstance(expr, AffineDimExpr | AffineSymExpr):
            values = self.dims if isinstance(expr, AffineDimExpr) else self.symbols
            leaf = values[expr.position]
            known = constant_value(leaf)
            return leaf if known is None else known
        assert isinstance(expr, AffineBinaryOpExpr), expr
        lhs, rhs = self.value(expr.lhs), self.value(expr.rhs)
        if isinstance(lhs, int) and isinstance(rhs, int):
            return FOLDS[expr.kind](lhs, rhs)
        a = self.constant(lhs) if isinstance(lhs, int) else lhs
        b = self.constant(rhs) if isinstance(rhs, int) else rhs
        match expr.kind:
            case AffineBinaryOpKind.Add:
                return self.emit(arith.AddiOp(a, b))
            case AffineBinaryOpKind.Mul:
                return self.emit(arith.MuliOp(a, b))
            case AffineBinaryOpKind.FloorDiv:
                return self.emit(arith.FloorDivSIOp(a, b))
            case AffineBinaryOpKind.CeilDiv:
                return self.emit(arith.CeilDivSIOp(a, b))
            case AffineBinaryOpKind.Mod:
                rem = self.emit(arith.RemSIOp(a, b))
                negative = self.emit(arith.CmpiOp(rem, self.constant(0), "slt"))
                wrapped = self.emit(arith.AddiOp(rem, b))
                return self.emit(arith.SelectOp(negative, wrapped, rem))

    def result(self, value: int | SSAValue) -> SSAValue:
        return self.constant(value) if isinstance(value, int) else value


CONSTANT_FOLDS: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
}


def constant_value(value: SSAValue) -> int | None:
    """The integer `value` always holds: an `arith.constant`, or `addi`,
    `subi`, `muli` of such (`arith.muli %c1, %c4`, as loop tiling writes a
    tile's step)."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    if not isinstance(owner, Operation):
        return None
    fold = CONSTANT_FOLDS.get(type(owner))
    if fold is None:
        return None
    a, b = (constant_value(v) for v in owner.operands)
    return None if a is None or b is None else fold(a, b)


def expand_affine_op(op: affine.ApplyOp | affine.MinOp | MaxOp) -> None:
    """Replace one affine.apply, affine.min or affine.max by arith ops."""
    affine_map = op.map.data
    expander = Expander(op, op.operands, affine_map.num_dims)
    values = [expander.value(e) for e in affine_map.results]
    if isinstance(op, affine.ApplyOp):
        (value,) = values
        result = expander.result(value)
    else:
        pick = max if isinstance(op, MaxOp) else min
        known = [v for v in values if isinstance(v, int)]
        folded: list[int | SSAValue] = [pick(known)] if known else []
        folded += [v for v in values if not isinstance(v, int)]
        combine = arith.MaxSIOp if isinstance(op, MaxOp) else arith.MinSIOp
        result = expander.result(folded[0])
        for other in folded[1:]:
            result = expander.emit(combine(result, expander.result(other)))
    op.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(op)


def expand_affine_ops(root: Operation) -> None:
    """Expand every affine.apply, affine.min and affine.max under `root`."""
    for op in list(root.walk()):
        if isinstance(op, AFFINE_OPS):
            expand_affine_op(op)
