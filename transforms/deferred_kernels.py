"""`gpuc.deferred_kernel` expanded into the kernel it declares (run first by
`resolve-deferred`): the job's parameters, then one global pointer per result
of the job; each thread calls the job (a `gpuc.deferred_call`, resolved like
any other) and adds each result into its pointer's element 0 atomically."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import Rewriter

from gpuc.dialects.attrs import AddressSpace, AtomicKind, PtrType, Role
from gpuc.dialects.deferred import DeferredCallOp, DeferredKernelOp
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.memory import AtomicRMWOp


def kernel_of(op: DeferredKernelOp) -> FuncOp:
    """The kernel `op` declares."""
    signature = op.signature
    inputs = signature.inputs.data
    into = [PtrType(t, AddressSpace.GLOBAL) for t in signature.outputs.data]
    block = Block(arg_types=[*inputs, *into])
    call = DeferredCallOp(
        op.source, op.job, block.args[: len(inputs)], signature.outputs.data
    )
    call.location = op.location
    ops: list[Operation] = [call]
    if into:
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        ops.append(zero)
        for result, ptr in zip(call.results, block.args[len(inputs) :], strict=True):
            ops.append(AtomicRMWOp(AtomicKind.ADD, ptr, result, zero))
    ops.append(ReturnOp())
    block.add_ops(ops)
    kernel = FuncOp(op.sym_name.data, (block.arg_types, ()), Role.KERNEL, Region(block))
    kernel.location = op.location
    return kernel


def expand_deferred_kernels(module: ModuleOp) -> None:
    for op in [o for o in module.walk() if isinstance(o, DeferredKernelOp)]:
        Rewriter.replace_op(op, kernel_of(op))
