"""Regrouped sums sunk into the branch that computes what they add.

A derivative kernel (gpuc/transforms/deferred_kernels.py) sums each thread's
scalar adjoints into shared memory with `gpuc.regrouped` atomic adds. Once
its job is inlined, what each thread adds is the result of the job's guard,
`%r = scf.if %in -> (f32) { ...; yield %v } else { yield 0.0 }`, and the add
follows it. A thread past the bound adds zero, which a `regrouped` add may
leave out (its sum's grouping, and so the sign of a zero sum, is not
specified), so the add moves into the `then` branch and the `scf.if` loses
its results and else branch. That is the shape the native work-group
lowering runs without testing each thread (`work_groups.py`, `_x_guard`):
only the threads below the bound, and without masked vector loads and
stores.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from gpuc.dialects.attrs import AtomicKind
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.memory import REGROUPED, AtomicRMWOp
from gpuc.targets.native.uniformity import computes_only


def sink_regrouped_sums(func: FuncOp) -> bool:
    """Sink the regrouped adds of `func` into the guards that compute them;
    whether it did any (each replaces its `scf.if`, which the call graph
    lists: the caller forgets the graph then)."""
    sunk = False
    for op in list(func.walk()):
        if isinstance(op, scf.IfOp):
            sunk = _sink(op) or sunk
    return sunk


def _zero(value: SSAValue) -> bool:
    owner = value.owner
    return (
        isinstance(owner, arith.ConstantOp)
        and isinstance(owner.value, FloatAttr)
        and owner.value.value.data == 0.0
    )


def _adds(op: scf.IfOp) -> list[AtomicRMWOp] | None:
    """The regrouped add of each result of `op`, if those are their only uses,
    they follow `op` with only pure ops between, their addresses are
    defined before `op`, and the else branch yields zeros."""
    if not op.results or not op.false_region.blocks:
        return None
    else_yield = op.false_region.block.last_op
    assert isinstance(else_yield, scf.YieldOp)
    if not all(_zero(v) for v in else_yield.operands):
        return None
    adds: list[AtomicRMWOp] = []
    for result in op.results:
        uses = list(result.uses)
        if len(uses) != 1:
            return None
        add = uses[0].operation
        if (
            not isinstance(add, AtomicRMWOp)
            or REGROUPED not in add.attributes
            or add.kind.data != AtomicKind.ADD
            or add.value is not result
            or add.result.uses
            or add.parent_block() is not op.parent_block()
        ):
            return None
        adds.append(add)
    block = op.parent_block()
    assert block is not None
    position = block.get_operation_index(op)
    last = max(block.get_operation_index(a) for a in adds)
    for between in list(block.ops)[position + 1 : last]:
        if between not in adds and not computes_only(between):
            return None
    for add in adds:
        for operand in (add.ptr, add.index):
            owner = operand.owner if operand is not None else None
            if (
                isinstance(owner, Operation)
                and owner.parent_block() is block
                and block.get_operation_index(owner) > position
            ):
                return None
    return adds


def _sink(op: scf.IfOp) -> bool:
    adds = _adds(op)
    if adds is None:
        return False
    block = op.parent_block()
    assert block is not None
    then_yield = op.true_region.block.last_op
    assert isinstance(then_yield, scf.YieldOp)
    for add, value in zip(adds, then_yield.operands, strict=True):
        block.detach_op(add)
        add.operands[len(add.operands) - 1] = value
        op.true_region.block.insert_op_before(add, then_yield)
    Rewriter.replace_op(then_yield, scf.YieldOp())
    body = op.true_region.detach_block(0)
    block.insert_op_before(scf.IfOp(op.cond, [], Region(body)), op)
    block.detach_op(op).erase()
    return True
