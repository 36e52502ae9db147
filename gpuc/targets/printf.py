"""Each target's device-side printf, for `gpuc.printf` (gpuc/lowering/printf.py
promotes the values and respells the format first):

- ptx: CUDA's `vprintf(format, args)`, the format a constant in global
  memory, the values in a local buffer laid out as a struct of them (each at
  its natural alignment), as nvcc passes them;
- spirv: OpenCL's `printf`, the format in the constant address space (LLVM's
  SPIR-V back-end makes the call `OpExtInst printf`);
- native: `snprintf` into a buffer from `malloc` (its length measured by a
  first `snprintf`; an op of a work-group function has no stack slot of its
  own), handed with the block's linear index to `__gpuc_print`, which the native
  executor defines: it keeps each block's text and prints it after the
  launch, blocks in order (docs/runtime.md, "Printing").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from gpuc.lowering.printf import format_string
from gpuc.targets.launch_abi import NATIVE_PRINT

if TYPE_CHECKING:
    from gpuc.dialects.printf import PrintfOp
    from gpuc.lowering.context import FunctionLowering

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)


def vprintf(fl: FunctionLowering, text: str, values: list[ir.Value]) -> None:
    b = fl.builder
    generic = ir.PointerType()
    vprintf = fl.ml.intrinsic("vprintf", I32, [generic, generic], ("nounwind",))
    format = b.addrspacecast(format_string(fl.ml.llvm, text, 1), generic)
    args: ir.Value = ir.Constant(generic, None)
    if values:
        packed = ir.LiteralStructType([v.type for v in values])
        args = fl.alloca(packed, "printf.args")
        for i, value in enumerate(values):
            field = b.gep(args, [I32(0), I32(i)], inbounds=True, source_etype=packed)
            b.store(value, field)
    b.call(vprintf, [format, args])


def opencl_printf(fl: FunctionLowering, text: str, values: list[ir.Value]) -> None:
    b = fl.builder
    constant = ir.PointerType(addrspace=2)
    printf = fl.ml.llvm.globals.get("printf")
    if not isinstance(printf, ir.Function):
        printf = ir.Function(
            fl.ml.llvm, ir.FunctionType(I32, [constant], var_arg=True), "printf"
        )
        printf.calling_convention = "spir_func"  # as OpenCL C's builtins
    b.call(printf, [format_string(fl.ml.llvm, text, 2), *values], cconv="spir_func")


def native_printf(
    fl: FunctionLowering, op: PrintfOp, text: str, values: list[ir.Value]
) -> None:
    b = fl.builder
    ptr = ir.PointerType()
    ml = fl.ml
    snprintf = ml.llvm.globals.get("snprintf")
    if not isinstance(snprintf, ir.Function):
        snprintf = ir.Function(
            ml.llvm, ir.FunctionType(I32, [ptr, I64, ptr], var_arg=True), "snprintf"
        )
    hook = ml.intrinsic(NATIVE_PRINT, ir.VoidType(), [I64, ptr, I64], ("nounwind",))
    malloc = ml.intrinsic("malloc", ptr, [I64])
    free = ml.intrinsic("free", ir.VoidType(), [ptr])
    format = format_string(ml.llvm, text, 0)
    block_id = [fl.target.index(fl, "block_id", d) for d in range(3)]
    grid = [fl.target.index(fl, "grid_dim", d) for d in range(2)]
    linear = b.add(
        block_id[0], b.mul(grid[0], b.add(block_id[1], b.mul(grid[1], block_id[2])))
    )
    null = ir.Constant(ptr, None)
    length = b.sext(b.call(snprintf, [null, I64(0), format, *values]), I64)
    with b.if_then(b.icmp_signed(">=", length, I64(0))):
        size = b.add(length, I64(1))
        text_at = b.call(malloc, [size])
        with b.if_then(b.icmp_unsigned("!=", text_at, null)):
            b.call(snprintf, [text_at, size, format, *values])
            b.call(hook, [linear, text_at, length])
            b.call(free, [text_at])
