"""Derivative kernels: how the host launches an `autodiff` job.

A kernel's derivative is a helper job (it returns the adjoints of its float
scalar arguments); the derivative kernel calls it, always inlined, with the
kernel's own grid. For a device function, it evaluates the job element-wise
over arrays. gpuc.autodiff builds them; docs/autodiff.md shows their MLIR.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Block, Region, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace, Dim, PtrType, Role
from gpuc.dialects.deferred import DeferredCallOp, DeferredKernelOp
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.index import GlobalIdOp
from gpuc.dialects.memory import LoadOp, StoreOp
from gpuc.generators.autodiff.common import derivative_job
from gpuc.generators.autodiff.conventions import forward_type, reverse_type
from gpuc.generators.autodiff.rules import Emitter


def derivative_kernel(
    source: FuncOp, mode: str, name: str
) -> FuncOp | DeferredKernelOp:
    """The kernel `name` that launches the `mode` derivative of `source`: a
    `gpuc.deferred_kernel` for a kernel, an element-wise kernel for a device
    function."""
    job_type = (
        forward_type(source.function_type, False)
        if mode == "forward"
        else reverse_type(source.function_type, False)
    )
    job = derivative_job(None, mode, always_inline=True)
    source_name = source.sym_name.data
    if source.is_kernel:
        return DeferredKernelOp(name, source_name, job, job_type)
    for t in job_type.inputs.data:
        if isinstance(t, PtrType):
            raise OpError(
                source,
                f"gpuc.autodiff evaluates a device function's derivative over "
                f"arrays, and @{source_name} takes a pointer ({t}); call its "
                "derivative job from a kernel of your own",
            )

    inputs = [PtrType(t, AddressSpace.GLOBAL) for t in job_type.inputs.data]
    outputs = [PtrType(t, AddressSpace.GLOBAL) for t in job_type.outputs.data]
    block = Block(arg_types=[*inputs, *outputs, IntegerType(32)])
    b = Emitter(block)
    i = b.value(GlobalIdOp(Dim.X))
    n = b.value(arith.IndexCastOp(block.args[-1], IndexType()))
    inside = b.value(arith.CmpiOp(i, n, "ult"))
    then = Block()
    inner = Emitter(then)
    args: list[SSAValue] = [
        inner.value(LoadOp(p, i)) for p in block.args[: len(inputs)]
    ]
    call = inner.op(DeferredCallOp(source_name, job, args, job_type.outputs.data))
    for value, into in zip(call.results, block.args[len(inputs) : -1], strict=True):
        inner.op(StoreOp(value, into, i))
    inner.op(scf.YieldOp())
    b.op(scf.IfOp(inside, [], Region(then)))
    b.op(ReturnOp())

    return FuncOp(name, (block.arg_types, ()), Role.KERNEL, Region(block))
