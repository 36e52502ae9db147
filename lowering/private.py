"""Translator of `gpuc.private_alloc`: an array in the function's stack frame
(an entry-block alloca, so each call has its own and SROA can promote it),
in the data layout's stack address space, cast to the target's local space
where that differs (NVPTX's allocas are generic, its local space is 5)."""

from __future__ import annotations

from llvmlite import ir

from gpuc.diagnostics import OpError
from gpuc.dialects.analysis import element_bytes
from gpuc.dialects.attrs import AddressSpace, PtrType
from gpuc.dialects.memory import PrivateAllocOp
from gpuc.lowering.context import FunctionLowering, translates


class StackSlot(ir.instructions.AllocaInstr):  # type: ignore[misc]  # untyped
    """An alloca in address space `space` (llvmlite spells none)."""

    def __init__(self, parent: ir.Block, typ: ir.Type, space: int, name: str):
        super().__init__(parent, typ, None, name)
        self.type = ir.PointerType(addrspace=space)
        self.space = space

    def descr(self, buf: list[str]) -> None:
        super().descr(buf)
        if self.space:
            buf.append(f", addrspace({self.space})")


@translates(PrivateAllocOp)
def translate_private_alloc(op: PrivateAllocOp, fl: FunctionLowering) -> None:
    if type(fl) is not FunctionLowering:
        # A target's own function lowering (native's work-group functions)
        # runs every thread of a block in one call: one slot would be shared.
        raise OpError(
            op,
            "is in a kernel the target runs a whole block per call (a native "
            "kernel with barriers), where one stack array would be every "
            "thread's; move the array into a helper the kernel calls, or use "
            "gpuc.shared_alloc with a slot per thread",
        )
    ptr = op.result.type
    assert isinstance(ptr, PtrType)
    element = fl.type(ptr.element)
    array = ir.ArrayType(element, op.count.value.data)
    entry = fl.fn.entry_basic_block
    slot = StackSlot(entry, array, fl.target.alloca_address_space, "")
    slot.align = element_bytes(ptr.element)
    entry.instructions.insert(0, slot)
    if fl.builder.block is entry:
        # The builder's position is an index into the block: keep it after.
        fl.builder._anchor += 1  # noqa: SLF001
    local = fl.target.address_spaces[AddressSpace.LOCAL]
    value: ir.Value = slot
    if local != fl.target.alloca_address_space:
        value = fl.builder.addrspacecast(slot, ir.PointerType(addrspace=local))
    fl.set(op, value)
