"""gpuc and builtin types -> llvmlite types. Pointers keep their address space
(the target's number for it); `index` is the target's pointer width."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llvmlite import ir
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)

from gpuc.dialects.attrs import FuncPtrType, PtrType
from gpuc.lowering.diagnostics import LoweringError

if TYPE_CHECKING:
    from gpuc.lowering.context import ModuleLowering

FLOATS: dict[type[Any], ir.Type] = {
    Float16Type: ir.HalfType(),
    Float32Type: ir.FloatType(),
    Float64Type: ir.DoubleType(),
}


def lower_type(attr: Any, ml: ModuleLowering) -> ir.Type:
    if isinstance(attr, IntegerType):
        return ir.IntType(attr.width.data)
    if isinstance(attr, IndexType):
        return ml.index_type
    float_type = FLOATS.get(type(attr))
    if float_type is not None:
        return float_type
    if isinstance(attr, PtrType):
        return ir.PointerType(addrspace=ml.target.address_spaces[attr.address_space])
    if isinstance(attr, FuncPtrType):
        return ir.PointerType()
    raise LoweringError(
        f"type {attr} has no LLVM lowering; gpuc lowers integers, index, f16, f32, "
        "f64, !gpuc.ptr and !gpuc.funcptr"
    )
