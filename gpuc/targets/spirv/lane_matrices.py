"""The warp matrix ops spread over a subgroup's 32 lanes, as matrix hardware
spreads them (the spirv target's, whose kernels using fragments run with
sub-groups of 32: `OpExecutionMode SubgroupSize 32`).

Lane L holds the tile's elements L, L + 32, ..., L + 224 as a vector of 8:
element j is (row 2j + L / 16, column L mod 16). Loads and stores move a
lane's own elements; splats and elementwise ops work on them; the
multiply-accumulate reads the A and B elements a lane needs from the lanes
holding them with sub-group shuffles (`read_lane`): A[i][k] is register j of
lane 16 (L / 16) + k, B[k][c] register k / 2 of lane 16 (k mod 2) + c, so
every lane reads the same register, 16 shuffles of B and 128 of A per tile.
Scalar code per lane, which a SIMD runtime maps onto its vector lanes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from gpuc.dialects.matrix import (
    ElementwiseKind,
    FragmentType,
    MatrixElementwiseOp,
    MatrixLoadOp,
    MatrixMmaOp,
    MatrixSplatOp,
    MatrixStoreOp,
    fragment_of,
)
from gpuc.targets.base import Target

if TYPE_CHECKING:
    from llvmlite import ir

    from gpuc.lowering.context import FunctionLowering, ModuleLowering

LANES = 32
"""The subgroup size this layout needs (gpuc/lowering/matrix.py's WARP)."""


def _per_lane(fragment: FragmentType) -> int:
    return fragment.count // LANES


class LaneMatrices(Target):
    """The matrix hooks of `Target` (gpuc/lowering/matrix.py) for a target with
    sub-group shuffles and sub-groups of 32 lanes: a tile spread over a
    sub-group's lanes."""

    matrix_layout: ClassVar[bool] = True

    def fragment_type(self, ml: ModuleLowering, fragment: FragmentType) -> ir.Type:
        from llvmlite import ir

        return ir.VectorType(ml.type(fragment.element), _per_lane(fragment))

    def _lane(self, fl: FunctionLowering) -> ir.Value:
        return self.subgroup_index(fl, "lane_id")

    def _addresses(
        self, fl: FunctionLowering, op: MatrixLoadOp | MatrixStoreOp
    ) -> list[ir.Value]:
        """The address of each of the lane's elements in `op`'s memory."""
        from llvmlite import ir

        b = fl.builder
        fragment = op.fragment
        lane = self._lane(fl)
        cols = fragment.cols.data
        index_type = lane.type
        col = b.urem(lane, ir.Constant(index_type, cols))
        half = b.udiv(lane, ir.Constant(index_type, cols))
        rows_per_register = LANES // cols
        element = fl.type(fragment.element)
        out = []
        for j in range(_per_lane(fragment)):
            row = b.add(half, ir.Constant(index_type, rows_per_register * j))
            r, c = (col, row) if op.transpose is not None else (row, col)
            offset = b.add(b.mul(r, fl.get(op.stride)), c)
            index = b.add(fl.get(op.index), offset)
            out.append(
                b.gep(fl.get(op.ptr), [index], inbounds=True, source_etype=element)
            )
        return out

    def matrix_load(self, fl: FunctionLowering, op: MatrixLoadOp) -> ir.Value:
        from llvmlite import ir

        b = fl.builder
        ty = self.fragment_type(fl.ml, op.fragment)
        value: ir.Value = ir.Constant(ty, ir.Undefined)
        element = fl.type(op.fragment.element)
        for j, at in enumerate(self._addresses(fl, op)):
            loaded = b.load(at, typ=element)
            value = b.insert_element(value, loaded, ir.Constant(ir.IntType(32), j))
        return value

    def matrix_store(self, fl: FunctionLowering, op: MatrixStoreOp) -> None:
        from llvmlite import ir

        b = fl.builder
        value = fl.get(op.value)
        for j, at in enumerate(self._addresses(fl, op)):
            b.store(b.extract_element(value, ir.Constant(ir.IntType(32), j)), at)

    def matrix_mma(self, fl: FunctionLowering, op: MatrixMmaOp) -> ir.Value:
        """Each D element in f32 (products of f16 are exact there), rounded
        to D's type once."""
        from llvmlite import ir

        b = fl.builder
        read_lane = self.read_lane
        f32 = ir.FloatType()
        a, bv, c = fl.get(op.a), fl.get(op.b), fl.get(op.c)
        k_count = fragment_of(op.a).cols.data
        cols = fragment_of(op.c).cols.data
        lane = b.trunc(self._lane(fl), ir.IntType(32))
        col = b.urem(lane, ir.Constant(ir.IntType(32), cols))
        base = b.mul(
            b.udiv(lane, ir.Constant(ir.IntType(32), cols)),
            ir.Constant(ir.IntType(32), cols),
        )

        def wide(value: ir.Value) -> ir.Value:
            return value if value.type == f32 else b.fpext(value, f32)

        def register(vector: ir.Value, j: int) -> ir.Value:
            return wide(b.extract_element(vector, ir.Constant(ir.IntType(32), j)))

        rows_per_register = LANES // cols
        b_column = []
        for k in range(k_count):
            source = b.add(
                ir.Constant(ir.IntType(32), cols * (k % rows_per_register)), col
            )
            b_column.append(
                read_lane(fl, op, register(bv, k // rows_per_register), source)
            )
        ty = self.fragment_type(fl.ml, fragment_of(op.c))
        out: ir.Value = ir.Constant(ty, ir.Undefined)
        for j in range(_per_lane(fragment_of(op.c))):
            acc = register(c, j)
            a_register = register(a, j)
            for k in range(k_count):
                source = b.add(base, ir.Constant(ir.IntType(32), k))
                x = read_lane(fl, op, a_register, source)
                acc = b.fadd(acc, b.fmul(x, b_column[k]))
            if acc.type != ty.element:
                acc = b.fptrunc(acc, ty.element)
            out = b.insert_element(out, acc, ir.Constant(ir.IntType(32), j))
        return out

    def matrix_splat(self, fl: FunctionLowering, op: MatrixSplatOp) -> ir.Value:
        from llvmlite import ir

        ty = self.fragment_type(fl.ml, fragment_of(op.result))
        value: ir.Value = ir.Constant(ty, ir.Undefined)
        for j in range(ty.count):
            value = fl.builder.insert_element(
                value, fl.get(op.value), ir.Constant(ir.IntType(32), j)
            )
        return value

    def matrix_elementwise(
        self, fl: FunctionLowering, op: MatrixElementwiseOp
    ) -> ir.Value:
        from gpuc.lowering.matrix import combine

        to = self.fragment_type(fl.ml, fragment_of(op.result))
        args = [fl.get(arg) for arg in op.args]
        kind: ElementwiseKind = op.kind.data
        return combine(fl.builder, kind, args, to)
