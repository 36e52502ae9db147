"""Translator of `gpuc.fence` (gpuc/dialects/fence.py): the target's fence
(`Target.fence`), an LLVM `fence syncscope(...)` where the back-end
maps scopes (ptx, amdgpu, native), an OpenCL builtin on spirv.
"""

from __future__ import annotations

from gpuc.dialects.attrs import MemoryOrder
from gpuc.dialects.fence import FenceOp
from gpuc.lowering.context import FunctionLowering, translates


def llvm_fence(fl: FunctionLowering, syncscope: str, ordering: MemoryOrder) -> None:
    """LLVM's `fence [syncscope("<syncscope>")] <ordering>` ("": the system)."""
    fl.builder.fence(ordering.value, syncscope or None)


@translates(FenceOp)
def translate_fence(op: FenceOp, fl: FunctionLowering) -> None:
    fl.target.fence(fl, op, op.scope.data, op.ordering.data)
