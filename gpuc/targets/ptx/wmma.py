"""The warp matrix ops on ptx: NVVM's wmma intrinsics (PTX `wmma.load`,
`wmma.mma`, `wmma.store`, m16n16k16, sm_70 and later: every sm the ptx
target supports).

A fragment is the intrinsic's struct of the thread's registers: eight
`<2 x half>` for A and B, four `<2 x half>` for an f16 C, eight `float` for
an f32 C. `transpose` (a_transpose, b_transpose) selects the column-major
layout (`.col`); splats and elementwise ops work on each register, as every
thread's registers of two fragments of one type hold the same elements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import Float16Type

from gpuc.dialects.matrix import (
    FragmentType,
    MatrixElementwiseOp,
    MatrixLoadOp,
    MatrixMmaOp,
    MatrixOperand,
    MatrixSplatOp,
    MatrixStoreOp,
    fragment_of,
)
from gpuc.targets.base import Target

if TYPE_CHECKING:
    from llvmlite import ir

    from gpuc.lowering.context import FunctionLowering, ModuleLowering

SHAPE = "m16n16k16"


def registers(fragment: FragmentType) -> tuple[ir.Type, int]:
    """The type and number of a thread's registers of `fragment`."""
    from llvmlite import ir

    if fragment.kind is not MatrixOperand.C:
        return ir.VectorType(ir.HalfType(), 2), 8
    if isinstance(fragment.element, Float16Type):
        return ir.VectorType(ir.HalfType(), 2), 4
    return ir.FloatType(), 8


def _suffix(fragment: FragmentType) -> str:
    return str(fragment.element)


def _layout(flag: object) -> str:
    return "col" if flag is not None else "row"


class WmmaMatrices(Target):
    """The matrix hooks of `Target` (gpuc/lowering/matrix.py) of the ptx target:
    NVVM's wmma intrinsics."""

    matrix_layout: ClassVar[bool] = True

    def fragment_type(self, ml: ModuleLowering, fragment: FragmentType) -> ir.Type:
        from llvmlite import ir

        register, count = registers(fragment)
        return ir.LiteralStructType([register] * count)

    def _address(
        self, fl: FunctionLowering, op: MatrixLoadOp | MatrixStoreOp
    ) -> ir.Value:
        element = fl.type(op.fragment.element)
        return fl.builder.gep(
            fl.get(op.ptr), [fl.get(op.index)], inbounds=True, source_etype=element
        )

    def _stride(
        self, fl: FunctionLowering, op: MatrixLoadOp | MatrixStoreOp
    ) -> ir.Value:
        from llvmlite import ir

        return fl.builder.trunc(fl.get(op.stride), ir.IntType(32))

    def matrix_load(self, fl: FunctionLowering, op: MatrixLoadOp) -> ir.Value:
        from llvmlite import ir

        fragment = op.fragment
        address = self._address(fl, op)
        space = address.type.addrspace
        name = (
            f"llvm.nvvm.wmma.{SHAPE}.load.{fragment.kind.value}."
            f"{_layout(op.transpose)}.stride.{_suffix(fragment)}.p{space}"
        )
        result = self.fragment_type(fl.ml, fragment)
        fn = fl.ml.intrinsic(name, result, [address.type, ir.IntType(32)])
        return fl.builder.call(fn, [address, self._stride(fl, op)])

    def matrix_store(self, fl: FunctionLowering, op: MatrixStoreOp) -> None:
        from llvmlite import ir

        fragment = op.fragment
        address = self._address(fl, op)
        space = address.type.addrspace
        name = (
            f"llvm.nvvm.wmma.{SHAPE}.store.d.{_layout(op.transpose)}.stride."
            f"{_suffix(fragment)}.p{space}"
        )
        values = _unpack(fl, fl.get(op.value), fragment)
        params = [address.type, *(v.type for v in values), ir.IntType(32)]
        fn = fl.ml.intrinsic(name, ir.VoidType(), params)
        fl.builder.call(fn, [address, *values, self._stride(fl, op)])

    def matrix_mma(self, fl: FunctionLowering, op: MatrixMmaOp) -> ir.Value:
        c = fragment_of(op.c)
        name = (
            f"llvm.nvvm.wmma.{SHAPE}.mma.{_layout(op.a_transpose)}."
            f"{_layout(op.b_transpose)}.{_suffix(c)}.{_suffix(c)}"
        )
        args = [
            *_unpack(fl, fl.get(op.a), fragment_of(op.a)),
            *_unpack(fl, fl.get(op.b), fragment_of(op.b)),
            *_unpack(fl, fl.get(op.c), c),
        ]
        result = self.fragment_type(fl.ml, c)
        fn = fl.ml.intrinsic(name, result, [a.type for a in args])
        return fl.builder.call(fn, args)

    def matrix_splat(self, fl: FunctionLowering, op: MatrixSplatOp) -> ir.Value:
        from llvmlite import ir

        fragment = fragment_of(op.result)
        register, count = registers(fragment)
        value = fl.get(op.value)
        b = fl.builder
        if isinstance(register, ir.VectorType):
            pair = ir.Constant(register, ir.Undefined)
            for lane in range(register.count):
                pair = b.insert_element(pair, value, ir.Constant(ir.IntType(32), lane))
            value = pair
        return _pack(fl, [value] * count, fragment)

    def matrix_elementwise(
        self, fl: FunctionLowering, op: MatrixElementwiseOp
    ) -> ir.Value:
        from llvmlite import ir

        from gpuc.dialects.matrix import ElementwiseKind
        from gpuc.lowering.matrix import combine

        b = fl.builder
        result = fragment_of(op.result)
        args = [_unpack(fl, fl.get(a), fragment_of(a)) for a in op.args]
        if op.kind.data is ElementwiseKind.EXTF:
            # An f16 C's pair i holds the f32 C's registers 2i and 2i + 1.
            wide = [
                b.fpext(
                    b.extract_element(pair, ir.Constant(ir.IntType(32), j)),
                    ir.FloatType(),
                )
                for pair in args[0]
                for j in range(2)
            ]
            return _pack(fl, wide, result)
        out = [
            combine(b, op.kind.data, list(regs), regs[0].type)
            for regs in zip(*args, strict=True)
        ]
        return _pack(fl, out, result)


def _unpack(
    fl: FunctionLowering, value: ir.Value, fragment: FragmentType
) -> list[ir.Value]:
    _, count = registers(fragment)
    return [fl.builder.extract_value(value, i) for i in range(count)]


def _pack(
    fl: FunctionLowering, values: list[ir.Value], fragment: FragmentType
) -> ir.Value:
    from llvmlite import ir

    register, count = registers(fragment)
    struct: ir.Value = ir.Constant(
        ir.LiteralStructType([register] * count), ir.Undefined
    )
    for i, value in enumerate(values):
        struct = fl.builder.insert_value(struct, value, i)
    return struct
