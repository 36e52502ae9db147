"""Float constants written as their bits (`0x7FA00001 : f32`), read and printed
bit-exactly.

xDSL reads a hex float through struct ('f', 'e') and FloatAttr's constructor
rounds through it again, which quiets a signalling NaN and drops an f16 NaN's
payload; its printer packs the same way. gpuc holds a NaN of a narrower type
in a double with the payload in the top bits of the double's (as LLVM widens
it, and as the lowering's `float_constant` reads it back), so the parser and
the printer here convert between the bits and that double themselves.
"""

from __future__ import annotations

import math
import struct
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FloatData,
    IntegerAttr,
    ModuleOp,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.targets.mlir import MLIRTarget

FRACTION_BITS: dict[type[AnyFloat], int] = {
    Float16Type: 10,
    Float32Type: 23,
    Float64Type: 52,
}
"""The types whose NaNs keep their bits, by the width of their fraction."""


def double_bits(value: float) -> int:
    (bits,) = struct.unpack("<Q", struct.pack("<d", value))
    return int(bits)


def held_nan(bits: int, type: AnyFloat) -> float | None:
    """The double that holds `bits` of `type` when they are a NaN, else None."""
    fraction = FRACTION_BITS.get(type.__class__)
    if fraction is None:
        return None
    width = type.bitwidth
    exponent = (bits >> fraction) & ((1 << (width - fraction - 1)) - 1)
    payload = bits & ((1 << fraction) - 1)
    if exponent != (1 << (width - fraction - 1)) - 1 or payload == 0:
        return None
    sign = bits >> (width - 1) & 1
    held = sign << 63 | 0x7FF << 52 | payload << (52 - fraction)
    (value,) = struct.unpack("<d", struct.pack("<Q", held))
    return float(value)


def nan_bits(value: float, type: AnyFloat) -> int | None:
    """The bits of `type` that the double `value` holds when it is a NaN, else
    None (the inverse of `held_nan`; a payload that does not reach `type`'s
    fraction becomes the quiet bit alone, as in the lowering)."""
    fraction = FRACTION_BITS.get(type.__class__)
    if fraction is None or not math.isnan(value):
        return None
    bits = double_bits(value)
    width = type.bitwidth
    payload = (bits & ((1 << 52) - 1)) >> (52 - fraction) or 1 << (fraction - 1)
    exponent = (1 << (width - fraction - 1)) - 1
    return (bits >> 63) << (width - 1) | exponent << fraction | payload


class ExactFloatParser(Parser):
    """A parser that keeps a hex float literal's bits, NaNs included."""

    def parse_optional_builtin_int_or_float_attr(
        self,
    ) -> IntegerAttr | FloatAttr | None:
        token = self._current_token
        is_hex = token.text[:2] in ("0x", "0X")
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:
            if not is_hex:
                raise
            self.raise_error(
                "hexadecimal float literal has more bits than its type", token.span
            )
        if not is_hex or not isinstance(attr, FloatAttr):
            return attr
        held = held_nan(int(token.text, 16), attr.type)
        if held is None:
            return attr
        # FloatAttr's constructor would round the NaN through the type again.
        return FloatAttr.new([FloatData(held), attr.type])


class ExactFloatPrinter(Printer):
    """A printer that spells a NaN with its bits (which ExactFloatParser reads
    back to the same attribute)."""

    def print_float(self, value: float, type: AnyFloat) -> None:
        bits = nan_bits(value, type)
        if bits is None:
            super().print_float(value, type)
        else:
            self.print_string(f"0x{bits:0{type.bitwidth // 4}x}")


class ExactFloatMLIRTarget(MLIRTarget):
    """xDSL's `mlir` output target, printing with ExactFloatPrinter."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.syntax_highlight:
            super().emit(ctx, module, output)
            return
        printer = ExactFloatPrinter(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
        )
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)
