"""The `vector` dialect as MLIR 16 to 22 print it: xDSL's, plus what MLIR's
GPU frontends emit and xDSL lacks: `vector.extractelement` and
`vector.insertelement` (one element at a dynamic position of a 1-D vector;
gpuc/lowering/vector.py translates both), `vector.contract`, `vector.transpose`
and `vector.shape_cast` (on vectors of several dimensions, which
gpuc/transforms/foreign/vector_unroll.py unrolls), the `#vector.iterator_type`
attribute. gpuc registers it as `vector`.
"""

from __future__ import annotations

from enum import auto
from typing import ClassVar

from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloatConstr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    VectorType,
    i1,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

ELEMENT: VarConstraint = VarConstraint(
    "T", base(IntegerType) | base(IndexType) | AnyFloatConstr
)


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`%e = vector.extractelement %v[%i : index] : vector<4xf32>`."""

    name = "vector.extractelement"
    _T: ClassVar = ELEMENT
    vector = operand_def(VectorType.constr(_T))
    position = opt_operand_def(base(IntegerType) | base(IndexType))
    result = result_def(_T)
    traits = traits_def(Pure())
    assembly_format = (
        "$vector `[` ($position^ `:` type($position))? `]` attr-dict `:` type($vector)"
    )


@irdl_op_definition
class InsertElementOp(IRDLOperation):
    """`%w = vector.insertelement %e, %v[%i : index] : vector<4xf32>`."""

    name = "vector.insertelement"
    _T: ClassVar = ELEMENT
    _V: ClassVar = VarConstraint("V", VectorType.constr(_T))
    source = operand_def(_T)
    dest = operand_def(_V)
    position = opt_operand_def(base(IntegerType) | base(IndexType))
    result = result_def(_V)
    traits = traits_def(Pure())
    assembly_format = (
        "$source `,` $dest `[` ($position^ `:` type($position))? `]` attr-dict "
        "`:` type($result)"
    )


class IteratorType(StrEnum):
    """How `vector.contract` walks one of its iteration dimensions."""

    PARALLEL = auto()
    REDUCTION = auto()


@irdl_attr_definition
class IteratorTypeAttr(EnumAttribute[IteratorType]):
    """`#vector.iterator_type<parallel>`, as MLIR prints iterator types."""

    name = "vector.iterator_type"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> IteratorType:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(IteratorType)


@irdl_op_definition
class ContractionOp(IRDLOperation):
    """`%d = vector.contract {indexing_maps = [...], iterator_types = [...],
    kind = #vector.kind<add>} %a, %b, %c : vector<4x8xf16>, vector<8x4xf16>
    into vector<4x4xf32>`: for each point of the iteration space, the product
    of the lhs and rhs elements its maps name, combined by `kind` with the
    accumulator over the reduction dimensions (MLIR's semantics; the operands
    are extended to the accumulator's element type first)."""

    name = "vector.contract"
    _A: ClassVar = VarConstraint("A", AnyAttr())
    lhs = operand_def(VectorType)
    rhs = operand_def(VectorType)
    acc = operand_def(_A)
    masks = var_operand_def(VectorType)  # MLIR 16's; gpuc refuses them
    result = result_def(_A)
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[Attribute])
    kind = opt_prop_def(vector.CombiningKindAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "attr-dict $lhs `,` $rhs `,` $acc (`,` $masks^)? `:` type($lhs) `,` "
        "type($rhs) (`,` type($masks)^)? `into` type($result)"
    )

    def iterators(self) -> list[IteratorType]:
        """The iterator types, written as `#vector.iterator_type<...>` (the
        generic form) or as strings (the custom form)."""
        found: list[IteratorType] = []
        for t in self.iterator_types.data:
            if isinstance(t, IteratorTypeAttr):
                found.append(t.data)
            elif isinstance(t, StringAttr) and t.data in list(IteratorType):
                found.append(IteratorType(t.data))
            else:
                raise VerifyException(
                    f"iterator type {t} is neither parallel nor reduction"
                )
        return found

    def combining_kind(self) -> vector.CombiningKindFlag:
        return vector.CombiningKindFlag.ADD if self.kind is None else self.kind.data

    def verify_(self) -> None:
        count = len(self.iterators())
        maps = [m.data for m in self.indexing_maps.data]
        if len(maps) != 3:
            raise VerifyException("expects 3 indexing maps (lhs, rhs, accumulator)")
        for m, value in zip(maps, (self.lhs, self.rhs, self.acc), strict=True):
            rank = (
                value.type.get_num_dims() if isinstance(value.type, VectorType) else 0
            )
            if m.num_dims != count or len(m.results) != rank:
                raise VerifyException(
                    f"indexing map {m} does not fit {value.type} and {count} iterators"
                )


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`%t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>`:
    result dimension k is source dimension permutation[k]. MLIR 16 prints
    the permutation as the array attribute `transp`."""

    name = "vector.transpose"
    vector = operand_def(VectorType)
    result = result_def(VectorType)
    permutation = opt_prop_def(DenseArrayBase)
    transp = opt_prop_def(ArrayAttr[IntegerAttr])
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, dims: list[int], result: VectorType) -> None:
        super().__init__(
            operands=[source],
            result_types=[result],
            properties={"permutation": DenseArrayBase.from_list(i64, dims)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_integer
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        if not isinstance(result_type, VectorType):
            parser.raise_error(f"expected a vector type, not {result_type}")
        op = cls(parser.resolve_operand(source, source_type), dims, result_type)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.vector)
        printer.print_string(f", [{', '.join(map(str, self.dims()))}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.vector.type} to {self.result.type}")

    def dims(self) -> list[int]:
        if self.permutation is not None:
            return [int(v) for v in self.permutation.get_values()]
        assert self.transp is not None  # verified
        return [t.value.data for t in self.transp.data]

    def verify_(self) -> None:
        if (self.permutation is None) == (self.transp is None):
            raise VerifyException("needs a permutation (MLIR 16: transp), once")
        source, result = self.vector.type, self.result.type
        assert isinstance(source, VectorType) and isinstance(result, VectorType)
        dims = self.dims()
        if sorted(dims) != list(range(source.get_num_dims())):
            raise VerifyException(f"{dims} is not a permutation of {source}'s dims")
        shape = [source.get_shape()[d] for d in dims]
        if list(result.get_shape()) != shape or (
            result.element_type != source.element_type
        ):
            raise VerifyException(f"transposing {source} by {dims} gives no {result}")


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """`%s = vector.shape_cast %v : vector<4x4xf32> to vector<16xf32>`: the
    same elements in the same (row-major) order, another shape."""

    name = "vector.shape_cast"
    source = operand_def(VectorType)
    result = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, VectorType) and isinstance(result, VectorType)
        if source.element_count() != result.element_count() or (
            source.element_type != result.element_type
        ):
            raise VerifyException(f"cannot reshape {source} to {result}")


@irdl_op_definition
class FromElementsOp(IRDLOperation):
    """`%v = vector.from_elements %a, %b, %c, %d : vector<2x2xf32>`: a vector
    of its operands, in row-major order (MLIR 19 and later; xDSL lacks it)."""

    name = "vector.from_elements"
    _T: ClassVar = ELEMENT
    elements = var_operand_def(_T)
    result = result_def(VectorType.constr(_T))
    traits = traits_def(Pure())
    assembly_format = "$elements attr-dict `:` type($result)"

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, VectorType)
        if len(self.elements) != t.element_count():
            raise VerifyException(
                f"makes {t} of {len(self.elements)} elements; it has "
                f"{t.element_count()}"
            )


Vector = Dialect(
    "vector",
    [
        *vector.Vector.operations,
        FromElementsOp,
        ExtractElementOp,
        InsertElementOp,
        ContractionOp,
        TransposeOp,
        ShapeCastOp,
    ],
    [*vector.Vector.attributes, IteratorTypeAttr],
)


def complete_in_bounds(op: Operation) -> None:
    """MLIR 16 leaves a transfer's `in_bounds` out where no dimension is
    known in bounds (MLIR 16's meaning: all false, a broadcast dimension
    being in bounds anyway); xDSL requires the property."""
    assert isinstance(op, vector.TransferReadOp | vector.TransferWriteOp)
    if "in_bounds" in op.properties or "in_bounds" in op.attributes:
        return
    results = op.permutation_map.data.results
    op.properties["in_bounds"] = ArrayAttr(
        [BoolAttr(isinstance(r, AffineConstantExpr), i1) for r in results]
    )


def upgrade_position(op: Operation) -> None:
    """MLIR 16 prints `vector.extract`/`insert`'s (static) position as the
    array attribute `position = [1, 2]`; MLIR 17+ and xDSL have the
    `static_position` property (`array<i64: 1, 2>`, no dynamic positions)."""
    position = op.attributes.get("position") or op.properties.get("position")
    if "static_position" in op.properties or not isinstance(position, ArrayAttr):
        return
    values = [p.value.data for p in position.data if isinstance(p, IntegerAttr)]
    if len(values) != len(position.data):
        return  # not MLIR 16's form: the verifier says what is wrong
    op.attributes.pop("position", None)
    op.properties.pop("position", None)
    op.properties["static_position"] = DenseArrayBase.from_list(i64, values)
