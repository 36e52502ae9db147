"""Translators of structured control flow, straight to basic blocks and phis
(no round trip through cf): `scf.if`, `scf.for` (signed bounds, like MLIR),
`scf.while`, `scf.index_switch` and `scf.execute_region` (of any number of
blocks). Each translator handles its regions' terminators (`scf.yield`,
`scf.condition`) itself."""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir
from xdsl.dialects import scf
from xdsl.ir import Block, Region

from gpuc.lowering.context import FunctionLowering, translates

REGION_TERMINATORS = (scf.YieldOp, scf.ConditionOp)
"""Translated by the structured op whose region they end, never on their own."""


def single_block(region: Region) -> Block:
    block = region.blocks.first
    assert block is not None
    return block


def translate_inline(fl: FunctionLowering, block: Block) -> list[ir.Value]:
    """Translate `block`'s ops; return the values its terminator yields."""
    fl.translate_ops(block, skip_terminator=True)
    terminator = block.last_op
    assert terminator is not None
    return [fl.get(v) for v in terminator.operands]


def merge_block(
    fl: FunctionLowering, name: str, types: Sequence[ir.Type]
) -> tuple[ir.Block, list[ir.PhiInstr]]:
    """A new block with one phi per type (the results of a structured op)."""
    block = fl.builder.append_basic_block(name)
    if not types:
        return block, []
    with fl.builder.goto_block(block):
        phis = [fl.builder.phi(ty) for ty in types]
    return block, phis


def jump(
    fl: FunctionLowering,
    target: ir.Block,
    phis: Sequence[ir.PhiInstr],
    values: Sequence[ir.Value],
) -> None:
    for phi, value in zip(phis, values, strict=True):
        phi.add_incoming(value, fl.builder.block)
    fl.builder.branch(target)


@translates(scf.IfOp)
def translate_if(op: scf.IfOp, fl: FunctionLowering) -> None:
    b = fl.builder
    then_bb = b.append_basic_block("if.then")
    has_else = bool(op.false_region.blocks)
    else_bb = b.append_basic_block("if.else") if has_else else None
    end_bb, phis = merge_block(fl, "if.end", [fl.type(r.type) for r in op.output])
    b.cbranch(fl.get(op.cond), then_bb, else_bb or end_bb)
    b.position_at_end(then_bb)
    jump(fl, end_bb, phis, translate_inline(fl, single_block(op.true_region)))
    if else_bb is not None:
        b.position_at_end(else_bb)
        jump(fl, end_bb, phis, translate_inline(fl, single_block(op.false_region)))
    b.position_at_end(end_bb)
    fl.set(op, *phis)


@translates(scf.ForOp)
def translate_for(op: scf.ForOp, fl: FunctionLowering) -> None:
    b = fl.builder
    body = single_block(op.body)
    types = [fl.type(v.type) for v in op.iter_args]
    lb, ub, step = fl.get(op.lb), fl.get(op.ub), fl.get(op.step)
    head, head_phis = merge_block(fl, "for.head", [lb.type, *types])
    body_bb = b.append_basic_block("for.body")
    end_bb = b.append_basic_block("for.end")
    jump(fl, head, head_phis, [lb, *fl.operands(op)[3:]])
    b.position_at_end(head)
    iv = head_phis[0]
    b.cbranch(b.icmp_signed("<", iv, ub), body_bb, end_bb)
    b.position_at_end(body_bb)
    for arg, value in zip(body.args, head_phis, strict=True):
        fl.bind(arg, value)
    yielded = translate_inline(fl, body)
    jump(fl, head, head_phis, [b.add(iv, step, flags=["nsw"]), *yielded])
    b.position_at_end(end_bb)
    fl.set(op, *head_phis[1:])


@translates(scf.WhileOp)
def translate_while(op: scf.WhileOp, fl: FunctionLowering) -> None:
    b = fl.builder
    before, after = single_block(op.before_region), single_block(op.after_region)
    before_bb, before_phis = merge_block(
        fl, "while.cond", [fl.type(a.type) for a in before.args]
    )
    after_bb, after_phis = merge_block(
        fl, "while.body", [fl.type(a.type) for a in after.args]
    )
    end_bb, end_phis = merge_block(fl, "while.end", [fl.type(r.type) for r in op.res])
    jump(fl, before_bb, before_phis, fl.operands(op))
    b.position_at_end(before_bb)
    for arg, value in zip(before.args, before_phis, strict=True):
        fl.bind(arg, value)
    condition, *args = translate_inline(fl, before)
    for phis in (after_phis, end_phis):
        for phi, value in zip(phis, args, strict=True):
            phi.add_incoming(value, b.block)
    b.cbranch(condition, after_bb, end_bb)
    b.position_at_end(after_bb)
    for arg, value in zip(after.args, after_phis, strict=True):
        fl.bind(arg, value)
    jump(fl, before_bb, before_phis, translate_inline(fl, after))
    b.position_at_end(end_bb)
    fl.set(op, *end_phis)


@translates(scf.IndexSwitchOp)
def translate_index_switch(op: scf.IndexSwitchOp, fl: FunctionLowering) -> None:
    b = fl.builder
    end_bb, phis = merge_block(fl, "switch.end", [fl.type(r.type) for r in op.output])
    default_bb = b.append_basic_block("switch.default")
    switch = b.switch(fl.get(op.arg), default_bb)
    cases = op.cases.get_values()
    for value, region in zip(cases, op.case_regions, strict=True):
        case_bb = b.append_basic_block(f"switch.case{value}")
        switch.add_case(ir.Constant(fl.ml.index_type, value), case_bb)
        b.position_at_end(case_bb)
        jump(fl, end_bb, phis, translate_inline(fl, single_block(region)))
    b.position_at_end(default_bb)
    jump(fl, end_bb, phis, translate_inline(fl, single_block(op.default_region)))
    b.position_at_end(end_bb)
    fl.set(op, *phis)


@translates(scf.ExecuteRegionOp)
def translate_execute_region(op: scf.ExecuteRegionOp, fl: FunctionLowering) -> None:
    """The region's blocks (any number: the inliner puts a multi-block callee
    into one inside a single-block region) inline in the CFG; each `scf.yield`
    branches to a merge block whose phis are the results."""
    b = fl.builder
    end_bb, phis = merge_block(fl, "region.end", [fl.type(r.type) for r in op.outs])
    b.branch(fl.declare_blocks(op.region, "region", "region.bb"))

    def leave(term: scf.YieldOp, fl: FunctionLowering) -> None:
        jump(fl, end_bb, phis, fl.operands(term))

    fl.translate_blocks(op.region, {scf.YieldOp: leave})
    b.position_at_end(end_bb)
    fl.set(op, *phis)
