"""Translator of `gpuc.fence` (dialects/fence.py): the target's fence
(`FenceTarget.fence`), an LLVM `fence syncscope(...)` where the back-end
maps scopes (ptx, amdgpu, native), an OpenCL builtin on spirv.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import MemoryOrder
from gpuc.dialects.fence import FenceOp, FenceScope
from gpuc.lowering.context import FunctionLowering, translates


@runtime_checkable
class FenceTarget(Protocol):
    """What a target provides to lower `gpuc.fence`."""

    def fence(
        self, fl: FunctionLowering, scope: FenceScope, ordering: MemoryOrder
    ) -> None:
        """Order the thread's memory accesses at `scope` as `ordering` says."""
        ...


def llvm_fence(fl: FunctionLowering, syncscope: str, ordering: MemoryOrder) -> None:
    """LLVM's `fence [syncscope("<syncscope>")] <ordering>` ("": the system)."""
    fl.builder.fence(ordering.value, syncscope or None)


@translates(FenceOp)
def translate_fence(op: FenceOp, fl: FunctionLowering) -> None:
    target = fl.target
    if not isinstance(target, FenceTarget):
        raise OpError(op, f"the {target.name} target cannot lower '{op.name}'")
    target.fence(fl, op.scope.data, op.ordering.data)
