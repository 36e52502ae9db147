"""Translators of the subgroup ops (dialects/subgroup.py).

What a shuffle means is computed here once, in integer arithmetic every target
shares (`shuffle_source`): which lane each thread reads and whether it exists.
A target then only reads another lane's value (`SubgroupTarget.read_lane`:
`shfl.sync.idx` on ptx, `sub_group_shuffle` on spirv) and reduces
(`SubgroupTarget.subgroup_reduce`). The native target runs collectives in its
work-group functions itself (gpuc/targets/work_items.py), with the same
arithmetic; the subgroup index ops there, and on ptx, are computed from the
thread index (`warp_index`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from llvmlite import ir
from xdsl.ir import Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.subgroup import (
    NumSubgroupsOp,
    ReduceKind,
    ShuffleMode,
    ShuffleOp,
    SubgroupIdOp,
    SubgroupIndexOp,
    SubgroupReduceOp,
    SubgroupSizeOp,
)
from gpuc.lowering.context import FunctionLowering, translates

INDEX_KINDS: dict[type[SubgroupIndexOp], str] = {
    SubgroupIdOp: "subgroup_id",
    SubgroupSizeOp: "subgroup_size",
    NumSubgroupsOp: "num_subgroups",
}
WARP_LANES = 32
"""Lanes of a subgroup where the target fixes it (ptx, native)."""


@runtime_checkable
class SubgroupTarget(Protocol):
    """What a target provides to lower subgroup collectives."""

    def subgroup_index(self, fl: FunctionLowering, kind: str) -> ir.Value:
        """`kind` (subgroup_id, subgroup_size, num_subgroups, lane_id or
        max_subgroup_size, the size every subgroup but a block's last has) as
        an `index` value."""
        ...

    def read_lane(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, lane: ir.Value
    ) -> ir.Value:
        """`value` of subgroup lane `lane` (an i32 every thread computes)."""
        ...

    def subgroup_reduce(
        self, fl: FunctionLowering, op: Operation, kind: ReduceKind, value: ir.Value
    ) -> ir.Value:
        """The reduction of `value` over the thread's subgroup."""
        ...


def warp_index(fl: FunctionLowering, kind: str, lanes: int = WARP_LANES) -> ir.Value:
    """`kind` (as `SubgroupTarget.subgroup_index`) for subgroups of `lanes`
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


def combine(b: ir.IRBuilder, kind: ReduceKind, x: ir.Value, y: ir.Value) -> ir.Value:
    """`x <kind> y` (min and max signed on integers, IEEE minNum/maxNum on floats)."""
    floating = isinstance(x.type, ir.FloatType | ir.DoubleType)
    if kind == ReduceKind.ADD:
        return b.fadd(x, y) if floating else b.add(x, y)
    if kind == ReduceKind.MUL:
        return b.fmul(x, y) if floating else b.mul(x, y)
    if kind in (ReduceKind.MIN, ReduceKind.MAX):
        if floating:
            name = "llvm.minnum" if kind == ReduceKind.MIN else "llvm.maxnum"
            module = b.module
            fn = module.globals.get(f"{name}.{_suffix(x.type)}")
            if not isinstance(fn, ir.Function):
                fn = ir.Function(
                    module,
                    ir.FunctionType(x.type, [x.type, x.type]),
                    f"{name}.{_suffix(x.type)}",
                )
            return b.call(fn, [x, y])
        keep = b.icmp_signed("<" if kind == ReduceKind.MIN else ">", x, y)
        return b.select(keep, x, y)
    if kind == ReduceKind.AND:
        return b.and_(x, y)
    if kind == ReduceKind.OR:
        return b.or_(x, y)
    return b.xor(x, y)


def _suffix(ty: ir.Type) -> str:
    return "f32" if isinstance(ty, ir.FloatType) else "f64"


def butterfly_reduce(
    fl: FunctionLowering,
    op: Operation,
    target: SubgroupTarget,
    kind: ReduceKind,
    value: ir.Value,
    lanes: int = WARP_LANES,
) -> ir.Value:
    """A reduction over `lanes` lanes by xor shuffles (every lane ends with
    the whole subgroup's result): log2(lanes) steps."""
    b = fl.builder
    i32 = ir.IntType(32)
    lane = b.trunc(target.subgroup_index(fl, "lane_id"), i32)
    step = lanes // 2
    while step:
        other = target.read_lane(fl, op, value, b.xor(lane, ir.Constant(i32, step)))
        value = combine(b, kind, value, other)
        step //= 2
    return value


def _target(fl: FunctionLowering, op: Operation) -> SubgroupTarget | None:
    """The target's subgroup hooks; None for a target that runs collectives
    outside this translation (native: an internal helper's translation never
    runs, its calls are inlined into the kernel's work-group function, which
    lowers the op itself)."""
    target = fl.target
    if isinstance(target, SubgroupTarget):
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
    target = fl.target
    kind = INDEX_KINDS[type(op)]
    if isinstance(target, SubgroupTarget):
        fl.set(op, target.subgroup_index(fl, kind))
    else:
        fl.set(op, warp_index(fl, kind))
