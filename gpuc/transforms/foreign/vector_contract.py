"""`vector.contract`, for vector_unroll.py: for each piece of the
accumulator, the products of every reduction point, in order, combined with
it by the contraction's kind (MLIR's semantics; the lhs and rhs elements are
extended to the accumulator's element type first). The lhs and rhs elements
of a piece's lanes are gathered into a vector of its width: a piece of the
operand where one lines up (a matmul's rhs row), a splat where the lanes
share one element (its lhs element).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import AnyFloat, IntegerType, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from gpuc.dialects.foreign.arith import ExtSIOp
from gpuc.dialects.foreign.vector import ContractionOp, IteratorType
from gpuc.transforms.foreign.vector_pieces import (
    Element,
    Unroller,
    element_type,
    flat,
    points,
    shape,
    vector_layout,
)

Combine = Callable[[SSAValue, SSAValue], Operation]
"""An arith op of two operands (its class)."""

FLOAT_KINDS: dict[str, Combine] = {
    "add": arith.AddfOp,
    "mul": arith.MulfOp,
    "minimumf": arith.MinimumfOp,
    "maximumf": arith.MaximumfOp,
    "minnumf": arith.MinnumfOp,
    "maxnumf": arith.MaxnumfOp,
}
INTEGER_KINDS: dict[str, Combine] = {
    "add": arith.AddiOp,
    "mul": arith.MuliOp,
    "minsi": arith.MinSIOp,
    "maxsi": arith.MaxSIOp,
    "minui": arith.MinUIOp,
    "maxui": arith.MaxUIOp,
    "and": arith.AndIOp,
    "or": arith.OrIOp,
    "xor": arith.XOrIOp,
}


def _dims_of(m: AffineMap) -> list[int] | None:
    """The iteration dimension of each result of `m`, or None when a result
    is not a plain dimension."""
    dims = [r.position for r in m.results if isinstance(r, AffineDimExpr)]
    return dims if len(dims) == len(m.results) else None


def contract_problem(op: ContractionOp, where: str) -> str | None:
    """Why `op` cannot be unrolled, if it cannot (`where`: ` in @k`)."""
    if op.masks:
        return f"has masks{where}, which gpuc does not support"
    maps = [m.data for m in op.indexing_maps.data]
    dims = [_dims_of(m) for m in maps]
    lhs_dims, rhs_dims, acc_dims = dims
    if lhs_dims is None or rhs_dims is None or acc_dims is None:
        return (
            f"has indexing maps {', '.join(map(str, maps))}{where}; gpuc takes "
            "maps whose results are iteration dimensions (as a matmul's)"
        )
    iterators = op.iterators()
    parallel = [d for d, it in enumerate(iterators) if it == IteratorType.PARALLEL]
    if sorted(acc_dims) != parallel:
        return (
            f"has accumulator map {maps[2]}{where}, which must name each parallel "
            "dimension once"
        )
    sizes: dict[int, int] = {}
    for value, named in ((op.lhs, lhs_dims), (op.rhs, rhs_dims), (op.acc, acc_dims)):
        for d, n in zip(named, shape(value.type), strict=True):
            if sizes.setdefault(d, n) != n:
                return f"gives iteration dimension d{d} two sizes{where}"
    if missing := [d for d in range(len(iterators)) if d not in sizes]:
        return f"names d{missing[0]} in no operand's map{where}"
    return _element_problem(op, where)


def _element_problem(op: ContractionOp, where: str) -> str | None:
    acc = element_type(op.acc.type)
    for operand in (op.lhs, op.rhs):
        t = element_type(operand.type)
        narrower = (
            isinstance(t, AnyFloat)
            and isinstance(acc, AnyFloat)
            and t.bitwidth < acc.bitwidth
            or isinstance(t, IntegerType)
            and isinstance(acc, IntegerType)
            and t.width.data < acc.width.data
        )
        if t != acc and not narrower:
            return (
                f"contracts {t} into {acc}{where}; the operands' element type must "
                "be the accumulator's or a narrower one of the same kind"
            )
    kind = op.combining_kind().value
    kinds = FLOAT_KINDS if isinstance(acc, AnyFloat) else INTEGER_KINDS
    if kind not in kinds:
        return f"has kind {kind} on {acc}{where}; gpuc takes {', '.join(kinds)}"
    return None


def contract(u: Unroller, op: ContractionOp) -> None:
    """Each accumulator piece, combined with the products of every
    reduction point in order (lhs and rhs gathered to the piece's lanes,
    a splat where the lanes share one element)."""
    maps = [_dims_of(m.data) for m in op.indexing_maps.data]
    lhs_dims, rhs_dims, acc_dims = maps
    assert lhs_dims is not None and rhs_dims is not None and acc_dims is not None
    bounds: dict[int, int] = {}
    for value, dims in ((op.lhs, lhs_dims), (op.rhs, rhs_dims)):
        for d, n in zip(dims, shape(value.type), strict=True):
            bounds[d] = n
    iterators = op.iterators()
    reduction = [d for d, it in enumerate(iterators) if it == IteratorType.REDUCTION]
    acc_type = op.acc.type
    acc_shape = shape(acc_type)
    element = element_type(acc_type)
    kinds = FLOAT_KINDS if isinstance(element, AnyFloat) else INTEGER_KINDS
    combine = kinds[op.combining_kind().value]
    multiply = arith.MulfOp if isinstance(element, AnyFloat) else arith.MuliOp
    acc_points = points(acc_shape) or [()]
    made: dict[tuple[Element, ...], SSAValue] = {}

    def factor(value: SSAValue, refs: list[Element]) -> SSAValue:
        """The lanes' elements of `value` in the accumulator's type (a
        splat of one element widened once, before the broadcast)."""
        key = (value, *refs)
        if key in made:
            return made[key]
        own, width = element_type(value.type), len(refs)
        one = all(ref == refs[0] for ref in refs)
        got = u.element(refs[0]) if one else u.piece(VectorType(own, [width]), refs)
        if own != element:
            wide = VectorType(element, [width]) if not one else element
            got = u.emit(
                arith.ExtFOp(got, wide)
                if isinstance(element, AnyFloat)
                else ExtSIOp(got, wide)
            )
        if one and width > 1:
            got = u.emit(vector.BroadcastOp(got, VectorType(element, [width])))
        made[key] = got
        return got

    result: list[SSAValue] = []
    for k, (start, width) in enumerate(vector_layout(acc_type)):
        total = u.get(op.acc)[k]
        for r in points([bounds[d] for d in reduction]):
            factors: list[SSAValue] = []
            for value, dims in ((op.lhs, lhs_dims), (op.rhs, rhs_dims)):
                refs: list[Element] = []
                for lane in range(width):
                    at = dict(zip(acc_dims, acc_points[start + lane], strict=True))
                    at |= dict(zip(reduction, r, strict=True))
                    index = [at[d] for d in dims]
                    refs.append((value, flat(index, shape(value.type))))
                factors.append(factor(value, refs))
            term = u.emit(multiply(factors[0], factors[1]))
            total = u.emit(combine(total, term))
        result.append(total)
    u.define(op.result, result)
