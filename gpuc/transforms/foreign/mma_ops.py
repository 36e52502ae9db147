"""MLIR's warp matrix ops (gpuc/dialects/foreign/mma.py) as gpuc's matrix ops
(gpuc/dialects/matrix.py), for `import`: the memref and its indices become
the tile's pointer and element index, `leadDimension` the stride, and the
fragment type `!gpuc.fragment`, whose verifier says which shapes gpuc
supports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, Region
from xdsl.rewriter import InsertPoint, Rewriter

from gpuc.dialects.foreign.mma import (
    MMAMatrixType,
    SubgroupMmaComputeOp,
    SubgroupMmaConstantMatrixOp,
    SubgroupMmaElementwiseOp,
    SubgroupMmaLoadMatrixOp,
    SubgroupMmaStoreMatrixOp,
    flag,
    lead_dimension,
)
from gpuc.dialects.matrix import (
    ElementwiseKind,
    MatrixElementwiseOp,
    MatrixLoadOp,
    MatrixMmaOp,
    MatrixSplatOp,
    MatrixStoreOp,
)

if TYPE_CHECKING:
    from gpuc.transforms.foreign.memref_ops import FunctionMemory


def mma_problem(op: Operation) -> str | None:
    """Why the import cannot take a matrix op, if it cannot."""
    for value in (*op.operands, *op.results):
        if isinstance(value.type, MMAMatrixType) and (problem := value.type.problem()):
            return problem
    if isinstance(op, SubgroupMmaElementwiseOp):
        kind = op.kind()
        if kind not in {k.value for k in ElementwiseKind}:
            accepted = ", ".join(k.value for k in ElementwiseKind)
            return (
                f"has kind {kind}; gpuc's fragments hold floats, and the import "
                f"accepts {accepted}"
            )
    return None


def retype_fragments(region: Region) -> None:
    """Give each `!gpu.mma_matrix` value left in `region` (block arguments
    and results of structured control flow) its `!gpuc.fragment` type."""
    for op in region.walk():
        for value in op.results:
            if isinstance(value.type, MMAMatrixType):
                Rewriter.replace_value_with_new_type(value, value.type.fragment())
        for inner in op.regions:
            for block in inner.blocks:
                for arg in block.args:
                    if isinstance(arg.type, MMAMatrixType):
                        Rewriter.replace_value_with_new_type(arg, arg.type.fragment())


def convert_mma(op: Operation, memory: FunctionMemory) -> bool:
    """Rewrite `op` if it is a matrix op (`memory` knows each memref's
    pointer and layout); the tile's index and stride are inserted before it."""
    new: Operation
    if isinstance(op, SubgroupMmaLoadMatrixOp | SubgroupMmaStoreMatrixOp):
        base = (
            op.src_memref if isinstance(op, SubgroupMmaLoadMatrixOp) else op.dstMemref
        )
        view = memory.views[base]
        index = view.element_index(op.indices, op)
        stride = ConstantOp(IntegerAttr(lead_dimension(op) or 0, IndexType()))
        Rewriter.insert_op(stride, InsertPoint.before(op))
        if index is None:
            zero = ConstantOp(IntegerAttr(0, IndexType()))
            Rewriter.insert_op(zero, InsertPoint.before(op))
            index = zero.result
        transpose = flag(op, "transpose")
        if isinstance(op, SubgroupMmaLoadMatrixOp):
            assert isinstance(op.res.type, MMAMatrixType)
            fragment = op.res.type.fragment()
            new = MatrixLoadOp(view.ptr, index, stride, fragment, transpose)
        else:
            new = MatrixStoreOp(op.src, view.ptr, index, stride, transpose)
    elif isinstance(op, SubgroupMmaComputeOp):
        a_transpose, b_transpose = flag(op, "a_transpose"), flag(op, "b_transpose")
        new = MatrixMmaOp(op.opA, op.opB, op.opC, a_transpose, b_transpose)
    elif isinstance(op, SubgroupMmaConstantMatrixOp):
        assert isinstance(op.res.type, MMAMatrixType)
        new = MatrixSplatOp(op.value, op.res.type.fragment())
    elif isinstance(op, SubgroupMmaElementwiseOp):
        assert isinstance(op.res.type, MMAMatrixType)
        kind = ElementwiseKind(op.kind())
        new = MatrixElementwiseOp(kind, list(op.args), op.res.type.fragment())
    else:
        return False
    new.location = op.location
    Rewriter.replace_op(op, new)
    return True
