"""`vector.transfer_read`/`transfer_write` and n-D `vector.load`/`store` on
memrefs, for vector_unroll.py: a `memref.load` (`memref.store`) of each
element at the indices the permutation map gives it (a broadcast dimension
reads the same element for each of its positions). Where a dimension is not
`in_bounds`, each of its positions is compared with the memref's size once,
and an element outside reads the padding (an `scf.if`) or is not written;
the memref import then makes the accesses gpuc loads and stores.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import MemRefType, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from gpuc.dialects.foreign.arith import CmpiOp
from gpuc.transforms.foreign.vector_pieces import Element, Unroller, points

TRANSFERS = ("vector.transfer_read", "vector.transfer_write")


def transfer_problem(op: Operation, where: str) -> str | None:
    """Why a transfer cannot be unrolled, if it cannot (`where`: ` in @k`)."""
    assert isinstance(op, vector.TransferReadOp | vector.TransferWriteOp)
    source = op.source.type
    if not isinstance(source, MemRefType):
        return f"transfers from {source}{where}; bufferize to memrefs first"
    vt = op.result.type if isinstance(op, vector.TransferReadOp) else op.vector.type
    assert isinstance(vt, VectorType)
    if vt.get_num_dims() == 0:
        return f"transfers {vt}{where}; gpuc's vectors have at least one dimension"
    if isinstance(source.element_type, VectorType):
        return f"transfers from {source}{where}, a memref of vectors; use scalars"
    if op.mask is not None:
        return (
            f"has a mask{where}, which gpuc does not support; use in_bounds = "
            "false for a transfer that may run past the end"
        )
    m = op.permutation_map.data
    for r in m.results:
        if isinstance(r, AffineConstantExpr) and isinstance(op, vector.TransferWriteOp):
            return f"writes with a broadcast in {m}{where}; a write needs no broadcast"
        if not isinstance(r, AffineDimExpr | AffineConstantExpr):
            return f"has permutation map {m}{where}; gpuc takes projected permutations"
    return None


def access_problem(op: Operation, where: str) -> str | None:
    """Why an n-D vector.load/store cannot be unrolled, if it cannot: its
    rows lie along the memref's trailing dimensions, so it needs as many."""
    assert isinstance(op, vector.LoadOp | vector.StoreOp)
    vt = op.result.type if isinstance(op, vector.LoadOp) else op.vector.type
    assert isinstance(vt, VectorType)
    if len(op.indices) < vt.get_num_dims():
        return (
            f"{op.name} of {vt} from a memref of {len(op.indices)} dimensions"
            f"{where}; the vector's dimensions are the memref's trailing ones"
        )
    return None


def _transfer(
    op: Operation,
) -> tuple[SSAValue, list[SSAValue], VectorType, AffineMap, list[bool]]:
    """Source, indices, vector type, permutation map and in_bounds of a
    transfer, or those a vector.load/store means (all in bounds)."""
    if isinstance(op, vector.TransferReadOp | vector.TransferWriteOp):
        vt = op.result.type if isinstance(op, vector.TransferReadOp) else op.vector.type
        in_bounds = [bool(b.value.data) for b in op.in_bounds.data]
        source, indices, m = op.source, list(op.indices), op.permutation_map.data
    else:
        assert isinstance(op, vector.LoadOp | vector.StoreOp)
        vt = op.result.type if isinstance(op, vector.LoadOp) else op.vector.type
        source, indices = op.base, list(op.indices)
        assert isinstance(vt, VectorType)
        rank = len(indices)
        m = AffineMap.minor_identity(rank, vt.get_num_dims())
        in_bounds = [True] * vt.get_num_dims()
    assert isinstance(vt, VectorType)
    return source, indices, vt, m, in_bounds


def element_accesses(
    u: Unroller, op: Operation
) -> tuple[SSAValue, list[tuple[list[SSAValue], SSAValue | None]]]:
    """The memref, and for each element of the vector (row-major) its
    indices there and the condition that it is in bounds (None: it is)."""
    source, base, vt, m, in_bounds = _transfer(op)
    offsets: dict[tuple[int, int], SSAValue] = {}
    inside: dict[tuple[int, int], SSAValue] = {}
    sizes: dict[int, SSAValue] = {}
    result: list[tuple[list[SSAValue], SSAValue | None]] = []
    for point in points(vt.get_shape()):
        indices = list(base)
        conditions: list[SSAValue] = []
        for k, (r, at) in enumerate(zip(m.results, point, strict=True)):
            if not isinstance(r, AffineDimExpr):
                continue  # a broadcast dimension
            d = r.position
            if (d, at) not in offsets:
                offsets[d, at] = (
                    base[d] if at == 0 else u.emit(arith.AddiOp(base[d], u.index(at)))
                )
            indices[d] = offsets[d, at]
            if in_bounds[k]:
                continue
            if d not in sizes:
                sizes[d] = u.emit(memref.DimOp(source, u.index(d)))
            if (d, at) not in inside:
                inside[d, at] = u.emit(CmpiOp(indices[d], sizes[d], "ult"))
            conditions.append(inside[d, at])
        condition: SSAValue | None = None
        for c in conditions:
            condition = c if condition is None else u.emit(arith.AndIOp(condition, c))
        result.append((indices, condition))
    return source, result


def read(u: Unroller, op: vector.TransferReadOp | vector.LoadOp) -> None:
    """Each element loaded (or the padding, out of bounds), then built."""
    source, accesses = element_accesses(u, op)
    loaded: list[Element] = []
    for indices, condition in accesses:
        load = memref.LoadOp.get(source, indices)
        if condition is None:
            loaded.append(u.emit(load))
            continue
        assert isinstance(op, vector.TransferReadOp)
        load.location = op.location
        choose = scf.IfOp(
            condition,
            [op.padding.type],
            [load, scf.YieldOp(load)],
            [scf.YieldOp(op.padding)],
        )
        loaded.append(u.emit(choose))
    result = op.result
    u.define(result, u.build(result.type, loaded))


def write(u: Unroller, op: vector.TransferWriteOp | vector.StoreOp) -> None:
    """Each element stored (where it is in bounds)."""
    source, accesses = element_accesses(u, op)
    for at, (indices, condition) in enumerate(accesses):
        value = u.element((op.vector, at))
        store = memref.StoreOp.get(value, source, indices)
        if condition is None:
            u.place(store)
            continue
        store.location = op.location
        u.place(scf.IfOp(condition, [], [store, scf.YieldOp()]))
