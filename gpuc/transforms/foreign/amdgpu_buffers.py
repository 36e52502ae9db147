"""What the import makes of MLIR's amdgpu buffer ops
(gpuc/dialects/foreign/amdgpu.py): gpuc loads, stores and relaxed atomics,
bounds-checked, and `gpuc.barrier` for `amdgpu.lds_barrier` (MLIR's lowering
waits for LDS accesses and then runs the work-group barrier).

An access's element is the memref's `memref.load` element for the indices
(i32 values) plus `indexOffset` plus `sgprOffset`. With `boundsCheck` (the
default) each element of the access is checked against the memref's extent,
as MLIR lowers it: the buffer starts at the view's first element (its
offset), its size is the largest `size * stride` over its dimensions (the
element count for the identity layout), and what is checked is the indices'
element plus `indexOffset` (`sgprOffset`, a scalar register's offset, is
not range-checked). An element outside it reads 0 and is not written; a
vector access checks each of its elements (MLIR leaves partly-out-of-bounds
vectors to the chipset). Without the check, the access is an ordinary one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gpuc.dialects.attrs import AddressSpace, MemoryOrder
from gpuc.dialects.foreign.amdgpu import (
    ATOMICS,
    BUFFER_OPS,
    BufferOp,
    BufferWrite,
    LdsBarrierOp,
    RawBufferLoadOp,
    RawBufferStoreOp,
)
from gpuc.dialects.foreign.vector import ExtractElementOp, InsertElementOp
from gpuc.dialects.index import BarrierOp
from gpuc.dialects.memory import AtomicRMWOp, LoadOp, StoreOp
from gpuc.transforms.foreign.bare_pointers import address_space
from gpuc.transforms.foreign.memref_views import (
    MemrefView,
    Size,
    add,
    materialize,
    multiply,
)


def _checked(op: BufferOp) -> bool:
    """`boundsCheck`, true unless given false."""
    return op.boundsCheck is None or bool(op.boundsCheck.value.data)


def _data_type(op: BufferOp) -> Attribute:
    return op.value.type


def buffer_problem(op: Operation, where: str) -> str | None:
    """Why a buffer op cannot be imported, if it cannot."""
    if not isinstance(op, BUFFER_OPS):
        return None
    t = op.memref.type
    assert isinstance(t, MemRefType)
    data = _data_type(op)
    element = data.get_element_type() if isinstance(data, VectorType) else data
    if isinstance(data, VectorType) and data.get_num_dims() != 1:
        return f"accesses {data}{where}; buffer ops take scalars and 1-D vectors"
    if element != t.element_type:
        return f"accesses {data} in {t}{where}: the element types must be the same"
    if address_space(t.memory_space) != AddressSpace.GLOBAL:
        return f"accesses {t}{where}; buffer ops take memrefs in global memory"
    if len(op.indices) != t.get_num_dims():
        return f"has {len(op.indices)} indices for {t}{where}; give one per dimension"
    if isinstance(op, BufferWrite) and type(op) in ATOMICS:
        types = ATOMICS[type(op)][1]
        if isinstance(data, VectorType) or str(element) not in types.split(" or "):
            return f"is an atomic on {data}{where}; {op.name} takes {types}"
    return None


def _extent(sizes: Sequence[Size], strides: Sequence[Size], before: Operation) -> Size:
    """max(size * stride) over the dimensions: the elements from the base."""
    found: Size = 1 if not sizes else 0
    for size, stride in zip(sizes, strides[: len(sizes)], strict=True):
        reach = multiply(size, stride, before)
        if isinstance(found, int) and isinstance(reach, int):
            found = max(found, reach)
        elif found == 0:
            found = reach
        else:
            top = arith.MaxUIOp(materialize(found, before), materialize(reach, before))
            Rewriter.insert_op(top, InsertPoint.before(before))
            found = top.result
    return found


def _insert(op: Operation, before: Operation) -> SSAValue:
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.results[0]


def _to_index(value: SSAValue, before: Operation) -> SSAValue:
    return _insert(arith.IndexCastOp(value, IndexType()), before)


def convert_amdgpu_op(op: Operation, views: dict[SSAValue, MemrefView]) -> bool:
    """Rewrite `op` if it is an amdgpu op (`views`: memref_ops.py's
    FunctionMemory's); False when it is not one."""
    if isinstance(op, LdsBarrierOp):
        Rewriter.replace_op(op, BarrierOp())
        return True
    if not isinstance(op, BUFFER_OPS):
        return False
    view = views[op.memref]
    indices = [_to_index(i, op) for i in op.indices]
    # The buffer starts at the view's first element: the check is of the
    # element from there; the access adds the view's offset and sgprOffset.
    within = replace(view, offset=0).element_index(indices, op)
    checked: Size = 0 if within is None else within
    if op.indexOffset is not None:
        checked = add(checked, op.indexOffset.value.data, op)
    first = add(checked, view.offset, op)
    if op.sgprOffset is not None:
        first = add(first, _to_index(op.sgprOffset, op), op)
    extent = _extent(view.sizes, view.all_strides(op), op) if _checked(op) else None
    data = _data_type(op)
    count = data.get_shape()[0] if isinstance(data, VectorType) else 1
    element = data.get_element_type() if isinstance(data, VectorType) else data
    at: list[tuple[SSAValue, SSAValue]] = []
    for k in range(count):
        index = materialize(add(first, k, op), op)
        same = extent is None or first is checked  # nothing else to check
        at.append((index, index if same else materialize(add(checked, k, op), op)))
    if isinstance(op, RawBufferLoadOp):
        loaded = [_guarded_load(view.ptr, i, element, extent, op) for i in at]
        if not isinstance(data, VectorType):
            op.value.replace_all_uses_with(loaded[0])
        else:
            value = _insert(vector.BroadcastOp(loaded[0], data), op)
            for k, part in enumerate(loaded[1:], start=1):
                position = materialize(k, op)
                value = _insert(
                    InsertElementOp.create(
                        operands=[part, value, position], result_types=[data]
                    ),
                    op,
                )
            op.value.replace_all_uses_with(value)
    else:
        for k, where in enumerate(at):
            part = op.value
            if isinstance(data, VectorType):
                part = _insert(
                    ExtractElementOp.create(
                        operands=[op.value, materialize(k, op)],
                        result_types=[element],
                    ),
                    op,
                )
            _guarded_write(op, view.ptr, where, part, extent)
    Rewriter.erase_op(op)
    return True


def _in_bounds(index: SSAValue, extent: Size, before: Operation) -> SSAValue:
    # Unsigned: a negative element (a negative i32 index) is out of bounds too.
    bound = materialize(extent, before)
    return _insert(arith.CmpiOp(index, bound, "ult"), before)


def _guarded_load(
    ptr: SSAValue,
    at: tuple[SSAValue, SSAValue],
    element: Attribute,
    extent: Size | None,
    before: Operation,
) -> SSAValue:
    """The element at `at` (the index from the base, the one checked)."""
    index, checked = at
    if extent is None:
        return _insert(LoadOp(ptr, index), before)
    ok = _in_bounds(checked, extent, before)
    load = LoadOp(ptr, index)
    zero = _zero(element)
    guarded = scf.IfOp(
        ok, [element], [load, scf.YieldOp(load)], [zero, scf.YieldOp(zero)]
    )
    return _insert(guarded, before)


def _guarded_write(
    op: BufferWrite,
    ptr: SSAValue,
    at: tuple[SSAValue, SSAValue],
    value: SSAValue,
    extent: Size | None,
) -> None:
    index, checked = at
    write: Operation
    if isinstance(op, RawBufferStoreOp):
        write = StoreOp(value, ptr, index)
    else:  # LLVM's buffer atomics are monotonic
        kind = ATOMICS[type(op)][0]
        write = AtomicRMWOp(kind, ptr, value, index, MemoryOrder.RELAXED)
    if extent is None:
        Rewriter.insert_op(write, InsertPoint.before(op))
        return
    ok = _in_bounds(checked, extent, op)
    Rewriter.insert_op(scf.IfOp(ok, [], [write, scf.YieldOp()]), InsertPoint.before(op))


def _zero(element: Attribute) -> arith.ConstantOp:
    if isinstance(element, IntegerType | IndexType):
        return arith.ConstantOp(IntegerAttr(0, element))
    assert isinstance(element, AnyFloat), element  # buffer_problem's types
    return arith.ConstantOp(FloatAttr(0.0, element))
