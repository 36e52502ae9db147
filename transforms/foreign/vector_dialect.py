"""The `vector` dialect as MLIR 16 to 22 print it: xDSL's, plus
`vector.extractelement` and `vector.insertelement` (one element at a dynamic
position of a 1-D vector), which MLIR's GPU frontends emit and xDSL lacks.
gpuc registers it as `vector`; lowering/vector.py translates both.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    AnyFloatConstr,
    IndexType,
    IntegerType,
    VectorType,
)
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

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


Vector = Dialect(
    "vector",
    [*vector.Vector.operations, ExtractElementOp, InsertElementOp],
    list(vector.Vector.attributes),
)
