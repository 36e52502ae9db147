"""Translators of gpuc's functions, calls, launches, index and sync ops. What
differs between targets (index registers, barriers, device-side launches, the
native target's hidden state) is asked of the target object."""

from __future__ import annotations

from llvmlite import ir

from gpuc.dialects.analysis import INDIRECT
from gpuc.dialects.attrs import Dim, FuncPtrType
from gpuc.dialects.functions import (
    CallIndirectOp,
    CallOp,
    FuncAddrOp,
    LaunchOp,
    ReturnOp,
)
from gpuc.dialects.index import (
    BarrierOp,
    BlockDimOp,
    BlockIdOp,
    DimIndexOp,
    GlobalIdOp,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from gpuc.lowering.context import FunctionLowering, translates

DIMS = {Dim.X: 0, Dim.Y: 1, Dim.Z: 2}
INDEX_KINDS: dict[type[DimIndexOp], str] = {
    ThreadIdOp: "thread_id",
    BlockIdOp: "block_id",
    BlockDimOp: "block_dim",
    GridDimOp: "grid_dim",
}


class IndirectCallee:
    """A pointer value seen as a callee of a known function type (llvmlite
    takes the function type from the callee, which an opaque pointer lacks)."""

    def __init__(self, pointer: ir.Value, function_type: ir.FunctionType):
        self.pointer = pointer
        self.function_type = function_type
        self.type = pointer.type

    def get_reference(self) -> str:
        return str(self.pointer.get_reference())


def set_results(
    op: CallOp | CallIndirectOp, call: ir.Value, fl: FunctionLowering
) -> None:
    """Bind a call's results: the value, or the members of the struct that a
    function with several results returns."""
    if len(op.res) > 1:
        fl.set(op, *(fl.builder.extract_value(call, i) for i in range(len(op.res))))
    elif op.res:
        fl.set(op, call)


@translates(ReturnOp)
def translate_return(op: ReturnOp, fl: FunctionLowering) -> None:
    values = fl.operands(op)
    if len(values) > 1:
        packed: ir.Value = ir.Constant(fl.fn.return_value.type, ir.Undefined)
        for i, value in enumerate(values):
            packed = fl.builder.insert_value(packed, value, i)
        fl.builder.ret(packed)
    elif values:
        fl.builder.ret(values[0])
    else:
        fl.builder.ret_void()


@translates(CallOp)
def translate_call(op: CallOp, fl: FunctionLowering) -> None:
    name = op.callee.root_reference.data
    callee = fl.ml.functions[name]
    hidden = fl.target.hidden_call_args(fl, name)
    call = fl.builder.call(callee, [*hidden, *fl.operands(op)])
    set_results(op, call, fl)
    if hidden:
        fl.target.after_call(fl, name)


@translates(FuncAddrOp)
def translate_func_addr(op: FuncAddrOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.ml.functions[op.callee.root_reference.data])


@translates(CallIndirectOp)
def translate_call_indirect(op: CallIndirectOp, fl: FunctionLowering) -> None:
    callee_type = op.callee.type
    assert isinstance(callee_type, FuncPtrType)
    signature = callee_type.signature
    fnty = ir.FunctionType(
        fl.ml.result_type(signature.outputs.data),
        [fl.type(t) for t in signature.inputs.data],
    )
    callee = IndirectCallee(fl.get(op.callee), fnty)
    call = fl.builder.call(
        callee, [fl.get(a) for a in op.arguments], cconv=fl.target.helper_cconv or None
    )
    if INDIRECT in fl.ml.facts.barrier:  # some function whose address is taken syncs
        call.attributes.add("convergent")
    set_results(op, call, fl)


@translates(LaunchOp)
def translate_launch(op: LaunchOp, fl: FunctionLowering) -> None:
    fl.target.launch(fl, op)


@translates(ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp)
def translate_index(op: DimIndexOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.target.index(fl, INDEX_KINDS[type(op)], DIMS[op.dimension.data]))


@translates(GlobalIdOp)
def translate_global_id(op: GlobalIdOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.target.global_id(fl, DIMS[op.dimension.data]))


@translates(LaneIdOp)
def translate_lane_id(op: LaneIdOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.target.lane_id(fl))


@translates(BarrierOp)
def translate_barrier(op: BarrierOp, fl: FunctionLowering) -> None:
    fl.target.barrier(fl)
