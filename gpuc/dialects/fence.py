"""`gpuc.fence`: a memory fence at a scope, like CUDA's `__threadfence_block`,
`__threadfence` and `__threadfence_system` (which are `seq_cst`), OpenCL's
`atomic_work_item_fence` and LLVM's `fence syncscope(...)`.

A fence orders the thread's own memory accesses (global and shared alike)
as the threads of its scope observe them; unlike a barrier, it waits for
no other thread, so it may sit anywhere, under any condition.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, prop_def
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from gpuc.dialects.attrs import MemoryOrder, MemoryOrderAttr
from gpuc.dialects.index import require_function_ancestor


class FenceScope(StrEnum):
    BLOCK = auto()
    DEVICE = auto()
    SYSTEM = auto()


@irdl_attr_definition
class FenceScopeAttr(EnumAttribute[FenceScope], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.fence_scope"


@irdl_op_definition
class FenceOp(IRDLOperation):
    """`gpuc.fence block|device|system acquire|release|acq_rel|seq_cst`: the
    thread's accesses before and after the fence are ordered as `ordering`
    says for every thread of the scope (its block, the device, or the device
    and the host)."""

    name = "gpuc.fence"
    scope = prop_def(FenceScopeAttr)
    ordering = prop_def(MemoryOrderAttr)
    assembly_format = "$scope $ordering attr-dict"

    def __init__(self, scope: FenceScope, ordering: MemoryOrder = MemoryOrder.SEQ_CST):
        super().__init__(
            properties={
                "scope": FenceScopeAttr(scope),
                "ordering": MemoryOrderAttr(ordering),
            }
        )

    def verify_(self) -> None:
        require_function_ancestor(self)
        if self.ordering.data == MemoryOrder.RELAXED:
            raise VerifyException(
                "is relaxed, which orders nothing; use acquire, release, acq_rel "
                "or seq_cst"
            )
