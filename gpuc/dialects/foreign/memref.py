"""The `memref` dialect as MLIR prints it: xDSL's, with MLIR's custom syntax
for `memref.atomic_rmw`, whose kind is then a keyword and means the same in
every MLIR version (the generic form's number does not: atomic_kinds.py),
and for `memref.memory_space_cast` (MLIR 17 and later; xDSL 0.74 and 0.75
read only its generic form), plus MLIR's `memref.generic_atomic_rmw` and
`memref.atomic_yield`, which xDSL lacks (in generic form). gpuc registers it
as `memref`; the atomic is read by keyword into gpuc's (MLIR 16's) number and
printed back by keyword.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    I64,
    AnyFloatConstr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    SignlessIntegerConstraint,
    UnrankedMemRefType,
    i64,
)
from xdsl.ir import Dialect, Operation
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.foreign.atomic_kinds import (
    KEYWORD_BY_KIND_NUMBER,
    KIND_NUMBER_BY_KEYWORD,
    UNSUPPORTED_KINDS,
)


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`memref.atomic_rmw KIND %value, %memref[%i, ...] : (T, memref<...>) -> T`.

    xDSL's op (the same operands and `kind` property) with MLIR's custom
    syntax; the import takes both (`ATOMIC_RMW_OPS`).
    """

    name = "memref.atomic_rmw"

    T: ClassVar = VarConstraint("T", AnyFloatConstr | SignlessIntegerConstraint)

    value = operand_def(T)
    memref = operand_def(MemRefType.constr(T))
    indices = var_operand_def(IndexType)

    kind = prop_def(IntegerAttr[I64])

    result = result_def(T)

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        pos = parser.pos
        word = parser.parse_identifier(context_msg=" for the kind of memref.atomic_rmw")
        accepted = ", ".join(KIND_NUMBER_BY_KEYWORD)
        if word in UNSUPPORTED_KINDS:
            parser.raise_error(
                f"memref.atomic_rmw kind '{word}' ({UNSUPPORTED_KINDS[word]}) is "
                f"not supported; accepted: {accepted}",
                pos,
                parser.pos,
            )
        if word not in KIND_NUMBER_BY_KEYWORD:
            parser.raise_error(
                f"unknown memref.atomic_rmw kind '{word}'; expected one of: {accepted}",
                pos,
                parser.pos,
            )
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        target = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_pos = parser.pos
        signature = parser.parse_function_type()
        if len(signature.inputs.data) != 2 or len(signature.outputs.data) != 1:
            parser.raise_error(
                "memref.atomic_rmw needs the type `(value type, memref type) -> "
                "value type`",
                types_pos,
                parser.pos,
            )
        value_type, memref_type = signature.inputs.data
        operands = parser.resolve_operands(
            [value, target, *indices],
            [value_type, memref_type, *(IndexType() for _ in indices)],
            types_pos,
        )
        return cls.create(
            operands=operands,
            result_types=signature.outputs.data,
            properties={"kind": IntegerAttr(KIND_NUMBER_BY_KEYWORD[word], i64)},
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        number = self.kind.value.data
        # A number no keyword names prints as one the reader refuses, by name.
        word = KEYWORD_BY_KIND_NUMBER.get(number, f"unknown_kind_{number}")
        printer.print_string(f" {word} ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_ssa_value)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists(
                [self.value.type, self.memref.type], [self.result.type]
            )
        )


@irdl_op_definition
class MemorySpaceCastOp(memref.MemorySpaceCastOp):
    """`%g = memref.memory_space_cast %m : memref<4xf32, 3> to memref<4xf32, ...>`:
    xDSL's op (an instance of it) with MLIR's custom syntax."""

    name = "memref.memory_space_cast"

    source = operand_def(base(MemRefType) | base(UnrankedMemRefType))
    dest = result_def(base(MemRefType) | base(UnrankedMemRefType))

    traits = traits_def(NoMemoryEffect())

    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"
    # xDSL's op parses and prints generically; the format above replaces that.
    parse: Any = classmethod(Operation.parse.__func__)  # type: ignore[attr-defined]
    print: Any = Operation.print


@irdl_op_definition
class GenericAtomicRMWOp(IRDLOperation):
    """`memref.generic_atomic_rmw`: the element at `memref[indices]` replaced
    atomically by what the region yields from its current value; the result
    is the value it replaced (MLIR's op; generic form)."""

    name = "memref.generic_atomic_rmw"
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def()
    body = region_def("single_block")
    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        block = self.body.block
        if block.arg_types != (t.element_type,) or self.result.type != t.element_type:
            raise VerifyException(
                f"takes and returns the element type {t.element_type} in its "
                "block argument and result"
            )
        if not isinstance(block.last_op, AtomicYieldOp):
            raise VerifyException("its region must end in memref.atomic_yield")


@irdl_op_definition
class AtomicYieldOp(IRDLOperation):
    """`memref.atomic_yield %new`: the value a generic_atomic_rmw stores."""

    name = "memref.atomic_yield"
    result = operand_def()
    traits = traits_def(IsTerminator(), HasParent(GenericAtomicRMWOp))


ATOMIC_RMW_OPS = (memref.AtomicRMWOp, AtomicRMWOp)
"""xDSL's op (built in Python) and gpuc's (read from text)."""

REPLACING: dict[type[Operation], type[Operation]] = {
    memref.AtomicRMWOp: AtomicRMWOp,
    memref.MemorySpaceCastOp: MemorySpaceCastOp,
}
MemRef = Dialect(
    "memref",
    [REPLACING.get(op, op) for op in memref.MemRef.operations]
    + [GenericAtomicRMWOp, AtomicYieldOp],
    list(memref.MemRef.attributes),
)
