"""Translators of the subgroup ops (gpuc/dialects/subgroup.py).

What a shuffle means is computed here once, in integer arithmetic every target
shares (`shuffle_source`): which lane each thread reads and whether it exists.
A target then only reads another lane's value (`Target.read_lane`:
`shfl.sync.idx` on ptx, `sub_group_shuffle` on spirv), reduces
(`Target.subgroup_reduce`) and votes (`vote`, `ballot`). The
native target runs collectives in its work-group functions itself
(gpuc/targets/native/work_groups.py), with the same arithmetic, folding in lane order
(`lane_first`, `lane_step`); the subgroup index ops there, and on ptx, are
computed from the thread index (`warp_index`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from llvmlite import ir
from xdsl.ir import Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.subgroup import (
    BallotOp,
    NumSubgroupsOp,
    ReduceKind,
    ShuffleMode,
    ShuffleOp,
    SubgroupIdOp,
    SubgroupIndexOp,
    SubgroupReduceOp,
    SubgroupSizeOp,
    VoteKind,
    VoteOp,
)
from gpuc.lowering.context import FunctionLowering, translates

if TYPE_CHECKING:
    from gpuc.targets.base import Target

INDEX_KINDS: dict[type[SubgroupIndexOp], str] = {
    SubgroupIdOp: "subgroup_id",
    SubgroupSizeOp: "subgroup_size",
    NumSubgroupsOp: "num_subgroups",
}
WARP_LANES = 32
"""Lanes of a subgroup where the target fixes it (ptx, native)."""


def warp_index(fl: FunctionLowering, kind: str, lanes: int = WARP_LANES) -> ir.Value:
    """`kind` (as `Target.subgroup_index`) for subgroups of `lanes`
    consecutive threads in linear thread order (x fastest), as CUDA's warps."""
    b, target = fl.builder, fl.target
    width = ir.Constant(fl.ml.index_type, lanes)
    if kind == "max_subgroup_size":
        return width
    dim = [target.index(fl, "block_dim", d) for d in range(3)]
    threads = b.mul(b.mul(dim[0], dim[1]), dim[2])
    if kind == "num_subgroups":  # the same for the whole block: no thread index
        return b.udiv(b.add(threads, ir.Constant(width.type, lanes - 1)), width)
    tid = [target.index(fl, "thread_id", d) for d in range(3)]
    linear = b.add(b.mul(b.add(b.mul(tid[2], dim[1]), tid[1]), dim[0]), tid[0])
    if kind == "lane_id":
        return b.urem(linear, width)
    if kind == "subgroup_id":
        return b.udiv(linear, width)
    assert kind == "subgroup_size", kind
    rest = b.sub(threads, b.sub(linear, b.urem(linear, width)))
    return b.select(b.icmp_unsigned("<", rest, width), rest, width)


def by_words(
    b: ir.IRBuilder, value: ir.Value, read: Callable[[ir.Value], ir.Value]
) -> ir.Value:
    """`read` (an i32 to i32 exchange) applied to `value`: once for 32 bits,
    to each half of 64."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    if value.type not in (i64, ir.DoubleType()):
        return b.bitcast(read(b.bitcast(value, i32)), value.type)
    bits = b.bitcast(value, i64)
    low = read(b.trunc(bits, i32))
    high = read(b.trunc(b.lshr(bits, ir.Constant(i64, 32)), i32))
    joined = b.or_(b.shl(b.zext(high, i64), ir.Constant(i64, 32)), b.zext(low, i64))
    return b.bitcast(joined, value.type)


def shuffle_source(
    b: ir.IRBuilder,
    mode: ShuffleMode,
    lane: ir.Value,
    offset: ir.Value,
    width: ir.Value,
    size: ir.Value,
) -> tuple[ir.Value, ir.Value]:
    """(source lane, valid) of a shuffle, all of `lane`'s type: the lanes form
    segments of `width`; `offset` picks a lane of the thread's segment (xor:
    position ^ offset, up: position - offset, down: position + offset, idx:
    offset), valid where that position is inside the segment and the lane
    inside the subgroup's `size` lanes. An invalid source is the lane itself."""
    zero = ir.Constant(lane.type, 0)
    width = b.select(
        b.icmp_unsigned("==", width, zero), ir.Constant(lane.type, 1), width
    )
    position = b.urem(lane, width)
    segment = b.sub(lane, position)
    if mode == ShuffleMode.XOR:
        source = b.xor(position, offset)
        inside = b.icmp_unsigned("<", source, width)
    elif mode == ShuffleMode.UP:
        source = b.sub(position, offset)
        inside = b.icmp_unsigned("<=", offset, position)
    elif mode == ShuffleMode.DOWN:
        source = b.add(position, offset)
        inside = b.and_(
            b.icmp_unsigned("<", offset, width), b.icmp_unsigned("<", source, width)
        )
    else:
        source = offset
        inside = b.icmp_unsigned("<", source, width)
    lane_of = b.add(segment, source)
    valid = b.and_(inside, b.icmp_unsigned("<", lane_of, size))
    return b.select(valid, lane_of, lane), valid


FLOAT_MINMAX = {
    ReduceKind.MIN: "llvm.minnum",
    ReduceKind.MAX: "llvm.maxnum",
    ReduceKind.MINIMUM: "llvm.minimum",
    ReduceKind.MAXIMUM: "llvm.maximum",
}
INTEGER_MINMAX = {
    ReduceKind.MIN: ("<", True),
    ReduceKind.MAX: (">", True),
    ReduceKind.UMIN: ("<", False),
    ReduceKind.UMAX: (">", False),
}
"""Kind -> (the comparison that keeps the left operand, signed)."""


def combine(b: ir.IRBuilder, kind: ReduceKind, x: ir.Value, y: ir.Value) -> ir.Value:
    """`x <kind> y` (min and max signed on integers, IEEE minNum/maxNum on
    floats; umin and umax unsigned; minimum and maximum IEEE 754-2019's)."""
    floating = isinstance(x.type, ir.FloatType | ir.DoubleType)
    if kind == ReduceKind.ADD:
        return b.fadd(x, y) if floating else b.add(x, y)
    if kind == ReduceKind.MUL:
        return b.fmul(x, y) if floating else b.mul(x, y)
    if kind in INTEGER_MINMAX and not floating:
        keep, signed = INTEGER_MINMAX[kind]
        compare = b.icmp_signed if signed else b.icmp_unsigned
        return b.select(compare(keep, x, y), x, y)
    if kind in FLOAT_MINMAX and floating:
        name = f"{FLOAT_MINMAX[kind]}.{_suffix(x.type)}"
        fn = b.module.globals.get(name)
        if not isinstance(fn, ir.Function):
            fn = ir.Function(b.module, ir.FunctionType(x.type, [x.type, x.type]), name)
        return b.call(fn, [x, y])
    if kind == ReduceKind.AND:
        return b.and_(x, y)
    if kind == ReduceKind.OR:
        return b.or_(x, y)
    return b.xor(x, y)


def _suffix(ty: ir.Type) -> str:
    return "f32" if isinstance(ty, ir.FloatType) else "f64"


def lane_first(
    b: ir.IRBuilder, op: SubgroupReduceOp | VoteOp | BallotOp, value: ir.Value
) -> ir.Value:
    """What a fold in lane order starts from: lane 0's `value` (as the
    ballot's mask)."""
    if isinstance(op, BallotOp):
        return b.zext(value, ir.IntType(op.result.type.width.data))
    return value


def lane_step(
    b: ir.IRBuilder,
    op: SubgroupReduceOp | VoteOp | BallotOp,
    acc: ir.Value,
    value: ir.Value,
    lane: ir.Value,
) -> ir.Value:
    """`acc` folded with lane `lane`'s `value`, for a fold in lane order (the
    native target's): a reduction's step, a vote's or/and, a ballot's bit
    (0 from the mask's width on)."""
    if isinstance(op, SubgroupReduceOp):
        return combine(b, op.kind.data, acc, value)
    if isinstance(op, VoteOp):
        return b.or_(acc, value) if op.kind.data == VoteKind.ANY else b.and_(acc, value)
    fits = b.icmp_unsigned("<", lane, ir.Constant(lane.type, acc.type.width))
    bit = b.shl(b.zext(value, acc.type), resize(b, lane, acc.type))
    return b.select(fits, b.or_(acc, bit), acc)


def resize(b: ir.IRBuilder, value: ir.Value, ty: ir.IntType) -> ir.Value:
    """The unsigned integer `value` as a `ty` (truncated or zero-extended)."""
    width = value.type.width
    if width == ty.width:
        return value
    return b.trunc(value, ty) if width > ty.width else b.zext(value, ty)


def exact_minmax(
    b: ir.IRBuilder,
    kind: ReduceKind,
    value: ir.Value,
    reduced: ir.Value,
    any_lane: Callable[[ir.Value], ir.Value],
) -> ir.Value:
    """A minimum (maximum) reduction from `reduced`, the subgroup's min (max)
    of `value` by a reduction that may ignore NaN and pick either zero:
    NaN where any lane's `value` is NaN, -0 (+0) where the result is a zero
    and any lane's is -0 (+0). `any_lane` votes over the subgroup."""
    bits = ir.IntType(32 if isinstance(value.type, ir.FloatType) else 64)
    minimum = kind == ReduceKind.MINIMUM
    zero = ir.Constant(value.type, -0.0 if minimum else 0.0)
    zero_bits = b.bitcast(zero, bits)
    has_zero = any_lane(b.icmp_unsigned("==", b.bitcast(value, bits), zero_bits))
    is_zero = b.fcmp_ordered("==", reduced, ir.Constant(value.type, 0.0))
    result = b.select(b.and_(is_zero, has_zero), zero, reduced)
    has_nan = any_lane(b.fcmp_unordered("uno", value, value))
    return b.select(has_nan, ir.Constant(value.type, float("nan")), result)


def numeric_minmax(
    b: ir.IRBuilder,
    kind: ReduceKind,
    value: ir.Value,
    reduce: Callable[[ir.Value], ir.Value],
    all_lanes: Callable[[ir.Value], ir.Value],
) -> ir.Value:
    """A minNum (maxNum) reduction by `reduce`, a min (max) reduction that
    may propagate NaN (Intel's OpenCL runtimes do): NaN lanes take part as
    +inf (-inf), and the result is NaN only where every lane's is."""
    nan = b.fcmp_unordered("uno", value, value)
    inf = ir.Constant(value.type, float("inf" if kind == ReduceKind.MIN else "-inf"))
    reduced = reduce(b.select(nan, inf, value))
    return b.select(all_lanes(nan), ir.Constant(value.type, float("nan")), reduced)


def vote_by_ballot(
    b: ir.IRBuilder, kind: VoteKind, mask: ir.Value, active: ir.Value
) -> ir.Value:
    """A vote from the ballot `mask` of the predicate and that of the
    subgroup's lanes (`active`)."""
    if kind == VoteKind.ANY:
        return b.icmp_unsigned("!=", mask, ir.Constant(mask.type, 0))
    return b.icmp_unsigned("==", mask, active)


def subgroup_lanes_mask(b: ir.IRBuilder, size: ir.Value, width: int) -> ir.Value:
    """An i`width` with the low `size` bits set (`size` <= `width`, of any
    integer type): the lanes of a subgroup of `size` threads."""
    ty = ir.IntType(width)
    n = resize(b, size, ty)
    full = b.icmp_unsigned(">=", n, ir.Constant(ty, width))
    low = b.sub(b.shl(ir.Constant(ty, 1), n), ir.Constant(ty, 1))
    return b.select(full, ir.Constant(ty, -1), low)


def shuffle_tree_reduce(
    fl: FunctionLowering,
    op: Operation,
    target: Target,
    kind: ReduceKind,
    value: ir.Value,
    lanes: int = WARP_LANES,
) -> ir.Value:
    """A reduction over the subgroup's lanes (at most `lanes`) by shuffles:
    log2(lanes) steps down, lane i taking lane i + step's value where that
    lane exists, then lane 0's result read by every lane. A block's last
    subgroup may have fewer lanes; a missing lane is never read (its register
    is undefined), and what it would have held is the reduction of lanes
    past it, which are missing too."""
    b = fl.builder
    i32 = ir.IntType(32)
    lane = b.trunc(target.subgroup_index(fl, "lane_id"), i32)
    size = b.trunc(target.subgroup_index(fl, "subgroup_size"), i32)
    step = lanes // 2
    while step:
        source = b.add(lane, ir.Constant(i32, step))
        exists = b.icmp_unsigned("<", source, size)
        other = target.read_lane(fl, op, value, b.select(exists, source, lane))
        value = b.select(exists, combine(b, kind, value, other), value)
        step //= 2
    return target.read_lane(fl, op, value, ir.Constant(i32, 0))


def _target(fl: FunctionLowering, op: Operation) -> Target | None:
    """The target's subgroup hooks; None for a target that runs collectives
    outside this translation (native: an internal helper's translation never
    runs, its calls are inlined into the kernel's work-group function, which
    lowers the op itself)."""
    target = fl.target
    if target.subgroup_collectives:
        return target
    if not fl.func.is_kernel and fl.fn.linkage == "internal":
        return None
    raise OpError(op, f"the {target.name} target cannot lower '{op.name}'")


@translates(ShuffleOp)
def translate_shuffle(op: ShuffleOp, fl: FunctionLowering) -> None:
    value = fl.get(op.value)
    target = _target(fl, op)
    if target is None:
        fl.set(op, ir.Constant(value.type, ir.Undefined), ir.Constant(ir.IntType(1), 0))
        return
    b = fl.builder
    index = fl.ml.index_type
    lane = target.subgroup_index(fl, "lane_id")
    width = (
        b.zext(fl.get(op.width), index)
        if op.width is not None
        else target.subgroup_index(fl, "max_subgroup_size")
    )
    source, valid = shuffle_source(
        b,
        op.mode.data,
        lane,
        b.zext(fl.get(op.offset), index),
        width,
        target.subgroup_index(fl, "subgroup_size"),
    )
    read = target.read_lane(fl, op, value, b.trunc(source, ir.IntType(32)))
    fl.set(op, b.select(valid, read, value), valid)


@translates(SubgroupReduceOp)
def translate_subgroup_reduce(op: SubgroupReduceOp, fl: FunctionLowering) -> None:
    value = fl.get(op.value)
    target = _target(fl, op)
    if target is None:
        fl.set(op, ir.Constant(value.type, ir.Undefined))
        return
    fl.set(op, target.subgroup_reduce(fl, op, op.kind.data, value))


@translates(SubgroupIdOp, SubgroupSizeOp, NumSubgroupsOp)
def translate_subgroup_index(op: SubgroupIndexOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.target.subgroup_index(fl, INDEX_KINDS[type(op)]))


@translates(VoteOp)
def translate_vote(op: VoteOp, fl: FunctionLowering) -> None:
    target = _target(fl, op)
    if target is None:
        fl.set(op, ir.Constant(ir.IntType(1), ir.Undefined))
        return
    fl.set(op, target.vote(fl, op, op.kind.data, fl.get(op.value)))


@translates(BallotOp)
def translate_ballot(op: BallotOp, fl: FunctionLowering) -> None:
    width = op.result.type.width.data
    target = _target(fl, op)
    if target is None:
        fl.set(op, ir.Constant(ir.IntType(width), ir.Undefined))
        return
    fl.set(op, target.ballot(fl, op, fl.get(op.value), width))
