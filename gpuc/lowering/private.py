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


@translates(PrivateAllocOp)
def translate_private_alloc(op: PrivateAllocOp, fl: FunctionLowering) -> None:
    shared_is_right = PrivateAllocOp.SAME_IN_EVERY_THREAD in op.attributes
    if type(fl) is not FunctionLowering and not shared_is_right:
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
    slot = fl.alloca(array, align=element_bytes(ptr.element))
    local = fl.target.address_spaces[AddressSpace.LOCAL]
    value: ir.Value = slot
    if local != fl.target.alloca_address_space:
        value = fl.builder.addrspacecast(slot, ir.PointerType(addrspace=local))
    fl.set(op, value)
