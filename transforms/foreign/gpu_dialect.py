"""The `gpu` dialect as MLIR prints it: xDSL 0.74's plus what it lacks.

xDSL knows neither the `#gpu.address_space<...>` attribute nor MLIR <= 17's
`gpu.module_end` terminator; `GPU` is xDSL's gpu dialect plus those two (gpuc
registers it as `gpu`). Kept apart from `text.py` so that parsing
and upgrading a module imports xDSL's gpu and memref dialects only when the
module uses them.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects import gpu
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.str_enum import StrEnum

from gpuc.dialects.attrs import parse_enum_keyword


class GPUAddressSpace(StrEnum):
    GLOBAL = auto()
    WORKGROUP = auto()
    PRIVATE = auto()


@irdl_attr_definition
class GPUAddressSpaceAttr(EnumAttribute[GPUAddressSpace]):
    """`#gpu.address_space<global|workgroup|private>`, MLIR's GPU memory spaces."""

    name = "gpu.address_space"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> GPUAddressSpace:
        with parser.in_angle_brackets():
            space: GPUAddressSpace = parse_enum_keyword(
                parser, GPUAddressSpace, "gpu address space"
            )
        return space

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)


@irdl_op_definition
class ModuleEndOp(IRDLOperation):
    """`gpu.module_end`: the terminator MLIR <= 17 prints at the end of a gpu.module."""

    name = "gpu.module_end"
    traits = traits_def(IsTerminator(), HasParent(gpu.ModuleOp))


GPU = Dialect(
    "gpu",
    [*gpu.GPU.operations, ModuleEndOp],
    [*gpu.GPU.attributes, GPUAddressSpaceAttr],
)
