"""`gpuc.deferred_kernel` expanded into the kernel it declares (run first by
`resolve-deferred`): the job's parameters, then one global pointer per result
of the job; each thread calls the job (a `gpuc.deferred_call`, resolved like
any other) and its results are summed into the pointers' element 0: within
the block in shared memory first, then by one atomic add per block."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from gpuc.dialects.attrs import AddressSpace, AtomicKind, Dim, PtrType, Role
from gpuc.dialects.deferred import DeferredCallOp, DeferredKernelOp
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.index import BarrierOp, ThreadIdOp
from gpuc.dialects.memory import (
    REGROUPED,
    AtomicRMWOp,
    LoadOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.dialects.walk import ops_of_class


def _first_thread(ops: list[Operation]) -> SSAValue:
    """Whether this is thread (0, 0, 0) of its block (ops appended to `ops`)."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    ops.append(zero)
    first: SSAValue | None = None
    for dim in (Dim.X, Dim.Y, Dim.Z):
        tid = ThreadIdOp(dim)
        eq = arith.CmpiOp(tid, zero, "eq")
        ops += [tid, eq]
        if first is None:
            first = eq.result
        else:
            both = arith.AndIOp(first, eq)
            ops.append(both)
            first = both.result
    assert first is not None
    return first


def _if(cond: SSAValue, body: list[Operation]) -> scf.IfOp:
    return scf.IfOp(cond, [], Region(Block([*body, scf.YieldOp()])))


def kernel_of(op: DeferredKernelOp) -> FuncOp:
    """The kernel `op` declares."""
    signature = op.signature
    inputs = signature.inputs.data
    outputs = signature.outputs.data
    into = [PtrType(t, AddressSpace.GLOBAL) for t in outputs]
    block = Block(arg_types=[*inputs, *into])
    ops: list[Operation] = []
    sums = [SharedAllocOp(t, 1) for t in outputs]
    ops += sums
    if outputs:
        first = _first_thread(ops)
        zeros = [arith.ConstantOp(_zero(t)) for t in outputs]
        ops.append(
            _if(
                first,
                [*zeros, *(StoreOp(z, s) for z, s in zip(zeros, sums, strict=True))],
            )
        )
        ops.append(BarrierOp())
    call = DeferredCallOp(op.source, op.job, block.args[: len(inputs)], outputs)
    call.location = op.location
    ops.append(call)
    if outputs:
        for s, r in zip(sums, call.results, strict=True):
            add = AtomicRMWOp(AtomicKind.ADD, s, r)
            if isinstance(r.type, AnyFloat):
                add.attributes[REGROUPED] = UnitAttr()
            ops.append(add)
        ops.append(BarrierOp())
        totals = [LoadOp(s) for s in sums]
        adds = [
            AtomicRMWOp(AtomicKind.ADD, p, t)
            for p, t in zip(block.args[len(inputs) :], totals, strict=True)
        ]
        ops.append(_if(first, [*totals, *adds]))
    ops.append(ReturnOp())
    block.add_ops(ops)
    kernel = FuncOp(op.sym_name.data, (block.arg_types, ()), Role.KERNEL, Region(block))
    kernel.location = op.location
    return kernel


def _zero(t: Attribute) -> FloatAttr | IntegerAttr:
    if isinstance(t, AnyFloat):
        return FloatAttr(0.0, t)
    assert isinstance(t, IntegerType)
    return IntegerAttr(0, t)


def expand_deferred_kernels(module: ModuleOp) -> None:
    for op in ops_of_class(module, DeferredKernelOp):
        Rewriter.replace_op(op, kernel_of(op))
