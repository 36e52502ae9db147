"""Translators of unstructured control flow: `cf.br`, `cf.cond_br`, `cf.switch`
(successor arguments feed the phis `FunctionLowering` made for block
arguments) and `cf.assert` (where the condition fails, a report on a target
that reports faults: native stops the launch, ptx and spirv write an error
record and return; else a trap)."""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import cf
from xdsl.ir import Block

from gpuc.lowering.context import FunctionLowering, translates


@translates(cf.BranchOp)
def translate_br(op: cf.BranchOp, fl: FunctionLowering) -> None:
    fl.branch(op.successor, fl.operands(op))


def edge(
    fl: FunctionLowering, name: str, target: Block, args: list[ir.Value]
) -> ir.Block:
    """A block on the edge to `target` that feeds its phis (keeps phi inputs
    unambiguous when several edges of one terminator reach the same block)."""
    block = fl.builder.append_basic_block(name)
    with fl.builder.goto_block(block):
        fl.branch(target, args)
    return block


@translates(cf.ConditionalBranchOp)
def translate_cond_br(op: cf.ConditionalBranchOp, fl: FunctionLowering) -> None:
    then_bb = edge(fl, "br.then", op.then_block, [fl.get(v) for v in op.then_arguments])
    else_bb = edge(fl, "br.else", op.else_block, [fl.get(v) for v in op.else_arguments])
    fl.builder.cbranch(fl.get(op.cond), then_bb, else_bb)


@translates(cf.SwitchOp)
def translate_switch(op: cf.SwitchOp, fl: FunctionLowering) -> None:
    flag = fl.get(op.flag)
    default = edge(
        fl, "switch.default", op.default_block, [fl.get(v) for v in op.default_operands]
    )
    values = op.case_values.get_values() if op.case_values is not None else ()
    segments = op.case_operand_segments.get_values()
    operands = [fl.get(v) for v in op.case_operands]
    blocks = []
    start = 0
    for value, block, size in zip(values, op.case_blocks, segments, strict=True):
        blocks.append(
            (value, edge(fl, "switch.case", block, operands[start : start + size]))
        )
        start += size
    switch = fl.builder.switch(flag, default)
    for value, block in blocks:
        switch.add_case(ir.Constant(flag.type, value), block)


@translates(cf.AssertOp)
def translate_assert(op: cf.AssertOp, fl: FunctionLowering) -> None:
    b = fl.builder
    fail = b.append_basic_block("assert.fail")
    ok = b.append_basic_block("assert.ok")
    b.cbranch(fl.get(op.arg), ok, fail)
    b.position_at_end(fail)
    if not fl.target.assert_failed(fl, op):
        b.call(
            fl.ml.intrinsic("llvm.trap", ir.VoidType(), [], ("noreturn", "nounwind")),
            [],
        )
    b.unreachable()
    b.position_at_end(ok)
