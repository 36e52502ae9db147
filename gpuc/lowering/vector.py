"""Translators of the vector dialect on 1-D vectors (gpuc/lowering/types.py
lowers `vector<NxT>` to `<N x T>`): broadcast, extract and insert of one
element (a static or dynamic position; extractelement and insertelement,
gpuc/dialects/foreign/vector.py), from_elements, shuffle, fma, bitcast
(the same bits as another vector type; a bf16 vector is its 16-bit patterns, so it
reinterprets as f16 or i16 ones would). Vector memory is a
`gpuc.load`/`gpuc.store` through a `!gpuc.ptr<vector<NxT>, space>`
(docs/dialect.md, "Vectors")."""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects import vector
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.foreign.vector import (
    ExtractElementOp,
    FromElementsOp,
    InsertElementOp,
)
from gpuc.lowering import bf16
from gpuc.lowering.context import FunctionLowering, translates
from gpuc.lowering.types import intrinsic_suffix

I32 = ir.IntType(32)


def position(fl: FunctionLowering, op: vector.ExtractOp | vector.InsertOp) -> ir.Value:
    """The one element `op` names in its 1-D vector."""
    static = op.static_position.get_values()
    if len(static) != 1:
        raise OpError(
            op,
            "names a position in a vector of several dimensions; gpuc lowers "
            "1-D vectors, one element at a time",
        )
    if op.dynamic_position:
        return fl.get(op.dynamic_position[0])
    return ir.Constant(I32, static[0])


def one_dimensional(op: Operation, value: SSAValue) -> VectorType:
    ty = value.type
    if not isinstance(ty, VectorType) or ty.get_num_dims() != 1:
        raise OpError(op, f"works on {ty}; gpuc lowers vector ops on 1-D vectors")
    return ty


@translates(vector.BroadcastOp)
def translate_broadcast(op: vector.BroadcastOp, fl: FunctionLowering) -> None:
    """A scalar into every element (insertelement, then a zero shuffle mask);
    a vector of the result's type is itself."""
    result = one_dimensional(op, op.vector)
    source = fl.get(op.source)
    if op.source.type == result:
        fl.set(op, source)
        return
    if isinstance(op.source.type, VectorType):
        raise OpError(
            op, f"broadcasts {op.source.type}; gpuc broadcasts scalars to 1-D vectors"
        )
    ty = fl.type(result)
    b = fl.builder
    first = b.insert_element(ir.Constant(ty, ir.Undefined), source, ir.Constant(I32, 0))
    zeros = ir.Constant(ir.VectorType(I32, ty.count), [0] * ty.count)
    fl.set(op, b.shuffle_vector(first, ir.Constant(ty, ir.Undefined), zeros))


@translates(vector.ExtractOp)
def translate_extract(op: vector.ExtractOp, fl: FunctionLowering) -> None:
    one_dimensional(op, op.vector)
    fl.set(op, fl.builder.extract_element(fl.get(op.vector), position(fl, op)))


@translates(vector.InsertOp)
def translate_insert(op: vector.InsertOp, fl: FunctionLowering) -> None:
    one_dimensional(op, op.dest)
    if isinstance(op.source.type, VectorType):
        raise OpError(op, "inserts a vector; gpuc inserts one element of a 1-D vector")
    fl.set(
        op,
        fl.builder.insert_element(fl.get(op.dest), fl.get(op.source), position(fl, op)),
    )


def element_position(
    fl: FunctionLowering, op: ExtractElementOp | InsertElementOp
) -> ir.Value:
    """The position operand (absent, of a 1-element vector: 0)."""
    if op.position is None:
        return ir.Constant(I32, 0)
    return fl.get(op.position)


@translates(ExtractElementOp)
def translate_extractelement(op: ExtractElementOp, fl: FunctionLowering) -> None:
    one_dimensional(op, op.vector)
    fl.set(op, fl.builder.extract_element(fl.get(op.vector), element_position(fl, op)))


@translates(InsertElementOp)
def translate_insertelement(op: InsertElementOp, fl: FunctionLowering) -> None:
    one_dimensional(op, op.dest)
    value, dest = fl.get(op.source), fl.get(op.dest)
    fl.set(op, fl.builder.insert_element(dest, value, element_position(fl, op)))


@translates(FromElementsOp)
def translate_from_elements(op: FromElementsOp, fl: FunctionLowering) -> None:
    """Each operand inserted at its position of an undefined vector."""
    result = one_dimensional(op, op.result)
    value: ir.Value = ir.Constant(fl.type(result), ir.Undefined)
    for i, element in enumerate(op.elements):
        value = fl.builder.insert_element(value, fl.get(element), ir.Constant(I32, i))
    fl.set(op, value)


@translates(vector.ShuffleOp)
def translate_shuffle(op: vector.ShuffleOp, fl: FunctionLowering) -> None:
    """Element k of the result is element mask[k] of the two operands'
    concatenation (LLVM's shufflevector)."""
    one_dimensional(op, op.v1)
    one_dimensional(op, op.v2)
    mask = [int(m) for m in op.mask.get_values()]
    ty = ir.VectorType(I32, len(mask))
    fl.set(
        op,
        fl.builder.shuffle_vector(fl.get(op.v1), fl.get(op.v2), ir.Constant(ty, mask)),
    )


@translates(vector.FMAOp)
def translate_fma(op: vector.FMAOp, fl: FunctionLowering) -> None:
    """`lhs * rhs + acc` with one rounding (llvm.fma), element by element."""
    if bf16.is_bf16(one_dimensional(op, op.lhs)):
        raise OpError(
            op,
            "is an fma on bf16 vectors, which gpuc does not lower (bf16 computes "
            "in f32, where a fused multiply-add would round twice); arith.extf "
            "the operands to f32 vectors, fma there and arith.truncf the result",
        )
    args = fl.operands(op)
    ty = args[0].type
    fn = fl.ml.intrinsic(f"llvm.fma.{intrinsic_suffix(ty)}", ty, [ty, ty, ty])
    fl.set(op, fl.builder.call(fn, args))


@translates(vector.BitcastOp)
def translate_bitcast(op: vector.BitcastOp, fl: FunctionLowering) -> None:
    """The same bits as another 1-D vector type (LLVM's bitcast)."""
    source = one_dimensional(op, op.source)
    result = one_dimensional(op, op.result)
    bits = [
        t.get_shape()[0] * element_bits(t.get_element_type(), fl)
        for t in (source, result)
    ]
    if bits[0] != bits[1]:
        raise OpError(
            op, f"bitcasts {source} ({bits[0]} bits) to {result} ({bits[1]} bits)"
        )
    value, ty = fl.get(op.source), fl.type(result)
    fl.set(op, value if value.type == ty else fl.builder.bitcast(value, ty))


def element_bits(t: Attribute, fl: FunctionLowering) -> int:
    """The bits of one element of type `t` (index: the target's width)."""
    if isinstance(t, IndexType):
        return int(fl.ml.index_type.width)
    if isinstance(t, IntegerType):
        width: int = t.width.data
        return width
    assert isinstance(t, AnyFloat)  # the op's constraint
    return t.bitwidth
