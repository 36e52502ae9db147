"""MLIR's `amdgpu` buffer ops, which xDSL lacks: `amdgpu.raw_buffer_load`,
`raw_buffer_store` and the atomics `raw_buffer_atomic_fadd`, `_fmax`,
`_smax`, `_umin`, and `amdgpu.lds_barrier`. The dialect's other ops are not
registered: the parser names them. What the import makes of them:
gpuc/transforms/foreign/amdgpu_buffers.py.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, MemRefType, i32
from xdsl.ir import Dialect
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)

from gpuc.dialects.attrs import AtomicKind


class BufferWrite(IRDLOperation):
    """The operands and syntax of the buffer ops that write: `amdgpu.<op>
    %v -> %m[%i] : f32 -> memref<?xf32>, i32`."""

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def(i32)
    sgprOffset = opt_operand_def(i32)
    boundsCheck = opt_prop_def(BoolAttr)
    indexOffset = opt_prop_def(IntegerAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "attr-dict $value `->` $memref `[` $indices `]` (`sgprOffset` "
        "$sgprOffset^)? `:` type($value) `->` type($memref) (`,` type($indices)^)?"
    )


@irdl_op_definition
class RawBufferLoadOp(IRDLOperation):
    """`%v = amdgpu.raw_buffer_load %m[%i] : memref<?xf32>, i32 -> f32`."""

    name = "amdgpu.raw_buffer_load"
    memref = operand_def(MemRefType)
    indices = var_operand_def(i32)
    sgprOffset = opt_operand_def(i32)
    value = result_def()
    boundsCheck = opt_prop_def(BoolAttr)
    indexOffset = opt_prop_def(IntegerAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "attr-dict $memref `[` $indices `]` (`sgprOffset` $sgprOffset^)? `:` "
        "type($memref) (`,` type($indices)^)? `->` type($value)"
    )


@irdl_op_definition
class RawBufferStoreOp(BufferWrite):
    name = "amdgpu.raw_buffer_store"


@irdl_op_definition
class RawBufferAtomicFaddOp(BufferWrite):
    name = "amdgpu.raw_buffer_atomic_fadd"


@irdl_op_definition
class RawBufferAtomicFmaxOp(BufferWrite):
    name = "amdgpu.raw_buffer_atomic_fmax"


@irdl_op_definition
class RawBufferAtomicSmaxOp(BufferWrite):
    name = "amdgpu.raw_buffer_atomic_smax"


@irdl_op_definition
class RawBufferAtomicUminOp(BufferWrite):
    name = "amdgpu.raw_buffer_atomic_umin"


ATOMICS: dict[type[BufferWrite], tuple[AtomicKind, str]] = {
    RawBufferAtomicFaddOp: (AtomicKind.ADD, "f32 or f16"),
    RawBufferAtomicFmaxOp: (AtomicKind.MAX, "f32 or f64"),
    RawBufferAtomicSmaxOp: (AtomicKind.MAX, "i32"),
    RawBufferAtomicUminOp: (AtomicKind.UMIN, "i32"),
}
"""Each atomic: gpuc's kind, and the element types it takes (MLIR's)."""
BufferOp = RawBufferLoadOp | BufferWrite


@irdl_op_definition
class LdsBarrierOp(IRDLOperation):
    """`amdgpu.lds_barrier`: a work-group barrier (for LDS, workgroup memory)."""

    name = "amdgpu.lds_barrier"
    assembly_format = "attr-dict"


AMDGPU = Dialect("amdgpu", [RawBufferLoadOp, RawBufferStoreOp, *ATOMICS, LdsBarrierOp])
AMDGPU_OPS = tuple(op.name for op in AMDGPU.operations)
"""What the import takes of the amdgpu dialect (all it registers)."""
BUFFER_OPS = (RawBufferLoadOp, BufferWrite)
BUFFER_OP_NAMES = tuple(op.name for op in AMDGPU.operations if op is not LdsBarrierOp)
"""The ops that take a memref (their `memref` operand)."""
