"""Subgroup (warp) collectives: `gpuc.shuffle`, `gpuc.subgroup_reduce`,
`gpuc.vote`, `gpuc.ballot`, and the subgroup's ids and sizes.

A subgroup is the set of threads that run in lockstep: a warp of 32 on ptx and
native, an OpenCL sub-group (whose size the runtime picks) on spirv. Every
thread of a subgroup must reach a collective together, as they must a barrier,
so the dialect-level analysis treats a collective as a synchronization point
(gpuc/dialects/analysis.py): its results depend on other threads' values.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    i1,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from gpuc.dialects.index import require_function_ancestor
from gpuc.dialects.traits import ReadsKernelState


class ShuffleMode(StrEnum):
    XOR = auto()
    UP = auto()
    DOWN = auto()
    IDX = auto()


class ReduceKind(StrEnum):
    ADD = auto()
    MUL = auto()
    MIN = auto()
    MAX = auto()
    UMIN = auto()
    UMAX = auto()
    MINIMUM = auto()
    MAXIMUM = auto()
    AND = auto()
    OR = auto()
    XOR = auto()


INTEGER_ONLY_KINDS = {
    ReduceKind.UMIN,
    ReduceKind.UMAX,
    ReduceKind.AND,
    ReduceKind.OR,
    ReduceKind.XOR,
}
FLOAT_ONLY_KINDS = {ReduceKind.MINIMUM, ReduceKind.MAXIMUM}
BALLOT_WIDTHS = (32, 64)
"""Widths of a `gpuc.ballot` mask."""


class VoteKind(StrEnum):
    ANY = auto()
    ALL = auto()


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.shuffle_mode"


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.reduce_kind"


@irdl_attr_definition
class VoteKindAttr(EnumAttribute[VoteKind], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.vote_kind"


VALUE = VarConstraint("VALUE", AnyAttr())
"""The value a collective exchanges; `verify_` checks it (`check_value`)."""


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`%r, %valid = gpuc.shuffle xor %v, %offset [, width %w] : f32`: each
    thread reads `%v` of another lane of its segment of `width` lanes (the
    subgroup by default); `valid` is false where that lane does not exist,
    and `%r` is then the thread's own `%v`."""

    name = "gpuc.shuffle"
    mode = prop_def(ShuffleModeAttr)
    value = operand_def(VALUE)
    offset = operand_def(i32)
    width = opt_operand_def(i32)
    result = result_def(VALUE)
    valid = result_def(i1)
    traits = traits_def(ReadsKernelState())
    assembly_format = (
        "$mode $value `,` $offset (`,` `width` $width^)? attr-dict `:` type($value)"
    )

    def __init__(
        self,
        mode: ShuffleMode,
        value: SSAValue | Operation,
        offset: SSAValue | Operation,
        width: SSAValue | Operation | None = None,
    ):
        ty = SSAValue.get(value).type
        super().__init__(
            operands=[value, offset, [] if width is None else [width]],
            properties={"mode": ShuffleModeAttr(mode)},
            result_types=[ty, i1],
        )

    def verify_(self) -> None:
        require_function_ancestor(self)
        check_value(self.value.type)


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """`%r = gpuc.subgroup_reduce add %v : f32`: every thread of the subgroup
    gets the reduction of all its threads' `%v` (min and max are signed on
    integers and minNum/maxNum on floats; umin and umax unsigned; minimum
    and maximum propagate NaN, as arith.minimumf)."""

    name = "gpuc.subgroup_reduce"
    kind = prop_def(ReduceKindAttr)
    value = operand_def(VALUE)
    result = result_def(VALUE)
    traits = traits_def(ReadsKernelState())
    assembly_format = "$kind $value attr-dict `:` type($value)"

    def __init__(self, kind: ReduceKind, value: SSAValue | Operation):
        super().__init__(
            operands=[value],
            properties={"kind": ReduceKindAttr(kind)},
            result_types=[SSAValue.get(value).type],
        )

    def verify_(self) -> None:
        require_function_ancestor(self)
        check_value(self.value.type)
        kind = self.kind.data
        if kind in INTEGER_ONLY_KINDS and not isinstance(self.value.type, IntegerType):
            raise VerifyException(
                f"reduces with '{kind.value}', which needs an integer type, "
                f"not {self.value.type}"
            )
        if kind in FLOAT_ONLY_KINDS and isinstance(self.value.type, IntegerType):
            raise VerifyException(
                f"reduces with '{kind.value}', which needs a float type, "
                f"not {self.value.type}"
            )


@irdl_op_definition
class VoteOp(IRDLOperation):
    """`%r = gpuc.vote any|all %p`: whether the predicate `%p` holds for any
    (all) of the subgroup's threads; every thread gets the same answer."""

    name = "gpuc.vote"
    kind = prop_def(VoteKindAttr)
    value = operand_def(i1)
    result = result_def(i1)
    traits = traits_def(ReadsKernelState())
    assembly_format = "$kind $value attr-dict"

    def __init__(self, kind: VoteKind, value: SSAValue | Operation):
        super().__init__(
            operands=[value],
            properties={"kind": VoteKindAttr(kind)},
            result_types=[i1],
        )

    def verify_(self) -> None:
        require_function_ancestor(self)


@irdl_op_definition
class BallotOp(IRDLOperation):
    """`%b = gpuc.ballot %p : i32`: bit `i` of `%b` is set where lane `i`'s
    predicate holds (lanes from the result's width on are left out); every
    thread gets the same mask."""

    name = "gpuc.ballot"
    value = operand_def(i1)
    result = result_def(IntegerType)
    traits = traits_def(ReadsKernelState())
    assembly_format = "$value attr-dict `:` type($result)"

    def __init__(self, value: SSAValue | Operation, width: int = 32):
        super().__init__(operands=[value], result_types=[IntegerType(width)])

    def verify_(self) -> None:
        require_function_ancestor(self)
        if self.result.type.width.data not in BALLOT_WIDTHS:
            raise VerifyException(
                f"gives a mask of type {self.result.type}; expected i32 or i64"
            )


class SubgroupIndexOp(IRDLOperation):
    """Base of the subgroup index ops: `%i = gpuc.<op>`, an `index`. Those
    that differ between threads have no memory-effect trait, so that the
    native target's analyses (gpuc/targets/native/uniformity.py, thread_guards.py)
    never take them for a block-wide value."""

    result = result_def(IndexType)
    traits = traits_def(ReadsKernelState())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        require_function_ancestor(self)


@irdl_op_definition
class SubgroupIdOp(SubgroupIndexOp):
    """The subgroup's index within its block."""

    name = "gpuc.subgroup_id"


@irdl_op_definition
class SubgroupSizeOp(SubgroupIndexOp):
    """Threads per subgroup (the last subgroup of a block may have fewer)."""

    name = "gpuc.subgroup_size"


@irdl_op_definition
class NumSubgroupsOp(SubgroupIndexOp):
    """Subgroups per block."""

    name = "gpuc.num_subgroups"
    traits = traits_def(NoMemoryEffect(), ReadsKernelState())


COLLECTIVE_OPS = (ShuffleOp, SubgroupReduceOp, VoteOp, BallotOp)
"""Ops every thread of a subgroup must reach together, like a barrier."""


def check_value(ty: Attribute) -> None:
    """Raise unless a subgroup collective takes values of type `ty`: the 32-
    and 64-bit scalars (what every target's shuffles exchange)."""
    if isinstance(ty, Float32Type | Float64Type) or (
        isinstance(ty, IntegerType) and ty.width.data in (32, 64)
    ):
        return
    raise VerifyException(f"exchanges {ty}; expected i32, i64, f32 or f64")
