"""The `gpu` dialect as MLIR prints it: xDSL 0.74's plus what it lacks.

xDSL knows neither the `#gpu.address_space<...>` attribute, MLIR <= 17's
`gpu.module_end` terminator, `gpu.shuffle`, `gpu.subgroup_reduce`, nor the
reduction kinds MLIR 19 and later name (`#gpu<all_reduce_op maxsi>`);
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
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from gpuc.dialects.attrs import parse_enum_keyword
from gpuc.dialects.foreign.gpu_printf import PrintfOp
from gpuc.dialects.foreign.mma import MMA_OPS, MMAElementwiseAttr, MMAMatrixType


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


class GPUReduceKind(StrEnum):
    """The kinds of MLIR 16 (`min`, `max`) and of MLIR 19 and later (the
    others but add, mul, and, or, xor, which both have); what each means is
    the import's (all_reduce.py, `MLIR_KINDS`)."""

    ADD = auto()
    MUL = auto()
    MIN = auto()
    MAX = auto()
    MINSI = auto()
    MINUI = auto()
    MAXSI = auto()
    MAXUI = auto()
    MINNUMF = auto()
    MAXNUMF = auto()
    MINIMUMF = auto()
    MAXIMUMF = auto()
    AND = auto()
    OR = auto()
    XOR = auto()


@irdl_attr_definition
class GPUReduceKindAttr(EnumAttribute[GPUReduceKind], SpacedOpaqueSyntaxAttribute):
    """`#gpu<all_reduce_op ...>` with the kinds of every MLIR from 16 to 22."""

    name = "gpu.all_reduce_op"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> GPUReduceKind:
        pos = parser.pos
        number = parser.parse_optional_integer()
        if number is not None:
            parser.raise_error(
                f"gpu reduction kind {number} is a number, which MLIR versions "
                "number differently; write the kind's keyword (add, minsi, ...)",
                pos,
            )
        kind: GPUReduceKind = parse_enum_keyword(
            parser, GPUReduceKind, "gpu reduction kind"
        )
        return kind


@irdl_op_definition
class AllReduceOp(IRDLOperation):
    """`gpu.all_reduce` with the kinds of every MLIR from 16 to 22: a kind or
    a region whose block combines two values (`gpu.yield`)."""

    name = "gpu.all_reduce"
    op = opt_prop_def(GPUReduceKindAttr)
    uniform = opt_prop_def(UnitAttr)
    operand = operand_def(SHUFFLED)
    result = result_def(SHUFFLED)
    body = region_def()
    traits = traits_def(IsolatedFromAbove())

    def verify_(self) -> None:
        if (self.op is not None) == bool(self.body.blocks):
            raise VerifyException("needs either a kind or a non-empty region")
        if self.body.blocks:
            args = self.body.blocks[0].arg_types
            if args != (self.operand.type, self.operand.type):
                raise VerifyException(
                    f"has a region whose block takes {[str(t) for t in args]}; "
                    f"expected two {self.operand.type}"
                )


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """`gpu.subgroup_reduce` (the kinds of every MLIR from 16 to 22;
    `cluster_size` and `cluster_stride` from MLIR 19 on)."""

    name = "gpu.subgroup_reduce"
    op = prop_def(GPUReduceKindAttr)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr)
    cluster_stride = opt_prop_def(IntegerAttr)
    value = operand_def(SHUFFLED)
    result = result_def(SHUFFLED)


GPU = Dialect(
    "gpu",
    [
        *(op for op in gpu.GPU.operations if op is not gpu.AllReduceOp),
        AllReduceOp,
        ModuleEndOp,
        ShuffleOp,
        SubgroupReduceOp,
        PrintfOp,
        *MMA_OPS,
    ],
    [
        *(a for a in gpu.GPU.attributes if a is not gpu.AllReduceOpAttr),
        GPUReduceKindAttr,
        GPUAddressSpaceAttr,
        GPUShuffleModeAttr,
        MMAMatrixType,
        MMAElementwiseAttr,
    ],
)
