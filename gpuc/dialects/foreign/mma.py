"""MLIR's warp matrix ops, which xDSL 0.74 lacks (gpu.py's GPU
registers them): `!gpu.mma_matrix<16x16xf16, "AOp">` and `gpu.subgroup_mma_load_matrix`,
`_store_matrix`, `_compute`, `_constant_matrix`, `_elementwise`, in generic
form (their `leadDimension`, `transpose`, `a_transpose`, `b_transpose` as
attributes, MLIR 16, or properties, MLIR 18 on) and in MLIR's custom form.
The import makes them gpuc's matrix ops: gpuc/transforms/foreign/mma_ops.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import IndexType, IntAttr, IntegerAttr, StringAttr, UnitAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from gpuc.dialects.matrix import (
    FragmentType,
    MatrixOperand,
    fragment_problem,
)

OPERANDS = {"AOp": MatrixOperand.A, "BOp": MatrixOperand.B, "COp": MatrixOperand.C}


@irdl_attr_definition
class MMAMatrixType(ParametrizedAttribute, TypeAttribute):
    """`!gpu.mma_matrix<16x16xf16, "AOp">`."""

    name = "gpu.mma_matrix"

    rows: IntAttr
    cols: IntAttr
    element: Attribute
    operand: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pos = parser.pos
        dims, element = parser.parse_shape()
        if dims is None or len(dims) != 2 or min(dims) < 1:
            parser.raise_error("!gpu.mma_matrix has two static dimensions", pos)
        parser.parse_punctuation(",")
        pos = parser.pos
        operand = parser.parse_str_literal()
        if operand not in OPERANDS:
            parser.raise_error(
                f'unknown mma operand "{operand}"; expected "AOp", "BOp" or "COp"', pos
            )
        parser.parse_punctuation(">")
        return (IntAttr(dims[0]), IntAttr(dims[1]), element, StringAttr(operand))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.rows.data}x{self.cols.data}x")
        printer.print_attribute(self.element)
        printer.print_string(f', "{self.operand.data}">')

    def problem(self) -> str | None:
        """Why gpuc cannot take this fragment, if it cannot."""
        operand = OPERANDS[self.operand.data]
        return fragment_problem(self.rows.data, self.cols.data, self.element, operand)

    def fragment(self) -> FragmentType:
        operand = OPERANDS[self.operand.data]
        return FragmentType(self.rows.data, self.cols.data, self.element, operand)


def flag(op: Operation, name: str) -> bool:
    """A unit attribute given as a property or an attribute."""
    return isinstance(op.properties.get(name) or op.attributes.get(name), UnitAttr)


def lead_dimension(op: Operation) -> int | None:
    found = op.properties.get("leadDimension") or op.attributes.get("leadDimension")
    return found.value.data if isinstance(found, IntegerAttr) else None


class _NeedsLeadDimension(IRDLOperation):
    def verify_(self) -> None:
        if lead_dimension(self) is None:
            raise VerifyException("needs a leadDimension (an index attribute)")


@irdl_op_definition
class SubgroupMmaLoadMatrixOp(_NeedsLeadDimension):
    name = "gpu.subgroup_mma_load_matrix"
    src_memref = operand_def()
    indices = var_operand_def(IndexType)
    leadDimension = opt_prop_def(IntegerAttr)  # noqa: N815  # MLIR's name
    transpose = opt_prop_def(UnitAttr)
    res = result_def(MMAMatrixType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src_memref `[` $indices `]` attr-dict `:` type($src_memref) `->` type($res)"
    )


@irdl_op_definition
class SubgroupMmaStoreMatrixOp(_NeedsLeadDimension):
    name = "gpu.subgroup_mma_store_matrix"
    src = operand_def(MMAMatrixType)
    dstMemref = operand_def()  # noqa: N815  # MLIR's name
    indices = var_operand_def(IndexType)
    leadDimension = opt_prop_def(IntegerAttr)  # noqa: N815
    transpose = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $dstMemref `[` $indices `]` attr-dict `:` type($src) `,` "
        "type($dstMemref)"
    )


ACCUMULATOR = VarConstraint("ACCUMULATOR", base(MMAMatrixType))


@irdl_op_definition
class SubgroupMmaComputeOp(IRDLOperation):
    name = "gpu.subgroup_mma_compute"
    opA = operand_def(MMAMatrixType)  # noqa: N815
    opB = operand_def(MMAMatrixType)  # noqa: N815
    opC = operand_def(ACCUMULATOR)  # noqa: N815
    a_transpose = opt_prop_def(UnitAttr)
    b_transpose = opt_prop_def(UnitAttr)
    res = result_def(ACCUMULATOR)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$opA `,` $opB `,` $opC attr-dict `:` type($opA) `,` type($opB) `->` type($res)"
    )


@irdl_op_definition
class SubgroupMmaConstantMatrixOp(IRDLOperation):
    """`%c = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<...>`."""

    name = "gpu.subgroup_mma_constant_matrix"
    value = operand_def(AnyAttr())
    res = result_def(MMAMatrixType)

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupMmaConstantMatrixOp:
        value = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ty = parser.parse_type()
        if not isinstance(ty, MMAMatrixType):
            parser.raise_error(f"expected a !gpu.mma_matrix type, not {ty}", pos)
        (operand,) = parser.resolve_operands([value], [ty.element], pos)
        op = cls.create(operands=[operand], result_types=[ty])
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.res.type)


class MMAElementwise(StrEnum):
    """MLIR's `MMAElementwiseOp` kinds (gpuc takes the float ones)."""

    ADDF = auto()
    MULF = auto()
    SUBF = auto()
    MAXF = auto()
    MINF = auto()
    DIVF = auto()
    ADDI = auto()
    MULI = auto()
    SUBI = auto()
    DIVS = auto()
    DIVU = auto()
    NEGATEF = auto()
    NEGATES = auto()
    EXTF = auto()


@irdl_attr_definition
class MMAElementwiseAttr(EnumAttribute[MMAElementwise], SpacedOpaqueSyntaxAttribute):
    """`#gpu<mma_element_wise addf>`."""

    name = "gpu.mma_element_wise"


@irdl_op_definition
class SubgroupMmaElementwiseOp(IRDLOperation):
    name = "gpu.subgroup_mma_elementwise"
    opType = opt_prop_def(MMAElementwiseAttr)  # noqa: N815  # MLIR's name
    args = var_operand_def(MMAMatrixType)
    res = result_def(MMAMatrixType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$opType $args attr-dict `:` functional-type($args, $res)"

    def kind(self) -> str | None:
        found = self.opType or self.attributes.get("opType")
        if not isinstance(found, MMAElementwiseAttr):
            return None
        kind: MMAElementwise = found.data
        return str(kind)


MMA_OPS: tuple[type[IRDLOperation], ...] = (
    SubgroupMmaLoadMatrixOp,
    SubgroupMmaStoreMatrixOp,
    SubgroupMmaComputeOp,
    SubgroupMmaConstantMatrixOp,
    SubgroupMmaElementwiseOp,
)
MMA_OP_NAMES = (
    "gpu.subgroup_mma_load_matrix",
    "gpu.subgroup_mma_store_matrix",
    "gpu.subgroup_mma_compute",
    "gpu.subgroup_mma_constant_matrix",
    "gpu.subgroup_mma_elementwise",
)
MEMREF_OPERANDS = {
    "gpu.subgroup_mma_load_matrix": "src_memref",
    "gpu.subgroup_mma_store_matrix": "dstMemref",
}
"""Where the matrix ops take a memref (checks.py's MEMREF_USES)."""
