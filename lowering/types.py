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
    ModuleOp,
)
from xdsl.ir import Attribute, Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import FuncPtrType, PtrType
from gpuc.dialects.functions import FuncOp
from gpuc.lowering.diagnostics import LoweringError

if TYPE_CHECKING:
    from gpuc.lowering.context import ModuleLowering

FLOATS: dict[type[Any], ir.Type] = {
    Float16Type: ir.HalfType(),
    Float32Type: ir.FloatType(),
    Float64Type: ir.DoubleType(),
}


def lower_type(attr: Any, ml: ModuleLowering) -> ir.Type:
    if isinstance(attr, IntegerType) and attr.width.data > 0:
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
    message = (
        f"type {attr} has no LLVM lowering; gpuc lowers integers (i1 and wider), "
        "index, f16, f32, f64, !gpuc.ptr and !gpuc.funcptr"
    )
    user = first_user(ml.module, attr)
    if user is None:
        raise LoweringError(message)
    raise OpError(user, message)


def first_user(module: ModuleOp, attr: Attribute) -> Operation | None:
    """The first op of `module` with an operand, result or block argument of
    type `attr`, or a function taking or returning it: where a type that cannot
    be lowered is reported (the lowering asks for types without the op)."""
    for op in module.walk():
        types = [*op.operand_types, *op.result_types]
        if isinstance(op, FuncOp):
            types += [*op.function_type.inputs.data, *op.function_type.outputs.data]
        types += [
            arg.type
            for region in op.regions
            for block in region.blocks
            for arg in block.args
        ]
        if attr in types:
            return op
    return None
