"""`gpu.printf` as MLIR prints it, which xDSL 0.74 lacks (gpu.py's GPU
registers it): `gpu.printf "fmt" %a, %b : i32, f32` from MLIR 16 to 19,
`gpu.printf "fmt", %a, %b : i32, f32` from MLIR 22 on; the format is an
attribute in MLIR 16's generic form and a property from MLIR 18 on. The
import makes it a `gpuc.printf`, whose verifier checks the format."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """`gpu.printf "fmt" %a, %b : i32, f32`; `text` is the format however
    it was given."""

    name = "gpu.printf"
    format = opt_prop_def(StringAttr)
    args = var_operand_def()

    @property
    def text(self) -> str | None:
        found = self.format or self.attributes.get("format")
        return found.data if isinstance(found, StringAttr) else None

    def verify_(self) -> None:
        if self.text is None:
            raise VerifyException("needs a format string ('format')")

    @classmethod
    def parse(cls, parser: Parser) -> PrintfOp:
        text = parser.parse_str_literal(" (the format of gpu.printf)")
        comma = parser.parse_optional_punctuation(",") is not None
        first = (
            parser.parse_unresolved_operand()
            if comma
            else parser.parse_optional_unresolved_operand()
        )
        operands: list[SSAValue] = []
        if first is not None:
            names = [first]
            while parser.parse_optional_punctuation(",") is not None:
                names.append(parser.parse_unresolved_operand())
            pos = parser.pos
            parser.parse_punctuation(":")
            types: list[Attribute] = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
            operands = list(parser.resolve_operands(names, types, pos))
        attributes = parser.parse_optional_attr_dict()
        op = cls.create(operands=operands, properties={"format": StringAttr(text)})
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.text or "")
        if self.args:
            printer.print_string(" ")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)
