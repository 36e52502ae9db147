"""The `gpu` dialect as MLIR prints it: xDSL 0.74's plus what it lacks.

xDSL knows neither the `#gpu.address_space<...>` attribute, MLIR <= 17's
`gpu.module_end` terminator, nor `gpu.shuffle` and `gpu.subgroup_reduce`;
`GPU` is xDSL's gpu dialect plus those (gpuc registers it as `gpu`). Kept
apart from `text.py` so that parsing and upgrading a module imports xDSL's gpu
and memref dialects only when the module uses them.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects import gpu
from xdsl.dialects.builtin import IntegerAttr, UnitAttr, i1, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Dialect, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
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


class GPUShuffleMode(StrEnum):
    XOR = auto()
    UP = auto()
    DOWN = auto()
    IDX = auto()


@irdl_attr_definition
class GPUShuffleModeAttr(EnumAttribute[GPUShuffleMode], SpacedOpaqueSyntaxAttribute):
    """`#gpu<shuffle_mode xor|up|down|idx>`."""

    name = "gpu.shuffle_mode"


SHUFFLED = VarConstraint("SHUFFLED", AnyAttr())


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`gpu.shuffle`: `(value, offset, width) -> (result, valid)`."""

    name = "gpu.shuffle"
    mode = prop_def(GPUShuffleModeAttr)
    value = operand_def(SHUFFLED)
    offset = operand_def(i32)
    width = operand_def(i32)
    result = result_def(SHUFFLED)
    valid = result_def(i1)


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """`gpu.subgroup_reduce` (MLIR 16's kinds; `cluster_size` and
    `cluster_stride` from MLIR 19 on)."""

    name = "gpu.subgroup_reduce"
    op = prop_def(gpu.AllReduceOpAttr)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr)
    cluster_stride = opt_prop_def(IntegerAttr)
    value = operand_def(SHUFFLED)
    result = result_def(SHUFFLED)


GPU = Dialect(
    "gpu",
    [*gpu.GPU.operations, ModuleEndOp, ShuffleOp, SubgroupReduceOp],
    [*gpu.GPU.attributes, GPUAddressSpaceAttr, GPUShuffleModeAttr],
)
