"""Index and synchronization ops: `gpuc.thread_id x`, ..., `gpuc.lane_id`,
`gpuc.barrier`.

They read the launch configuration of the running kernel, so they only make
sense inside a function; each target lowers them to its own intrinsics.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import Dim, DimAttr
from gpuc.dialects.functions import FUNCTION_OPS
from gpuc.dialects.traits import ReadsKernelState


def require_function_ancestor(op: Operation) -> None:
    """Raise unless `op` sits (at any depth) inside a function body."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in FUNCTION_OPS:
            return
        parent = parent.parent_op()
    raise VerifyException(f"'{op.name}' must be inside a function (gpuc.func)")


class DimIndexOp(IRDLOperation):
    """Base of the per-dimension index ops: `%i = gpuc.<op> x|y|z`."""

    dimension = prop_def(DimAttr)
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), ReadsKernelState())
    assembly_format = "$dimension attr-dict"

    def __init__(self, dimension: Dim):
        super().__init__(
            properties={"dimension": DimAttr(dimension)}, result_types=[IndexType()]
        )

    def verify_(self) -> None:
        require_function_ancestor(self)


@irdl_op_definition
class ThreadIdOp(DimIndexOp):
    """The thread's index within its block."""

    name = "gpuc.thread_id"


@irdl_op_definition
class BlockIdOp(DimIndexOp):
    """The block's index within the grid."""

    name = "gpuc.block_id"


@irdl_op_definition
class BlockDimOp(DimIndexOp):
    """Threads per block."""

    name = "gpuc.block_dim"


@irdl_op_definition
class GridDimOp(DimIndexOp):
    """Blocks per grid."""

    name = "gpuc.grid_dim"


@irdl_op_definition
class GlobalIdOp(DimIndexOp):
    """`block_id * block_dim + thread_id`."""

    name = "gpuc.global_id"


@irdl_op_definition
class LaneIdOp(IRDLOperation):
    """The thread's index within its warp (NVIDIA) or sub-group (OpenCL)."""

    name = "gpuc.lane_id"
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), ReadsKernelState())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        require_function_ancestor(self)


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Wait for every thread of the block; orders shared and global memory."""

    name = "gpuc.barrier"
    traits = traits_def(ReadsKernelState())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()

    def verify_(self) -> None:
        require_function_ancestor(self)
