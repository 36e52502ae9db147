"""`gpuc.printf`: formatted output from a kernel, as C's printf and MLIR's
`gpu.printf`.

The format is C's, with one value per conversion: `d i u o x X c` take an
integer (or `index`) of up to 64 bits, `f F e E g G a A` a float, `p` a
pointer, `%%` none. Length modifiers (`hh h l ll z j t`) are accepted and
ignored: every target spells the one the value's type needs (docs/dialect.md).
`*` widths and precisions, `%s` and `%n` take no value gpuc can pass, so the
verifier refuses them and says what to write instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    traits_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import PtrType
from gpuc.dialects.index import require_function_ancestor
from gpuc.dialects.traits import ReadsKernelState

CONVERSION = re.compile(
    r"%(?P<flags>[-+ #0']*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?"
    r"(?P<length>hh|h|ll|l|j|z|t|L|q)?(?P<conversion>.?)",
    re.DOTALL,
)
INTEGER_CONVERSIONS = frozenset("diuoxXc")
SIGNED_CONVERSIONS = frozenset("di")
FLOAT_CONVERSIONS = frozenset("fFeEgGaA")


@dataclass(frozen=True)
class Conversion:
    """One `%...` of a format: where it starts and ends, and its parts."""

    start: int
    end: int
    flags: str
    width: str
    precision: str | None
    conversion: str

    def spelled(self, length: str) -> str:
        """The conversion with the length modifier `length`."""
        precision = "" if self.precision is None else f".{self.precision}"
        return f"%{self.flags}{self.width}{precision}{length}{self.conversion}"


def conversions(format: str) -> list[Conversion]:
    """The conversions of `format` that take a value (not `%%`), or a
    VerifyException naming the first one gpuc cannot pass a value to."""
    found: list[Conversion] = []
    at = 0
    while (start := format.find("%", at)) >= 0:
        m = CONVERSION.match(format, start)
        assert m is not None
        kind = m["conversion"]
        spelled = m[0]
        at = m.end()
        if kind == "%" and spelled == "%%":
            continue
        if kind == "":
            raise VerifyException(
                "the format ends in an incomplete conversion '%'; write '%%' for "
                "a percent sign"
            )
        if "*" in (m["width"] or "") or "*" in (m["precision"] or ""):
            raise VerifyException(
                f"conversion '{spelled}' takes its width or precision from an "
                "argument ('*'), which gpuc.printf does not; write the number in "
                "the format"
            )
        if kind in "sn":
            raise VerifyException(
                f"conversion '{spelled}' takes a "
                f"{'string' if kind == 's' else 'pointer to a count'}, which "
                "gpuc.printf cannot pass; put the text in the format itself"
            )
        if kind not in INTEGER_CONVERSIONS | FLOAT_CONVERSIONS | {"p"}:
            raise VerifyException(
                f"'{spelled}' is not a conversion gpuc.printf knows; use one of "
                "d i u o x X c (integers), f F e E g G a A (floats), p "
                "(pointers), or '%%' for a percent sign"
            )
        found.append(
            Conversion(
                start,
                at,
                m["flags"],
                m["width"] or "",
                m["precision"],
                kind,
            )
        )
    return found


def check_value(conversion: Conversion, ty: Attribute, position: int) -> None:
    """Raise unless value `position` (of type `ty`) fits its conversion."""
    spelled = conversion.spelled("")
    if conversion.conversion in INTEGER_CONVERSIONS:
        if isinstance(ty, IndexType) or (
            isinstance(ty, IntegerType) and ty.width.data <= 64
        ):
            return
        want = "an integer of at most 64 bits or an index"
    elif conversion.conversion in FLOAT_CONVERSIONS:
        if isinstance(ty, Float16Type | Float32Type | Float64Type):
            return
        want = "an f16, f32 or f64"
        if isinstance(ty, BFloat16Type):
            want += " (arith.extf the bf16 to f32 first)"
    else:
        if isinstance(ty, PtrType):
            return
        want = "a !gpuc.ptr"
    raise VerifyException(
        f"value {position} is {ty}, but its conversion '{spelled}' takes {want}"
    )


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """`gpuc.printf "x = %d, y = %f\\n" %x, %y : i32, f32`: each thread that
    runs it prints the format with its values (C's printf; MLIR's
    `gpu.printf`). Where the text goes depends on the executor
    (docs/runtime.md, "Printing")."""

    name = "gpuc.printf"
    format = prop_def(StringAttr)
    args = var_operand_def()
    traits = traits_def(ReadsKernelState())
    assembly_format = "$format ($args^ `:` type($args))? attr-dict"

    def __init__(self, format: str, args: list[SSAValue | Operation] = []):  # noqa: B006
        super().__init__(operands=[args], properties={"format": StringAttr(format)})

    def conversions(self) -> list[Conversion]:
        return conversions(self.format.data)

    def verify_(self) -> None:
        require_function_ancestor(self)
        found = self.conversions()
        if len(found) != len(self.args):
            raise VerifyException(
                f"the format has {len(found)} conversion"
                f"{'' if len(found) == 1 else 's'} but {len(self.args)} value"
                f"{'' if len(self.args) == 1 else 's'} "
                f"{'is' if len(self.args) == 1 else 'are'} given; give one value "
                "per conversion ('%%' prints a percent sign and takes none)"
            )
        for position, (conversion, value) in enumerate(
            zip(found, self.args, strict=True)
        ):
            check_value(conversion, value.type, position)
