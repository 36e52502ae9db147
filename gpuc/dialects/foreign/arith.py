"""The `arith` dialect as MLIR has it: xDSL's, with its integer and
int-float casts (extsi, extui, trunci, sitofp, uitofp, fptosi, fptoui,
index_cast) taking vectors as MLIR's do, element by element, comparisons of
vectors giving `vector<Nxi1>` (xDSL's give i1 whatever they compare), and
`arith.select` taking such a condition in MLIR's syntax
(`arith.select %c, %a, %b : vector<4xi1>, vector<4xf32>`). xDSL 0.74 and
0.75 take scalars only there (extf, truncf and bitcast take vectors
already). Each op is a subclass of xDSL's, so code asking for
`arith.ExtSIOp` finds it; gpuc registers the dialect as `arith` and
gpuc/lowering/arith.py translates them as it does xDSL's (`VECTOR_OPS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloatConstr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    container_of,
    i1,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

# Any: each narrows a field xDSL's class declares for scalars.
INTEGER: Any = container_of(base(IntegerType))
FLOAT: Any = container_of(AnyFloatConstr)
INTEGER_OR_INDEX: Any = container_of(base(IntegerType) | base(IndexType))
FORMAT = "$input attr-dict `:` type($input) `to` type($result)"


def _elements(op: Operation) -> tuple[Attribute, Attribute]:
    """The element types of `op`'s input and result, which must both be
    scalars or both vectors of one shape (MLIR's rule for casts)."""
    source, result = op.operands[0].type, op.results[0].type
    if isinstance(source, VectorType) != isinstance(result, VectorType) or (
        isinstance(source, VectorType)
        and isinstance(result, VectorType)
        and source.get_shape() != result.get_shape()
    ):
        raise VerifyException(
            f"casts {source} to {result}; a cast keeps the shape (vector to "
            "vector of the same shape, scalar to scalar)"
        )
    if isinstance(source, VectorType) and isinstance(result, VectorType):
        return source.get_element_type(), result.get_element_type()
    return source, result


def _width(t: Attribute) -> int:
    assert isinstance(t, IntegerType)
    width: int = t.width.data
    return width


def _check_widths(op: Operation, wider: bool) -> None:
    source, result = _elements(op)
    if (_width(result) > _width(source)) != wider or _width(result) == _width(source):
        size = "larger" if wider else "smaller"
        raise VerifyException(
            f"Destination bit-width must be {size} than the input bit-width"
        )


# xDSL's ops parse and print by their own format; each class below states it
# again (irdl refuses a format beside inherited parse and print methods).
PARSE: Any = classmethod(Operation.parse.__func__)  # type: ignore[attr-defined]
PRINT: Any = Operation.print


def _cast(
    base_op: type[IRDLOperation],
    source: Any,
    result: Any,
    check: Callable[[Operation], object],
) -> Any:
    """gpuc's version of xDSL's cast `base_op` (a subclass of it): `source` and
    `result` also take vectors, and `check` verifies the element types."""

    def verify_(self: Operation) -> None:
        check(self)

    fields: dict[str, object] = {
        "__module__": __name__,
        "__qualname__": base_op.__name__,
        "__doc__": f"`{base_op.name}` on scalars or on vectors of one shape.",
        "name": base_op.name,
        "input": operand_def(source),
        "result": result_def(result),
        "traits": traits_def(Pure()),
        "assembly_format": FORMAT,
        "parse": PARSE,
        "print": PRINT,
        "verify_": verify_,
    }
    return irdl_op_definition(type(base_op.__name__, (base_op,), fields))


def _widening(op: Operation) -> None:
    _check_widths(op, wider=True)


def _narrowing(op: Operation) -> None:
    _check_widths(op, wider=False)


ExtSIOp = _cast(arith.ExtSIOp, INTEGER, INTEGER, _widening)
ExtUIOp = _cast(arith.ExtUIOp, INTEGER, INTEGER, _widening)
TruncIOp = _cast(arith.TruncIOp, INTEGER, INTEGER, _narrowing)
SIToFPOp = _cast(arith.SIToFPOp, INTEGER, FLOAT, _elements)
UIToFPOp = _cast(arith.UIToFPOp, INTEGER, FLOAT, _elements)
FPToSIOp = _cast(arith.FPToSIOp, FLOAT, INTEGER, _elements)
FPToUIOp = _cast(arith.FPToUIOp, FLOAT, INTEGER, _elements)


@irdl_op_definition
class IndexCastOp(arith.IndexCastOp):
    name = "arith.index_cast"
    input = operand_def(INTEGER_OR_INDEX)
    result = result_def(INTEGER_OR_INDEX)
    traits = traits_def(Pure())
    assembly_format = FORMAT
    parse = PARSE
    print = PRINT

    def verify_(self) -> None:
        source, result = _elements(self)
        if isinstance(source, IndexType) == isinstance(result, IndexType):
            raise VerifyException(
                f"'arith.index_cast' op operand type '{self.input.type}' and "
                f"result type '{self.result.type}' are cast incompatible"
            )


def bool_like(t: Attribute) -> Attribute:
    """i1, or a vector of i1 of `t`'s shape: what comparing two `t`s gives."""
    if isinstance(t, VectorType):
        return VectorType(i1, t.get_shape())
    return i1


BOOL: Any = container_of(base(IntegerType))
NO_FASTMATH = arith.FastMathFlagsAttr("none")


@irdl_op_definition
class CmpiOp(arith.CmpiOp):
    name = "arith.cmpi"
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(INTEGER_OR_INDEX)
    rhs = operand_def(INTEGER_OR_INDEX)
    result = result_def(BOOL)
    traits = traits_def(arith.CmpiHasCanonicalizationPatterns(), Pure())

    def __init__(
        self,
        operand1: Operation | SSAValue,
        operand2: Operation | SSAValue,
        arg: int | str,
    ):
        lhs = SSAValue.get(operand1)
        if isinstance(arg, str):
            arg = arith.CMPI_COMPARISON_OPERATIONS.index(arg)
        IRDLOperation.__init__(
            self,
            operands=[lhs, operand2],
            result_types=[bool_like(lhs.type)],
            properties={"predicate": IntegerAttr(arg, 64)},
        )

    def verify_(self) -> None:
        _check_comparison(self)

    @classmethod
    def parse(cls, parser: Parser) -> CmpiOp:
        predicate, lhs, rhs, _, attributes = _parse_comparison(parser)
        op = cls(lhs, rhs, predicate)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        _print_comparison(self, arith.CMPI_COMPARISON_OPERATIONS, printer)


@irdl_op_definition
class CmpfOp(arith.CmpfOp):
    name = "arith.cmpf"
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(FLOAT)
    rhs = operand_def(FLOAT)
    fastmath = prop_def(arith.FastMathFlagsAttr, default_value=NO_FASTMATH)
    result = result_def(BOOL)
    traits = traits_def(Pure())

    def __init__(
        self,
        operand1: Operation | SSAValue,
        operand2: Operation | SSAValue,
        arg: int | str,
        fastmath: arith.FastMathFlagsAttr = NO_FASTMATH,
    ):
        lhs = SSAValue.get(operand1)
        if isinstance(arg, str):
            arg = arith.CMPF_COMPARISON_OPERATIONS.index(arg)
        IRDLOperation.__init__(
            self,
            operands=[lhs, operand2],
            result_types=[bool_like(lhs.type)],
            properties={"predicate": IntegerAttr(arg, 64), "fastmath": fastmath},
        )

    def verify_(self) -> None:
        _check_comparison(self)

    @classmethod
    def parse(cls, parser: Parser) -> CmpfOp:
        predicate, lhs, rhs, fastmath, attributes = _parse_comparison(parser)
        op = cls(lhs, rhs, predicate, fastmath)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        _print_comparison(self, arith.CMPF_COMPARISON_OPERATIONS, printer)


def _parse_comparison(
    parser: Parser,
) -> tuple[str, SSAValue, SSAValue, arith.FastMathFlagsAttr, dict[str, Attribute]]:
    """MLIR's `$predicate, $lhs, $rhs (fastmath<...>)? attr-dict : type($lhs)`
    (xDSL's comparisons drop the attributes, e.g. form-work-groups' decisions)."""
    predicate = parser.parse_identifier()
    parser.parse_punctuation(",")
    lhs = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    rhs = parser.parse_unresolved_operand()
    fastmath = NO_FASTMATH
    if parser.parse_optional_keyword("fastmath"):
        fastmath = arith.FastMathFlagsAttr(
            arith.FastMathFlagsAttr.parse_parameter(parser)
        )
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ty = parser.parse_type()
    left, right = parser.resolve_operands([lhs, rhs], [ty, ty], parser.pos)
    return predicate, left, right, fastmath, attributes


def _print_comparison(
    op: CmpiOp | CmpfOp, predicates: Sequence[str], printer: Printer
) -> None:
    printer.print_string(f" {predicates[op.predicate.value.data]}, ")
    printer.print_operand(op.lhs)
    printer.print_string(", ")
    printer.print_operand(op.rhs)
    if isinstance(op, CmpfOp) and op.fastmath != NO_FASTMATH:
        printer.print_string(" fastmath")
        op.fastmath.print_parameter(printer)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.lhs.type)


def _check_comparison(op: CmpiOp | CmpfOp) -> None:
    # The operands (lhs, rhs) and the result by position, not through the
    # accessors' search of the op definition: every comparison verified runs
    # this (the definition's checks, run first, fixed the positions).
    lhs, rhs = op._operands[0]._type, op._operands[1]._type  # noqa: SLF001
    if lhs is not rhs and lhs != rhs:
        raise VerifyException(f"compares {lhs} with {rhs}; the operands have one type")
    result = op.results[0]._type  # noqa: SLF001
    if result != bool_like(lhs):
        raise VerifyException(
            f"compares {lhs} into {result}; the result is {bool_like(lhs)}"
        )


@irdl_op_definition
class SelectOp(arith.SelectOp):
    """`arith.select %c, %a, %b : T`, or `: vector<Nxi1>, T` with a vector
    condition, which picks element by element (MLIR's syntax)."""

    name = "arith.select"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(BOOL)
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)
    traits = traits_def(Pure(), arith.SelectHasCanonicalizationPatterns())
    assembly_format = None  # type: ignore[assignment]  # own parse and print below

    def verify_(self) -> None:
        cond = self.cond.type
        if cond != i1 and (
            not isinstance(cond, VectorType)
            or not isinstance(self.result.type, VectorType)
            or cond.get_shape() != self.result.type.get_shape()
        ):
            raise VerifyException(
                f"selects {self.result.type} by a {cond} condition; the condition "
                "is i1, or a vector of i1 of the values' shape"
            )

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        operands = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        first = parser.parse_type()
        if parser.parse_optional_punctuation(",") is not None:
            cond_type, value_type = first, parser.parse_type()
        else:
            cond_type, value_type = i1, first
        cond, lhs, rhs = parser.resolve_operands(
            operands, [cond_type, value_type, value_type], pos
        )
        op = cls(cond, lhs, rhs)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.cond.type != i1:
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)


VECTOR_OPS: dict[type[Operation], type[Operation]] = {
    CmpiOp: arith.CmpiOp,
    CmpfOp: arith.CmpfOp,
    SelectOp: arith.SelectOp,
    ExtSIOp: arith.ExtSIOp,
    ExtUIOp: arith.ExtUIOp,
    TruncIOp: arith.TruncIOp,
    SIToFPOp: arith.SIToFPOp,
    UIToFPOp: arith.UIToFPOp,
    FPToSIOp: arith.FPToSIOp,
    FPToUIOp: arith.FPToUIOp,
    IndexCastOp: arith.IndexCastOp,
}
"""gpuc's op -> the xDSL op it stands for (and subclasses)."""

_REPLACING = {xdsl: ours for ours, xdsl in VECTOR_OPS.items()}


@irdl_op_definition
class MaxFOp(arith.FloatingPointLikeBinaryOperation):
    """MLIR 16's `arith.maxf` (MLIR 17 renamed it `arith.maximumf`: NaN if
    either operand is, -0.0 below +0.0); read, then upgraded to that
    (text.py, RENAMED_OPS)."""

    name = "arith.maxf"
    traits = traits_def(Pure())


@irdl_op_definition
class MinFOp(arith.FloatingPointLikeBinaryOperation):
    """MLIR 16's `arith.minf`, now `arith.minimumf` (as MaxFOp)."""

    name = "arith.minf"
    traits = traits_def(Pure())


RENAMED: dict[str, type[arith.FloatingPointLikeBinaryOperation]] = {
    MaxFOp.name: arith.MaximumfOp,
    MinFOp.name: arith.MinimumfOp,
}
"""MLIR 16's names -> the op each became."""

Arith = Dialect(
    "arith",
    [*(_REPLACING.get(op, op) for op in arith.Arith.operations), MaxFOp, MinFOp],
    list(arith.Arith.attributes),
)
