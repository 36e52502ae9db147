"""Translators of the warp matrix ops (gpuc/dialects/matrix.py).

A target with its own layout lowers them itself (`Target.matrix_layout`: ptx, to
NVVM's wmma intrinsics, gpuc/targets/ptx/wmma.py; spirv, a tile spread over a
sub-group of 32 lanes, gpuc/targets/spirv/lane_matrices.py). The others (native,
amdgpu) get the emulation here, correct for any subgroup size: every thread
holds the whole tile as an SSA value, an array of row vectors
(`[rows x <cols x T>]`, indexed with constants only, so no memory is
involved and a fragment may be carried by loops and live across barriers);
a load reads the whole tile, the multiply-accumulate (rows x k vector
multiply-adds) and the elementwise ops run in every thread, and a store
writes each element once (`emulate_store`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

from llvmlite import ir

from gpuc.dialects.matrix import (
    MATRIX_OPS,
    ElementwiseKind,
    FragmentType,
    MatrixElementwiseOp,
    MatrixLoadOp,
    MatrixMmaOp,
    MatrixSplatOp,
    MatrixStoreOp,
    fragment_of,
)
from gpuc.lowering.context import FunctionLowering, ModuleLowering, translates
from gpuc.lowering.subgroup import warp_index


def fragment_type(fragment: FragmentType, ml: ModuleLowering) -> ir.Type:
    """The LLVM type of a fragment value on `ml`'s target."""
    return ml.target.fragment_type(ml, fragment)


def tile_type(ml: ModuleLowering, fragment: FragmentType) -> ir.Type:
    """The emulation's fragment: the whole tile as an array of row vectors,
    `[rows x <cols x T>]`."""
    row = ir.VectorType(ml.type(fragment.element), fragment.cols.data)
    return ir.ArrayType(row, fragment.rows.data)


def counted_loop(
    fl: FunctionLowering,
    start: ir.Value,
    stop: ir.Value,
    step: ir.Value,
    carried: Sequence[ir.Value],
    body: Callable[[ir.Value, list[ir.Value]], list[ir.Value]],
) -> list[ir.Value]:
    """`for i = start; i < stop; i += step` (unsigned), `body(i, carried)`
    returning the next iteration's values; the builder ends after the loop,
    which returns the last values."""
    b = fl.builder
    before = b.block
    head = b.append_basic_block("tile.head")
    loop = b.append_basic_block("tile.body")
    done = b.append_basic_block("tile.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(start.type)
    i.add_incoming(start, before)
    phis = []
    for value in carried:
        phi = b.phi(value.type)
        phi.add_incoming(value, before)
        phis.append(phi)
    b.cbranch(b.icmp_unsigned("<", i, stop), loop, done)
    b.position_at_end(loop)
    nexts = body(i, list(phis))
    i.add_incoming(b.add(i, step), b.block)
    for phi, value in zip(phis, nexts, strict=True):
        phi.add_incoming(value, b.block)
    b.branch(head)
    b.position_at_end(done)
    return list(phis)


def _index(fl: FunctionLowering, value: int) -> ir.Constant:
    return ir.Constant(fl.ml.index_type, value)


def _rows(
    fl: FunctionLowering, value: ir.Value, fragment: FragmentType
) -> list[ir.Value]:
    return [fl.builder.extract_value(value, r) for r in range(fragment.rows.data)]


def _pack(
    fl: FunctionLowering, rows: Sequence[ir.Value], fragment: FragmentType
) -> ir.Value:
    value: ir.Value = ir.Constant(fragment_type(fragment, fl.ml), ir.Undefined)
    for r, row in enumerate(rows):
        value = fl.builder.insert_value(value, row, r)
    return value


def _address(
    fl: FunctionLowering, op: MatrixLoadOp | MatrixStoreOp, row: ir.Value, col: ir.Value
) -> ir.Value:
    """The address of tile element (`row`, `col`) in `op`'s memory (checked
    where the target checks accesses)."""
    b = fl.builder
    if op.transpose is not None:
        row, col = col, row
    index = b.add(fl.get(op.index), b.add(b.mul(row, fl.get(op.stride)), col))
    at = b.gep(
        fl.get(op.ptr),
        [index],
        inbounds=True,
        source_etype=fl.type(op.fragment.element),
    )
    fl.target.check_access(fl, op, op.ptr, at)
    return at


def emulate_load(fl: FunctionLowering, op: MatrixLoadOp) -> ir.Value:
    """Each row vector filled by a loop over its columns."""
    b = fl.builder
    fragment = op.fragment
    element = fl.type(fragment.element)
    empty = ir.Constant(ir.VectorType(element, fragment.cols.data), ir.Undefined)
    rows = []
    for r in range(fragment.rows.data):

        def fill(c: ir.Value, acc: list[ir.Value], r: int = r) -> list[ir.Value]:
            value = b.load(_address(fl, op, _index(fl, r), c), typ=element)
            return [b.insert_element(acc[0], value, c)]

        (row,) = counted_loop(
            fl,
            _index(fl, 0),
            _index(fl, fragment.cols.data),
            _index(fl, 1),
            [empty],
            fill,
        )
        rows.append(row)
    return _pack(fl, rows, fragment)


def emulate_store(fl: FunctionLowering, op: MatrixStoreOp) -> None:
    """Where the lanes of a subgroup run together (spirv, amdgpu), element
    e = r * cols + c from lane `e mod size`: in row r, that lane's columns
    are c0, c0 + size, ... with c0 = (lane - r * cols) mod size. Where they
    run one after another (native's thread loops), every element from the
    subgroup's last lane, once every lane has made the loads before it: a
    tile stored where it was loaded from is then read whole first, as on
    a GPU."""
    b = fl.builder
    fragment = op.fragment
    target = fl.target
    cols = fragment.cols.data
    one = _index(fl, 1)
    if target.subgroup_collectives:
        lane = target.subgroup_index(fl, "lane_id")
        size = target.subgroup_index(fl, "subgroup_size")
    else:
        lane, size = warp_index(fl, "lane_id"), warp_index(fl, "subgroup_size")
        last = b.icmp_unsigned("==", lane, b.sub(size, one))
        lane = b.select(last, _index(fl, 0), _index(fl, cols))
        size = one
    for r, row in enumerate(_rows(fl, fl.get(op.value), fragment)):
        before = b.urem(_index(fl, r * cols), size)
        first = (
            b.urem(b.sub(b.add(lane, size), before), size) if size is not one else lane
        )

        def put(
            c: ir.Value, _: list[ir.Value], r: int = r, row: ir.Value = row
        ) -> list[ir.Value]:
            b.store(b.extract_element(row, c), _address(fl, op, _index(fl, r), c))
            return []

        counted_loop(fl, first, _index(fl, cols), size, [], put)


def emulate_mma(fl: FunctionLowering, op: MatrixMmaOp) -> ir.Value:
    """D's row i is C's plus the sum over k of A[i][k] times B's row k, in
    f32 (products of f16 are exact there), rounded to D's type once."""
    b = fl.builder
    a_type, b_type, c_type = (fragment_of(v) for v in (op.a, op.b, op.c))
    f32 = ir.FloatType()
    wide = ir.VectorType(f32, c_type.cols.data)

    def widen(row: ir.Value) -> ir.Value:
        return row if row.type == wide else b.fpext(row, wide)

    a_rows = _rows(fl, fl.get(op.a), a_type)
    b_rows = [widen(row) for row in _rows(fl, fl.get(op.b), b_type)]
    out = []
    for i, c_row in enumerate(_rows(fl, fl.get(op.c), c_type)):
        acc = widen(c_row)
        for k, b_row in enumerate(b_rows):
            x = b.extract_element(a_rows[i], ir.Constant(ir.IntType(32), k))
            if x.type != f32:
                x = b.fpext(x, f32)
            acc = b.fadd(acc, b.fmul(_splat(b, x, wide), b_row))
        out.append(acc if acc.type == c_row.type else b.fptrunc(acc, c_row.type))
    _ = i
    return _pack(fl, out, c_type)


def _splat(b: ir.IRBuilder, x: ir.Value, ty: ir.VectorType) -> ir.Value:
    one = b.insert_element(
        ir.Constant(ty, ir.Undefined), x, ir.Constant(ir.IntType(32), 0)
    )
    mask = ir.Constant(ir.VectorType(ir.IntType(32), ty.count), [0] * ty.count)
    return b.shuffle_vector(one, ir.Constant(ty, ir.Undefined), mask)


def emulate_splat(fl: FunctionLowering, op: MatrixSplatOp) -> ir.Value:
    fragment = fragment_of(op.result)
    row = _splat(
        fl.builder,
        fl.get(op.value),
        ir.VectorType(fl.type(fragment.element), fragment.cols.data),
    )
    return _pack(fl, [row] * fragment.rows.data, fragment)


def combine(
    b: ir.IRBuilder, kind: ElementwiseKind, args: Sequence[ir.Value], to: ir.Type
) -> ir.Value:
    """`gpuc.matrix_elementwise` on elements, or vectors of them."""
    x = args[0]
    if kind is ElementwiseKind.NEGATEF:
        return b.fneg(x)
    if kind is ElementwiseKind.EXTF:
        return b.fpext(x, to)
    y = args[1]
    if kind is ElementwiseKind.ADDF:
        return b.fadd(x, y)
    if kind is ElementwiseKind.SUBF:
        return b.fsub(x, y)
    if kind is ElementwiseKind.MULF:
        return b.fmul(x, y)
    if kind is ElementwiseKind.DIVF:
        return b.fdiv(x, y)
    keep = b.fcmp_ordered(">" if kind is ElementwiseKind.MAXF else "<", x, y)
    picked = b.select(keep, x, y)
    nan = b.fcmp_unordered("uno", x, y)
    quiet = ir.Constant(x.type, float("nan"))
    if isinstance(x.type, ir.VectorType):
        quiet = ir.Constant(x.type, [float("nan")] * x.type.count)
    return b.select(nan, quiet, picked)


def emulate_elementwise(fl: FunctionLowering, op: MatrixElementwiseOp) -> ir.Value:
    result = fragment_of(op.result)
    to = ir.VectorType(fl.type(result.element), result.cols.data)
    rows = zip(
        *(_rows(fl, fl.get(arg), fragment_of(arg)) for arg in op.args), strict=True
    )
    out = [combine(fl.builder, op.kind.data, list(row), to) for row in rows]
    return _pack(fl, out, result)


def _mark_convergent(fl: FunctionLowering) -> None:
    """On a target with its own fragment layout (`Target.matrix_layout`) the
    matrix ops are collectives (wmma's intrinsics, sub-group shuffles), so
    the helpers that reach one are `convergent`, as those reaching a barrier
    are: LLVM must not move their calls into divergent control flow."""
    if not fl.target.matrix_layout:
        return
    for name in using_fragments(fl.ml):
        fn = fl.ml.functions.get(name)
        if fn is not None and name not in fl.ml.records:
            fn.attributes.add("convergent")


@translates(MatrixLoadOp)
def translate_matrix_load(op: MatrixLoadOp, fl: FunctionLowering) -> None:
    _mark_convergent(fl)
    fl.set(op, fl.target.matrix_load(fl, op))


@translates(MatrixStoreOp)
def translate_matrix_store(op: MatrixStoreOp, fl: FunctionLowering) -> None:
    _mark_convergent(fl)
    fl.target.matrix_store(fl, op)


@translates(MatrixMmaOp)
def translate_matrix_mma(op: MatrixMmaOp, fl: FunctionLowering) -> None:
    _mark_convergent(fl)
    fl.set(op, fl.target.matrix_mma(fl, op))


@translates(MatrixSplatOp)
def translate_matrix_splat(op: MatrixSplatOp, fl: FunctionLowering) -> None:
    _mark_convergent(fl)
    fl.set(op, fl.target.matrix_splat(fl, op))


@translates(MatrixElementwiseOp)
def translate_matrix_elementwise(op: MatrixElementwiseOp, fl: FunctionLowering) -> None:
    _mark_convergent(fl)
    fl.set(op, fl.target.matrix_elementwise(fl, op))


WARP = 32
"""The subgroup size the matrix ops' programs are written for (CUDA's warp)."""
_using: weakref.WeakKeyDictionary[ModuleLowering, set[str]] = (
    weakref.WeakKeyDictionary()
)


def using_fragments(ml: ModuleLowering) -> set[str]:
    """The functions of `ml`'s module that use a fragment, themselves or by
    a call: a target whose runtime picks the subgroup size (spirv) runs
    their kernels with subgroups of `WARP` lanes, those its layout spreads a
    fragment over; a block of 32 threads is then one subgroup, as the
    program's author had it on CUDA."""
    found = _using.get(ml)
    if found is None:
        from gpuc.asserts import functions_reaching

        found = _using[ml] = functions_reaching(
            ml.module, *(op.name for op in MATRIX_OPS)
        )
    return found
