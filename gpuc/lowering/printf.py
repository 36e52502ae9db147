"""The translator of `gpuc.printf` (gpuc/dialects/printf.py).

Every target's printf is C's variadic one, so the values are promoted here
once, as C passes them to `...`: floats as doubles, integers narrower than 32
bits as 32-bit ones (sign-extended for `%d`/`%i`, else zero-extended), `i1`
as 0 or 1. The format is then respelled so that each conversion's length
modifier says what was passed (none for 32 bits and doubles, the target's
`long_modifier` for 64 bits), whatever the text wrote: `%d` of an `index`
prints all its bits. The target prints (`Target.printf`).
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects.builtin import IndexType, IntegerType

from gpuc.dialects.printf import SIGNED_CONVERSIONS, PrintfOp
from gpuc.lowering.context import FunctionLowering, translates

I32, I64, F64 = ir.IntType(32), ir.IntType(64), ir.DoubleType()


def promoted(
    fl: FunctionLowering, op: PrintfOp, long_modifier: str
) -> tuple[str, list[ir.Value]]:
    """The format respelled for the promoted values, and those values."""
    b = fl.builder
    text = op.format.data
    pieces: list[str] = []
    values: list[ir.Value] = []
    at = 0
    for conversion, arg in zip(op.conversions(), op.args, strict=True):
        value = fl.get(arg)
        length = ""
        if isinstance(arg.type, IntegerType | IndexType):
            bits = value.type.width
            if bits > 32 and conversion.conversion == "c":
                value = b.trunc(value, I32)  # a character is an int (`%lc` is wide)
            elif bits > 32:
                length = long_modifier
                value = b.zext(value, I64) if bits < 64 else value
            elif bits < 32:
                signed = conversion.conversion in SIGNED_CONVERSIONS and bits > 1
                value = b.sext(value, I32) if signed else b.zext(value, I32)
        elif isinstance(value.type, ir.HalfType | ir.FloatType):
            value = b.fpext(value, F64)
        pieces.append(text[at : conversion.start])
        pieces.append(conversion.spelled(length))
        values.append(value)
        at = conversion.end
    pieces.append(text[at:])
    return "".join(pieces), values


def format_string(
    ml_llvm: ir.Module, text: str, address_space: int
) -> ir.GlobalVariable:
    """A private NUL-terminated constant holding `text`."""
    data = bytearray(text.encode() + b"\0")
    ty = ir.ArrayType(ir.IntType(8), len(data))
    name = ml_llvm.get_unique_name("gpuc.printf.format")
    found = ir.GlobalVariable(ml_llvm, ty, name, addrspace=address_space)
    found.global_constant = True
    found.linkage = "private"
    found.unnamed_addr = True
    found.initializer = ir.Constant(ty, data)
    found.type = ir.PointerType(addrspace=address_space)  # an opaque pointer
    return found


@translates(PrintfOp)
def translate_printf(op: PrintfOp, fl: FunctionLowering) -> None:
    target = fl.target
    text, values = promoted(fl, op, target.long_modifier)
    target.printf(fl, op, text, values)
