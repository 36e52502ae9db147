"""gpuc and builtin types -> llvmlite types. Pointers keep their address space
(the target's number for it); `index` is the target's pointer width; a
`vector<NxT>` (1-D, N of 2, 4, 8 or 16) is LLVM's `<N x T>`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from llvmlite import ir
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import FuncPtrType, PtrType
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.matrix import FragmentType
from gpuc.lowering.diagnostics import LoweringError

if TYPE_CHECKING:
    from gpuc.lowering.context import ModuleLowering

FLOATS: dict[type[Any], ir.Type] = {
    Float16Type: ir.HalfType(),
    Float32Type: ir.FloatType(),
    Float64Type: ir.DoubleType(),
    BFloat16Type: ir.IntType(16),
}
"""bf16 is its bits: gpuc.lowering.bf16 computes with it in f32."""


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
    if isinstance(attr, VectorType) and attr.get_num_dims() == 1:
        return lower_vector(attr, ml)
    if isinstance(attr, FragmentType):
        from gpuc.lowering.matrix import fragment_type

        return fragment_type(attr, ml)
    message = (
        f"type {attr} has no LLVM lowering; gpuc lowers integers (i1 and wider), "
        "index, f16, bf16, f32, f64, !gpuc.ptr, !gpuc.funcptr and 1-D vectors "
        "of them"
    )
    report(ml, attr, message)


def lower_vector(attr: VectorType, ml: ModuleLowering) -> ir.Type:
    """`<N x T>`; OpenCL's lengths but 3 (whose memory stride is 4: a host
    array would not match); bf16 elements are their bits, `<N x i16>`."""
    (length,) = attr.get_shape()
    element = attr.get_element_type()
    if attr.get_scalable_dims() != (False,) or length not in VECTOR_LENGTHS:
        report(
            ml, attr, f"{attr} cannot be lowered; vectors have 2, 4, 8 or 16 elements"
        )
    if isinstance(element, PtrType | FuncPtrType | VectorType):
        report(
            ml,
            attr,
            f"{attr} cannot be lowered; vector elements are integers, index, "
            "f16, bf16, f32 or f64",
        )
    return ir.VectorType(lower_type(element, ml), length)


VECTOR_LENGTHS = (2, 4, 8, 16)


def report(ml: ModuleLowering, attr: Attribute, message: str) -> NoReturn:
    """Raise `message` at the first op using `attr` (unlocated without one)."""
    user = first_user(ml.module, attr)
    if user is None:
        raise LoweringError(message)
    raise OpError(user, message)


def first_user(module: ModuleOp, attr: Attribute) -> Operation | None:
    """The first op of `module` with an operand, result or block argument of
    type `attr`, or a function taking or returning it, else the first with a
    pointer to `attr` (an offset's element type): where a type that cannot be
    lowered is reported (the lowering asks for types without the op)."""
    pointers: Operation | None = None
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
        if any(_holds(t, attr) for t in types):
            return op
        if pointers is None and any(
            isinstance(t, PtrType) and _holds(t.element, attr) for t in types
        ):
            pointers = op
    return pointers


def _holds(t: Attribute, attr: Attribute) -> bool:
    """`t` is `attr`, or a vector of it (whose element the lowering asks for
    on its own)."""
    return t == attr or (isinstance(t, VectorType) and t.get_element_type() == attr)


def splat(ty: ir.Type, value: Any) -> ir.Constant:
    """`value` as a constant of `ty`, in every element of a vector type."""
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [value] * ty.count)
    return ir.Constant(ty, value)


def scalar_of(ty: ir.Type) -> ir.Type:
    """A vector type's element type; any other type itself."""
    return ty.element if isinstance(ty, ir.VectorType) else ty


def like(ty: ir.Type, scalar: ir.Type) -> ir.Type:
    """`scalar`, as a vector of `ty`'s length where `ty` is a vector."""
    return ir.VectorType(scalar, ty.count) if isinstance(ty, ir.VectorType) else scalar


def intrinsic_suffix(ty: ir.Type) -> str:
    """How an overloaded LLVM intrinsic names `ty` (`f32`, `v4f32`)."""
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{ty.element.intrinsic_name}"
    return str(ty.intrinsic_name)
