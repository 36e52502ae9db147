"""`gpu.all_reduce` for `import`: a reduction over every thread of the block,
whose result every thread gets, in gpuc's subgroup ops and shared memory.

With a kind (`add`, ...) on a type the subgroup ops take, each subgroup
reduces with `gpuc.subgroup_reduce` (shuffles), writes its result to one
shared slot per subgroup, and after a barrier every thread folds the slots in
subgroup order. With a region, or another type, every thread writes its value
to a shared slot of its own and folds all of them in thread order, the region
inlined as the combining step. Every thread folds the same values in the same
order, so they agree to the bit; a barrier after the fold lets the next use of
the slots (a loop) overwrite them. Blocks have at most `SLOTS` threads.

The kinds of MLIR 16 (`min`, `max`: signed on integers) and of MLIR 19 and
later (`minsi`, `minui`, `minnumf`, `minimumf`, ...) map to gpuc's
(`MLIR_KINDS`); a kind on a type it does not take is a diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import Dim
from gpuc.dialects.foreign.gpu import (
    AllReduceOp,
    GPUReduceKind,
    GPUReduceKindAttr,
)
from gpuc.dialects.index import BarrierOp, BlockDimOp, ThreadIdOp
from gpuc.dialects.memory import LoadOp, SharedAllocOp, StoreOp
from gpuc.dialects.subgroup import (
    NumSubgroupsOp,
    ReduceKind,
    SubgroupIdOp,
    SubgroupReduceOp,
    check_value,
)

SLOTS = 1024
"""Shared slots of one all_reduce: the most threads a block has on any
executor (CUDA's limit, which every gpuc executor applies)."""
Combine = Callable[[SSAValue, SSAValue], Operation]
K = GPUReduceKind
MLIR_KINDS: dict[GPUReduceKind, tuple[ReduceKind, str | None]] = {
    K.ADD: (ReduceKind.ADD, None),
    K.MUL: (ReduceKind.MUL, None),
    K.MIN: (ReduceKind.MIN, None),
    K.MAX: (ReduceKind.MAX, None),
    K.MINSI: (ReduceKind.MIN, "integer"),
    K.MAXSI: (ReduceKind.MAX, "integer"),
    K.MINUI: (ReduceKind.UMIN, "integer"),
    K.MAXUI: (ReduceKind.UMAX, "integer"),
    K.MINNUMF: (ReduceKind.MIN, "float"),
    K.MAXNUMF: (ReduceKind.MAX, "float"),
    K.MINIMUMF: (ReduceKind.MINIMUM, "float"),
    K.MAXIMUMF: (ReduceKind.MAXIMUM, "float"),
    K.AND: (ReduceKind.AND, "integer"),
    K.OR: (ReduceKind.OR, "integer"),
    K.XOR: (ReduceKind.XOR, "integer"),
}
"""MLIR's kind -> (gpuc's, the values it takes: None for any). MLIR 16's
`min` and `max` are signed on integers and minNum/maxNum on floats, as MLIR
16's NVVM (`redux.sync`) and SPIR-V lowerings and MLIR 19's renaming
(`maxsi`) read them; MLIR 16's own all_reduce rewrite compared unsigned."""
FLOAT_OPS: dict[ReduceKind, Combine] = {
    ReduceKind.ADD: arith.AddfOp,
    ReduceKind.MUL: arith.MulfOp,
    ReduceKind.MIN: arith.MinnumfOp,
    ReduceKind.MAX: arith.MaxnumfOp,
    ReduceKind.MINIMUM: arith.MinimumfOp,
    ReduceKind.MAXIMUM: arith.MaximumfOp,
}
INTEGER_OPS: dict[ReduceKind, Combine] = {
    ReduceKind.ADD: arith.AddiOp,
    ReduceKind.MUL: arith.MuliOp,
    ReduceKind.MIN: arith.MinSIOp,
    ReduceKind.MAX: arith.MaxSIOp,
    ReduceKind.UMIN: arith.MinUIOp,
    ReduceKind.UMAX: arith.MaxUIOp,
    ReduceKind.AND: arith.AndIOp,
    ReduceKind.OR: arith.OrIOp,
    ReduceKind.XOR: arith.XOrIOp,
}


def gpuc_kind(kind: GPUReduceKindAttr) -> ReduceKind:
    """gpuc's reduction kind for MLIR's `kind` (checked by `kind_problem`)."""
    return MLIR_KINDS[kind.data][0]


def kind_problem(kind: Attribute, ty: Attribute, where: str) -> str | None:
    """Why MLIR's reduction `kind` cannot reduce values of type `ty`, if it
    cannot (an integer kind on floats, a float kind on integers); `where`
    names the function."""
    assert isinstance(kind, GPUReduceKindAttr)
    takes = MLIR_KINDS[kind.data][1]
    floating = isinstance(ty, AnyFloat)
    if takes == "integer" and floating or takes == "float" and not floating:
        return f"reduces {ty} with '{kind.data.value}'{where}, which needs {takes}s"
    return None


def _subgroup_type(value: SSAValue) -> bool:
    try:
        check_value(value.type)
    except VerifyException:
        return False
    return True


def lower_all_reduce(op: AllReduceOp) -> None:
    """Replace `op` (checked by checks.py: a kind or a region) in place."""
    ops: list[Operation] = []

    def add(new: Operation) -> SSAValue:
        ops.append(new)
        return new.results[0]

    value = op.operand
    kind = gpuc_kind(op.op) if op.op is not None else None
    slots = SharedAllocOp(value.type, SLOTS)
    slots.result.name_hint = "all_reduce"
    buffer = add(slots)
    if kind is not None and _subgroup_type(value):
        reduced = add(SubgroupReduceOp(kind, value))
        ops.append(StoreOp(reduced, buffer, add(SubgroupIdOp())))
        count = add(NumSubgroupsOp())
    else:
        dims = [add(BlockDimOp(d)) for d in (Dim.X, Dim.Y, Dim.Z)]
        tid = [add(ThreadIdOp(d)) for d in (Dim.X, Dim.Y, Dim.Z)]
        row = add(arith.AddiOp(add(arith.MuliOp(tid[2], dims[1])), tid[1]))
        linear = add(arith.AddiOp(add(arith.MuliOp(row, dims[0])), tid[0]))
        ops.append(StoreOp(value, buffer, linear))
        count = add(arith.MuliOp(add(arith.MuliOp(dims[0], dims[1])), dims[2]))
    ops.append(BarrierOp())
    zero = add(arith.ConstantOp(IntegerAttr(0, IndexType())))
    one = add(arith.ConstantOp(IntegerAttr(1, IndexType())))
    first = add(LoadOp(buffer, zero))
    body = Block(arg_types=[IndexType(), value.type])
    j, acc = body.args
    other = LoadOp(buffer, j)
    body.add_op(other)
    loop = scf.ForOp(one, count, one, [first], body)
    ops.append(loop)
    ops.append(BarrierOp())
    Rewriter.insert_op(ops, InsertPoint.before(op))
    if kind is not None:
        table = FLOAT_OPS if _is_float(value) else INTEGER_OPS
        step = table[kind](acc, other.result)
        body.add_ops([step, scf.YieldOp(step.results[0])])
    else:
        _inline_combiner(op, body, acc, other.result)
    Rewriter.replace_op(op, [], [loop.results[0]])


def _is_float(value: SSAValue) -> bool:
    return isinstance(value.type, AnyFloat)


def _inline_combiner(
    op: AllReduceOp, body: Block, acc: SSAValue, other: SSAValue
) -> None:
    """The region's block (lhs, rhs) -> gpu.yield, as the loop's step."""
    region = op.body.block
    Rewriter.inline_block(region, InsertPoint.at_end(body), [acc, other])
    terminator = body.last_op
    assert isinstance(terminator, gpu.YieldOp)
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands))
