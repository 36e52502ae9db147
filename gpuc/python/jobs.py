"""Calls of other functions in a Python kernel: device functions
(`func.call`), deferred jobs (`gpuc.deferred(f, **job)(...)`:
`gpuc.deferred_call`), job addresses (`gpuc.address`: `gpuc.deferred_addr`,
called through `gpuc.call_indirect`) and child launches (`gpuc.launch`:
`gpuc.deferred_launch`). Arrays are passed as their buffer, offset, shape and
strides (function.py); a device function is compiled once per memory spaces
of its array arguments (module.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, i64
from xdsl.ir import Attribute, SSAValue

from gpuc.python.statements import Statements
from gpuc.python.types import DType, index
from gpuc.python.values import (
    ArrayValue,
    Const,
    PyObj,
    Scalar,
    TupleValue,
    Value,
    describe,
    memory_space,
)

if TYPE_CHECKING:
    from gpuc.python.module import ModuleBuilder


@dataclass(frozen=True)
class FunctionAddress:
    """`gpuc.address(f, **job)`: a `!gpuc.funcptr` value, to be called."""

    ssa: SSAValue
    fn: Any


@dataclass(frozen=True)
class DeferredJob:
    """`gpuc.deferred(f, **job)`, to be called."""

    fn: Any
    job: Any


def job_parameter(value: object) -> Attribute:
    """A generator parameter (`#gpuc.job`'s dictionary) from a Python literal."""
    from xdsl.dialects.builtin import FloatAttr, StringAttr, f64

    if isinstance(value, bool):
        return IntegerAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    return StringAttr(str(value))


class FunctionCalls(Statements):
    """Calls of other functions, a part of a function's compiler."""

    unit: ModuleBuilder

    def device_call(self, fn: Any, node: ast.Call, args: list[Value]) -> Value:
        symbol, result, operands = self.callee(fn, args)
        op = self.emit(func.CallOp(symbol, operands, [result.mlir()] if result else []))
        return Scalar(op.results[0], result) if result else Const(0)

    def device_function(self, v: Value, what: str) -> Any:
        from gpuc.python.decorators import DeviceFunction

        fn = getattr(v, "obj", None)
        if not isinstance(fn, DeviceFunction):
            raise self.error(f"{what} must be a @gpuc.func, not {describe(v)}")
        return fn

    def deferred_job(self, node: ast.Call) -> DeferredJob:
        """`gpuc.deferred(f, **job)` (or `gpuc.address`): the function and
        its job configuration."""
        from gpuc.dialects.attrs import InlineHint, JobAttr, Role

        name = ast.unparse(node.func)
        if len(node.args) != 1:
            raise self.error(f"{name}(f, **job) takes one function")
        fn = self.device_function(self.expr(node.args[0]), f"{name}()'s function")
        inline: InlineHint | None = None
        generator: str | None = None
        params: dict[str, Attribute] = {}
        for kw in node.keywords:
            value = kw.value
            if not isinstance(value, ast.Constant) or kw.arg is None:
                raise self.error(f"{name}()'s job settings are literals", value)
            if kw.arg == "inline":
                hints = {
                    "always": InlineHint.ALWAYS_INLINE,
                    "never": InlineHint.NO_INLINE,
                }
                if value.value not in hints:
                    raise self.error("inline= takes 'always' or 'never'", value)
                inline = hints[value.value]
            elif kw.arg == "generator":
                if not isinstance(value.value, str):
                    raise self.error("generator= takes a generator's name", value)
                generator = value.value
            else:
                params[kw.arg] = job_parameter(value.value)
        if params and generator is None:
            raise self.error("job parameters need a generator= to read them")
        return DeferredJob(fn, JobAttr(Role.HELPER, inline, generator, params))

    def function_address(self, node: ast.Call) -> Value:
        """`gpuc.address(f, **job)`: `gpuc.deferred_addr`, to be called. A
        function taking arrays is addressed as its variant for arrays in
        global memory (its signature holds their memrefs, which the import
        expands as a direct call's)."""
        from gpuc.dialects.deferred import DeferredAddrOp
        from gpuc.python.types import ArrayType

        job = self.deferred_job(node)
        arrays = [t for _, t, _ in job.fn.parameters() if isinstance(t, ArrayType)]
        where = self.source.where(node)
        symbol, _ = self.unit.device(job.fn, ("global",) * len(arrays), where)
        signature = self.unit.function_type(symbol)
        op = self.emit(DeferredAddrOp(symbol, job.job, signature))
        return PyObj(FunctionAddress(op.results[0], job.fn))

    def indirect_call(self, address: FunctionAddress, node: ast.Call) -> Value:
        from gpuc.dialects.attrs import FuncPtrType
        from gpuc.dialects.functions import CallIndirectOp

        if node.keywords:
            raise self.error("keyword arguments are not supported in kernel calls")
        args = [self.expr(a) for a in node.args]
        params = address.fn.parameters()
        for (pname, _, _), arg, given in zip(params, args, node.args, strict=False):
            if isinstance(arg, ArrayValue) and arg.space != "global":
                raise self.error(
                    f"argument '{pname}' of {address.fn.name}() is a {arg.space} "
                    "array; a function called through its gpuc.address() takes "
                    "arrays in global memory (call it directly instead)",
                    given,
                )
        symbol, result, operands = self.callee(address.fn, args)
        ptr = address.ssa.type
        assert isinstance(ptr, FuncPtrType)
        assert [o.type for o in operands] == list(ptr.signature.inputs.data)
        op = self.emit(CallIndirectOp(address.ssa, operands))
        return Scalar(op.results[0], result) if result else Const(0)

    def deferred_call(self, job: DeferredJob, node: ast.Call) -> Value:
        from gpuc.dialects.deferred import DeferredCallOp

        if node.keywords:
            raise self.error("keyword arguments are not supported in kernel calls")
        args = [self.expr(a) for a in node.args]
        symbol, result, operands = self.callee(job.fn, args)
        types = [result.mlir()] if result else []
        op = self.emit(DeferredCallOp(symbol, job.job, operands, types))
        return Scalar(op.results[0], result) if result else Const(0)

    def child_launch(self, node: ast.Call, args: list[Value]) -> Value:
        from gpuc.dialects.attrs import JobAttr, Role
        from gpuc.dialects.deferred import DeferredLaunchOp

        if len(args) < 3:
            raise self.error("gpuc.launch(f, grid, block, *args)")
        fn = self.device_function(args[0], "gpuc.launch()'s kernel")
        if fn.result_type() is not None:
            raise self.error(
                f"{fn.name} returns a value; a launched kernel returns nothing"
            )
        sizes: list[list[SSAValue]] = []
        for what, v in (("grid", args[1]), ("block", args[2])):
            items = v.items if isinstance(v, TupleValue) else (v,)
            if not 1 <= len(items) <= 3:
                raise self.error(f"gpuc.launch()'s {what} takes 1 to 3 sizes")
            sizes.append([self.index(s, f"gpuc.launch()'s {what}").ssa for s in items])
        symbol, _, operands = self.callee(fn, args[3:])
        job = JobAttr(Role.KERNEL)
        self.emit(DeferredLaunchOp(symbol, job, sizes[0], sizes[1], operands))
        return Const(0)

    def callee(
        self, fn: Any, args: list[Value]
    ) -> tuple[str, DType | None, list[SSAValue]]:
        """`fn`'s symbol for these arguments, its result type, the operands."""
        from gpuc.python.types import ArrayType

        params = fn.parameters()
        if len(args) != len(params):
            raise self.error(
                f"{fn.name}() takes {len(params)} argument(s), got {len(args)}"
            )
        operands: list[SSAValue] = []
        spaces: list[str] = []
        for (pname, ptype, _), arg in zip(params, args, strict=True):
            if isinstance(ptype, ArrayType):
                a = self.array(arg, f"argument '{pname}' of {fn.name}()")
                if a.dtype is not ptype.dtype or len(a.shape) != ptype.ndim:
                    raise self.error(
                        f"argument '{pname}' of {fn.name}() is an array of "
                        f"{a.dtype.name} with {len(a.shape)} dimension(s); "
                        f"{fn.name} takes {ptype!r}"
                    )
                spaces.append(a.space)
                operands += self.decompose(a)
            else:
                what = f"argument '{pname}' of {fn.name}()"
                operands.append(self.scalar(arg, ptype, what).ssa)
        where = self.source.where(self.node)
        symbol, result = self.unit.device(fn, tuple(spaces), where)
        return symbol, result, operands

    def decompose(self, a: ArrayValue) -> list[SSAValue]:
        """An array as a call passes it: base, offset, sizes, strides."""
        base = a.base
        if base is None:  # a shared or local allocation: its own base
            size = 1
            for s in a.shape:
                assert isinstance(s, Const)
                size *= int(s.value)
            t = MemRefType(
                a.dtype.mlir(), [DYNAMIC_INDEX], memory_space=memory_space(a.space)
            )
            n = self.constant(size, index).ssa
            base = self.result(
                memref.ReinterpretCastOp(
                    a.view, [], [n], [], [0], [DYNAMIC_INDEX], [1], t
                )
            )
        rest = [a.offset, *a.shape, *a.strides]
        return [base] + [self.index(v, "an array's size").ssa for v in rest]
