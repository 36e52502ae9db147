"""Statements of a Python kernel: assignments, `if`, `break`, `continue`,
`return`, `assert`, and the loops of loops.py.

Variables are SSA values: what an `if` changes becomes its results, what a
loop changes its iteration arguments. `break`, `continue` and an early
`return` set flags (names no Python variable can have) that guard the rest
of the block, so everything stays structured (scf), as the native target's
barrier handling and SPIR-V need.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from xdsl.dialects import cf, memref
from xdsl.ir import SSAValue

from gpuc.python.loops import (
    BROKE,
    CONTINUED,
    FLAGS,
    RESULT,
    RETURNED,
    Loops,
)
from gpuc.python.types import DType, boolean
from gpuc.python.values import (
    ArrayValue,
    Const,
    Scalar,
    TupleValue,
    Undefined,
    Value,
    describe,
)

UNSUPPORTED = {
    ast.FunctionDef: "nested functions (closures); define a @gpuc.func at module level",
    ast.AsyncFunctionDef: "nested functions",
    ast.ClassDef: "classes",
    ast.Try: "try/except", ast.With: "with statements",
    ast.Raise: "raise statements (use assert)",
    ast.Global: "global statements (kernels cannot write module state)",
    ast.Nonlocal: "nonlocal statements (closures over mutable state)",
    ast.Import: "import statements (import at module level)",
    ast.ImportFrom: "import statements (import at module level)",
    ast.Delete: "del statements", ast.AsyncFor: "async for loops",
    ast.AsyncWith: "async with statements",
    ast.Match: "match statements",
}  # fmt: skip


class Statements(Loops):
    """The statement half of a function's compiler."""

    result_type: DType | None = None

    def body(self, stmts: Sequence[ast.stmt]) -> None:
        for k, stmt in enumerate(stmts):
            saved, self.node = self.node, stmt
            try:
                self.statement(stmt)
            finally:
                self.node = saved
            flags = [self.env.get(f) for f in FLAGS]
            if any(isinstance(f, Const) and f.value for f in flags):
                return  # the rest of the block is never reached
            pending = [f for f in flags if isinstance(f, Scalar)]
            if pending and k + 1 < len(stmts):
                self.node = stmts[k + 1]
                self.guard(pending, stmts[k + 1 :])
                return

    def guard(self, flags: list[Scalar], rest: Sequence[ast.stmt]) -> None:
        """`rest` runs only while no flag is set."""
        stop: Value = flags[0]
        for f in flags[1:]:
            stop = self.binary(ast.BitOr(), stop, f)
        go = self.unary(ast.Not(), stop)
        assert isinstance(go, Scalar)

        def run() -> None:
            for f in FLAGS:
                if f in self.env:
                    self.env[f] = Const(False)
            self.body(rest)

        self.if_statement(go, run, lambda: None)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, ast.AugAssign):
            self.augmented(node)
        elif isinstance(node, ast.AnnAssign):
            dtype = self.annotation_dtype(node.annotation)
            if node.value is None:
                raise self.error("give the annotated variable a value")
            self.assign(node.target, self.explicit(self.expr(node.value), dtype))
        elif isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and (
                isinstance(node.value.value, str) or node.value.value is Ellipsis
            ):
                return  # a docstring, or `...` as `pass`
            self.expr(node.value)
        elif isinstance(node, ast.If):
            cond = self.truth(self.expr(node.test))
            if isinstance(cond, Const):
                self.body(node.body if cond.value else node.orelse)
            else:
                self.if_statement(
                    cond, lambda: self.body(node.body), lambda: self.body(node.orelse)
                )
        elif isinstance(node, ast.For):
            self.for_loop(node)
        elif isinstance(node, ast.While):
            self.while_loop(node)
        elif isinstance(node, ast.Break):
            self.env[BROKE] = Const(True)
        elif isinstance(node, ast.Continue):
            self.env[CONTINUED] = Const(True)
        elif isinstance(node, ast.Return):
            self.returns(node)
        elif isinstance(node, ast.Assert):
            self.assertion(node)
        elif isinstance(node, ast.Pass):
            pass
        else:
            what = UNSUPPORTED.get(type(node), f"{type(node).__name__} statements")
            raise self.error(f"{what} are not supported in gpuc kernels")

    def annotation_dtype(self, node: ast.expr) -> DType:
        value = self.expr(node)
        obj = getattr(value, "obj", None)
        if not isinstance(obj, DType):
            raise self.error(
                "a variable's annotation must be a gpuc dtype (gpuc.f32, ...)"
            )
        return obj

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            if target.id in ("gpuc", "math"):
                raise self.error(
                    f"'{target.id}' cannot be assigned in a kernel", target
                )
            self.env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, TupleValue) or len(value.items) != len(
                target.elts
            ):
                raise self.error(
                    f"cannot unpack {describe(value)} into {len(target.elts)} names",
                    target,
                )
            for t, v in zip(target.elts, value.items, strict=True):
                self.assign(t, v)
        elif isinstance(target, ast.Subscript):
            array = self.expr(target.value)
            if isinstance(array, TupleValue):
                raise self.error("tuples cannot be changed; only arrays", target)
            array = self.array(array, "the assigned value")
            nodes = self.subscript_nodes(target.slice)
            indices = self.indices(array, [self.expr(n) for n in nodes], nodes)
            self.store(array, indices, value)
        else:
            raise self.error(
                "assign to a name, a tuple of names or an array element", target
            )

    def store(self, array: ArrayValue, indices: list[SSAValue], value: Value) -> None:
        v = self.scalar(
            value, array.dtype, f"the value stored into a {array.dtype.name} array"
        )
        self.emit(memref.StoreOp.get(v.ssa, array.view, indices))

    def augmented(self, node: ast.AugAssign) -> None:
        value = self.expr(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            current = self.expr(
                ast.Name(
                    target.id,
                    ast.Load(),
                    lineno=target.lineno,
                    col_offset=target.col_offset,
                )
            )
            self.env[target.id] = self.binary(node.op, current, value)
        elif isinstance(target, ast.Subscript):
            array = self.array(self.expr(target.value), "the assigned value")
            nodes = self.subscript_nodes(target.slice)
            indices = self.indices(array, [self.expr(n) for n in nodes], nodes)
            old = Scalar(
                self.result(memref.LoadOp.get(array.view, indices)), array.dtype
            )
            self.store(array, indices, self.binary(node.op, old, value))
        else:
            raise self.error("augmented assignment to a name or an array element")

    def if_statement(
        self, cond: Scalar, then: Callable[[], None], orelse: Callable[[], None]
    ) -> None:
        before = self.env

        def branch(
            run: Callable[[], None],
        ) -> Callable[[], dict[str, Value | Undefined]]:
            def emit() -> dict[str, Value | Undefined]:
                self.env = dict(before)
                run()
                return self.env

            return emit

        self.env = self.if_merge(cond, branch(then), branch(orelse), before)

    def returns(self, node: ast.Return) -> None:
        if node.value is not None:
            if self.result_type is None:
                raise self.error(
                    "kernels return nothing (write results into an array); a "
                    "@gpuc.func returning a value needs a return annotation "
                    "(-> gpuc.f32)"
                )
            self.env[RESULT] = self.scalar(
                self.expr(node.value), self.result_type, "the returned value"
            )
        elif self.result_type is not None:
            raise self.error(
                f"this function returns {self.result_type.name}; return a value"
            )
        self.env[RETURNED] = Const(True)

    def assertion(self, node: ast.Assert) -> None:
        message = "assertion failed"
        if node.msg is not None:
            if not (
                isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str)
            ):
                raise self.error(
                    "an assert's message must be a string literal", node.msg
                )
            message = node.msg.value
        cond = self.truth(self.expr(node.test))
        if isinstance(cond, Const):
            if cond.value:
                return
            cond = self.constant(False, boolean)
        self.emit(cf.AssertOp(cond.ssa, message))
