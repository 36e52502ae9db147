"""What the native target's modules share, importing none of them: LLVM IR
helpers (a counted loop, an error message constant) and what checked mode
and asserts ask of a work-group function. The target (`target.py`) sits on
top and imports the rest; `work_groups.py`, `faults.py` and `asserts.py`
import this module and never each other's callers."""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from gpuc.lowering.context import FunctionLowering, ModuleLowering


class WorkGroupFunction(FunctionLowering):
    """A function that runs a whole block per call as loops over its threads
    (`work_groups.WorkGroupLowering`): `thread` is the innermost thread loop's
    (x, y, z), None between the loops (an op that runs once for the block);
    `prologue` builds its entry block, which dominates every loop."""

    thread: tuple[ir.Value, ir.Value, ir.Value] | None
    prologue: ir.IRBuilder


def error_message(ml: ModuleLowering, text: str) -> ir.Value:
    """A private NUL-terminated string constant, for an error field."""
    data = bytearray(text.encode() + b"\0")
    ty = ir.ArrayType(ir.IntType(8), len(data))
    message = ir.GlobalVariable(ml.llvm, ty, ml.llvm.get_unique_name("gpuc.error"))
    message.global_constant = True
    message.linkage = "private"
    message.initializer = ir.Constant(ty, data)
    return message


LoopHint = tuple[str, int | ir.Value | None]
"""An `llvm.loop` option: its name and its value (an i32, a metadata node,
or none)."""


def counted_loop(
    b: ir.IRBuilder,
    begin: ir.Value,
    end: ir.Value,
    body: object,
    name: str,
    hints: Sequence[LoopHint] = (),
) -> None:
    """`for (i = begin; i < end; ++i) body(i)`, leaving the builder after it;
    `hints` become the loop's `llvm.loop` metadata (e.g.
    ("llvm.loop.interleave.count", 1))."""
    before = b.block
    head = b.append_basic_block(f"{name}.head")
    loop = b.append_basic_block(f"{name}.body")
    done = b.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(begin.type, name=name)
    i.add_incoming(begin, before)
    b.cbranch(b.icmp_unsigned("<", i, end), loop, done)
    b.position_at_end(loop)
    body(i)  # type: ignore[operator]
    i.add_incoming(b.add(i, ir.Constant(i.type, 1), flags=["nuw"]), b.block)
    latch = b.branch(head)
    if hints:
        set_loop_hints(latch, hints)
    b.position_at_end(done)


class DistinctNode(ir.values.MDValue):  # type: ignore[misc]
    """A metadata node printed `distinct` (llvmlite unifies equal nodes; an
    access group must be a node of its own)."""

    def descr(self, buf: list[str]) -> None:
        buf.append("distinct ")
        super().descr(buf)


def access_group(module: ir.Module) -> ir.Value:
    """A new access group, `distinct !{}` (`llvm.access.group`)."""
    return DistinctNode(module, [], name=str(len(module.metadata)))


def set_loop_hints(latch: ir.Instruction, hints: Sequence[LoopHint]) -> None:
    """`hints` as the `llvm.loop` metadata of the loop `latch` branches back
    in (a hint without a value, such as `llvm.loop.unroll.disable`, is the
    name alone)."""
    module = latch.module
    options = [
        module.add_metadata(
            [ir.MetaDataString(module, key)]
            if value is None
            else [
                ir.MetaDataString(module, key),
                ir.Constant(ir.IntType(32), value) if isinstance(value, int) else value,
            ]
        )
        for key, value in hints
    ]
    # A node of its own (the unique string keeps llvmlite from sharing
    # it), then made to name itself first, as LLVM wants of a loop id.
    unique = ir.MetaDataString(module, module.get_unique_name("loop"))
    loop_id = module.add_metadata([unique, *options])
    loop_id.operands = (loop_id, *options)
    latch.set_metadata("llvm.loop", loop_id)
