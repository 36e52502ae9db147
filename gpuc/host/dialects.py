"""The host-side ops gpuc runs that neither xDSL nor gpuc's compiler defines.

MLIR's GPU programs put their host code in `async` (`async.execute` around
GPU work, `async.await`) and use `gpu.memset`; xDSL 0.74 has neither. They are
defined here, in generic form only (what `mlir-opt --mlir-print-op-generic`
prints), for the host runner's parser alone: the compiler never sees them.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, BoolAttr, VectorType
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_result_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator

from gpuc.reader.text import upgrade_token_segments
from gpuc.registry import DIALECTS, lazy


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """`!async.token`: completion of an `async.execute`."""

    name = "async.token"


@irdl_attr_definition
class ValueType(ParametrizedAttribute, TypeAttribute):
    """`!async.value<T>`: a value an `async.execute` yields."""

    name = "async.value"

    value_type: Attribute


@irdl_op_definition
class ExecuteOp(IRDLOperation):
    """Runs its region (which may use the payloads of `body_operands`)."""

    name = "async.execute"

    dependencies = var_operand_def(TokenType)
    body_operands = var_operand_def()
    token = var_result_def()
    body = region_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The values an `async.execute` region produces."""

    name = "async.yield"

    operands_ = var_operand_def()

    traits = traits_def(IsTerminator())


@irdl_op_definition
class AwaitOp(IRDLOperation):
    """Waits for a token or a value (its payload is the result)."""

    name = "async.await"

    operand = operand_def()
    result = opt_result_def()


Async = Dialect("async", [ExecuteOp, YieldOp, AwaitOp], [TokenType, ValueType])


@irdl_op_definition
class MemsetOp(IRDLOperation):
    """`gpu.memset %dst, %value`: fill a buffer with a value."""

    name = "gpu.memset"

    asyncDependencies = var_operand_def()
    dst = operand_def()
    value = operand_def()
    asyncToken = opt_result_def()


def host_context() -> Context:
    """gpuc's context with the host ops above: `async`, and `gpu.memset`
    beside the `gpu` ops gpuc reads."""
    from gpuc.dialects.foreign.gpu import GPU

    ctx = Context()
    for name, path in DIALECTS.items():
        if name != "gpu":
            ctx.register_dialect(name, lazy(path))
    host_gpu = Dialect(
        "gpu",
        [*GPU.operations, MemsetOp],
        list(GPU.attributes),
    )
    ctx.register_dialect("gpu", lambda: host_gpu)
    ctx.register_dialect("async", lambda: Async)
    return ctx


def upgrade_host_ops(module: Operation) -> None:
    """What xDSL 0.74 wants of host ops MLIR prints otherwise: segment sizes
    on `gpu.memcpy` and `gpu.dealloc` (MLIR's have one variadic group and so
    none), and `in_bounds` on `vector.transfer_read` (optional before MLIR 18:
    each dimension may read out of bounds)."""
    from xdsl.dialects import gpu, vector

    for op in module.walk():
        if isinstance(op, gpu.MemcpyOp | gpu.DeallocOp):
            upgrade_token_segments(op)
        elif isinstance(op, vector.TransferReadOp) and "in_bounds" not in op.properties:
            kind = op.result.type
            rank = len(kind.get_shape()) if isinstance(kind, VectorType) else 1
            op.properties["in_bounds"] = ArrayAttr([BoolAttr.from_bool(False)] * rank)
