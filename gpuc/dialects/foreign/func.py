"""The `func` dialect as MLIR prints it: xDSL's, plus MLIR's `func.constant`
(a function's address, a value of its function type) and
`func.call_indirect` (a call through one), which xDSL lacks. gpuc registers
it as `func`; the import makes them `gpuc.func_addr` and
`gpuc.call_indirect` (gpuc/transforms/foreign/conversion.py). MLIR 16 prints
func.constant's symbol as an attribute in generic form, MLIR 18 and later as
a property; both are read.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, SymbolRefAttr
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.functions import parse_indirect_call, print_indirect_call


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`func.constant @f : (T) -> R`: the address of function @f."""

    name = "func.constant"
    value = opt_prop_def(SymbolRefAttr)
    result = result_def(FunctionType)

    def __init__(self, callee: str, signature: FunctionType):
        super().__init__(
            result_types=[signature], properties={"value": SymbolRefAttr(callee)}
        )

    @property
    def callee(self) -> SymbolRefAttr | None:
        """The function named, a property or (MLIR 16) an attribute."""
        found = self.value or self.attributes.get("value")
        return found if isinstance(found, SymbolRefAttr) else None

    def verify_(self) -> None:
        if self.callee is None:
            raise VerifyException("needs the function's symbol ('value')")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        symbol = parser.parse_symbol_name().data
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(symbol, parser.parse_function_type())
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.callee or SymbolRefAttr("?"))
        printer.print_op_attributes(self.attributes, reserved_attr_names=("value",))
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class CallIndirectOp(IRDLOperation):
    """`func.call_indirect %f(%a) : (T) -> R`: a call through a function value."""

    name = "func.call_indirect"
    callee = operand_def(FunctionType)
    args = var_operand_def()
    results_ = var_result_def()

    def __init__(
        self,
        callee: SSAValue,
        args: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ):
        super().__init__(operands=[callee, args], result_types=[result_types])

    def verify_(self) -> None:
        t = self.callee.type
        assert isinstance(t, FunctionType)
        if self.args.types != t.inputs.data or self.results_.types != t.outputs.data:
            raise VerifyException(
                f"passes ({', '.join(map(str, self.args.types))}) and returns "
                f"({', '.join(map(str, self.results_.types))}), but the callee's "
                f"type is {t}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> CallIndirectOp:
        callee, args, attributes = parse_indirect_call(
            parser,
            lambda t: t if isinstance(t, FunctionType) else None,
            "a function type",
        )
        t = callee.type
        assert isinstance(t, FunctionType)
        op = cls(callee, args, t.outputs.data)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        print_indirect_call(printer, self.callee, self.args, self.attributes)


Func = Dialect(
    "func",
    [*func.Func.operations, ConstantOp, CallIndirectOp],
    list(func.Func.attributes),
)
