"""Expressions of a Python kernel: names, literals, arithmetic, comparisons,
short-circuit `and`/`or`, conditional expressions, array indexing.

Literals fold at compile time until they meet a typed value, whose type they
take; `and`, `or` and `x if c else y` evaluate only what Python would (an
`scf.if` around the rest).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, memref, scf
from xdsl.ir import Block, Region, SSAValue

from gpuc.python.types import DType, boolean
from gpuc.python.values import (
    INT_KINDS,
    ArrayValue,
    Builder,
    Const,
    PyObj,
    Scalar,
    TupleValue,
    Undefined,
    Value,
    describe,
)

SYMBOLS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.MatMult: "@",
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
    ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip
FOLD: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}  # fmt: skip
FLOAT_OPS = {
    ast.Add: arith.AddfOp, ast.Sub: arith.SubfOp, ast.Mult: arith.MulfOp,
    ast.Div: arith.DivfOp,
}  # fmt: skip
INT_OPS = {
    ast.Add: arith.AddiOp, ast.Sub: arith.SubiOp, ast.Mult: arith.MuliOp,
    ast.LShift: arith.ShLIOp, ast.RShift: arith.ShRSIOp, ast.BitOr: arith.OrIOp,
    ast.BitXor: arith.XOrIOp, ast.BitAnd: arith.AndIOp,
}  # fmt: skip
BOOL_OPS = {ast.BitOr: arith.OrIOp, ast.BitXor: arith.XOrIOp, ast.BitAnd: arith.AndIOp}
INT_PREDICATES = {
    ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt",
    ast.GtE: "sge",
}  # fmt: skip
FLOAT_PREDICATES = {
    ast.Eq: "oeq", ast.NotEq: "une", ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt",
    ast.GtE: "oge",
}  # fmt: skip


Env = dict[str, Value | Undefined]
"""The names a function has defined at a point of its body."""


class Expressions(Builder):
    """The expression half of a function's compiler."""

    env: dict[str, Value | Undefined]

    def lookup_global(self, name: str, node: ast.AST) -> Value:
        raise NotImplementedError

    def call(self, node: ast.Call) -> Value:
        raise NotImplementedError

    def expr(self, node: ast.expr) -> Value:
        saved, self.node = self.node, node
        try:
            return self._expr(node)
        finally:
            self.node = saved

    def _expr(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool | int | float):
                return Const(node.value)
            if isinstance(node.value, str):
                raise self.error(
                    "strings are allowed only as print(...) arguments, assert "
                    "messages and docstrings"
                )
            raise self.error(f"the literal {node.value!r} has no gpuc type")
        if isinstance(node, ast.Name):
            value = self.env.get(node.id)
            if isinstance(value, Undefined):
                raise self.error(f"'{node.id}' is not defined here: {value.reason}")
            return value if value is not None else self.lookup_global(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value), node)
        if isinstance(node, ast.BinOp):
            return self.binary(node.op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            return self.unary(node.op, self.expr(node.operand))
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            return self.short_circuit(node.op, node.values)
        if isinstance(node, ast.IfExp):
            return self.conditional(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            target = self.expr(node.value)
            nodes = self.subscript_nodes(node.slice)
            indices = [self.expr(n) for n in nodes]
            if isinstance(target, TupleValue):
                return self.tuple_item(target, indices)
            array = self.array(target, "the subscripted value")
            return Scalar(
                self.result(
                    memref.LoadOp.get(array.view, self.indices(array, indices, nodes))
                ),
                array.dtype,
            )
        if isinstance(node, ast.Tuple):
            return TupleValue(tuple(self.expr(e) for e in node.elts))
        return self.unsupported(node)

    def unsupported(self, node: ast.AST) -> Value:
        what = {
            ast.Lambda: "lambda functions", ast.Dict: "dicts", ast.Set: "sets",
            ast.List: "lists (use gpuc.local((n,), dtype) for a per-thread array)",
            ast.ListComp: "list comprehensions", ast.DictComp: "dict comprehensions",
            ast.SetComp: "set comprehensions",
            ast.GeneratorExp: "generator expressions",
            ast.Yield: "generators (yield)", ast.YieldFrom: "generators (yield from)",
            ast.Await: "await", ast.JoinedStr: "f-strings (print takes values: "
            "print('x =', x))", ast.Starred: "starred expressions",
            ast.NamedExpr: "assignment expressions (:=)", ast.Slice: "slices",
        }.get(type(node), f"{type(node).__name__} expressions")  # fmt: skip
        raise self.error(f"{what} are not supported in gpuc kernels")

    def array(self, v: Value, what: str) -> ArrayValue:
        if not isinstance(v, ArrayValue):
            raise self.error(f"{what} is {describe(v)}, not an array")
        return v

    def subscripts(self, node: ast.expr) -> list[Value]:
        return [self.expr(e) for e in self.subscript_nodes(node)]

    def subscript_nodes(self, node: ast.expr) -> list[ast.expr]:
        items = node.elts if isinstance(node, ast.Tuple) else [node]
        for item in items:
            if isinstance(item, ast.Slice):
                raise self.error(
                    "slices are not supported; index one element: x[i, j]", item
                )
        return list(items)

    def tuple_item(self, t: TupleValue, indices: Sequence[Value]) -> Value:
        if len(indices) != 1 or not isinstance(indices[0], Const):
            raise self.error("a tuple is indexed by one integer literal")
        i = indices[0].value
        if not isinstance(i, int) or not -len(t.items) <= i < len(t.items):
            raise self.error(
                f"index {i!r} is out of range for a tuple of {len(t.items)}"
            )
        return t.items[i]

    def indices(
        self,
        array: ArrayValue,
        indices: Sequence[Value],
        nodes: Sequence[ast.expr] = (),
    ) -> list[SSAValue]:
        """The index values of an access to `array`; `nodes` locate them."""
        if len(indices) != len(array.shape):
            raise self.error(
                f"the array has {len(array.shape)} dimension(s), indexed with "
                f"{len(indices)} index(es)"
            )
        out: list[SSAValue] = []
        saved = self.node
        for d, i in enumerate(indices):
            self.node = nodes[d] if len(nodes) == len(indices) else saved
            if isinstance(i, Const) and isinstance(i.value, int) and i.value < 0:
                raise self.error(
                    f"negative index {i.value} in dimension {d}; gpuc arrays do not "
                    "count from the end: write x.shape[d] - k"
                )
            out.append(self.index(i, f"index {d}").ssa)
        self.node = saved
        return out

    def attribute(self, base: Value, node: ast.Attribute) -> Value:
        if isinstance(base, ArrayValue):
            if node.attr == "shape":
                return TupleValue(base.shape)
            if node.attr == "strides":
                return TupleValue(base.strides)
            if node.attr == "ndim":
                return Const(len(base.shape))
            raise self.error(
                f"an array has .shape, .strides and .ndim, not .{node.attr}"
            )
        if isinstance(base, PyObj):
            if not hasattr(base.obj, node.attr):
                raise self.error(f"{base.obj!r} has no attribute '{node.attr}'")
            return self.python_value(getattr(base.obj, node.attr), node.attr)
        raise self.error(f"{describe(base)} has no attribute '{node.attr}'")

    def python_value(self, obj: object, name: str) -> Value:
        """A Python object the kernel reads: numbers are literals."""
        if isinstance(obj, bool | int | float):
            return Const(obj)
        if isinstance(obj, tuple) and all(
            isinstance(x, bool | int | float) for x in obj
        ):
            return TupleValue(tuple(Const(x) for x in obj))
        return PyObj(obj)

    def binary(self, op: ast.operator, a: Value, b: Value) -> Value:
        symbol = SYMBOLS.get(type(op), type(op).__name__)
        what = f"'{symbol}'"
        if isinstance(a, Const) and isinstance(b, Const) and type(op) in FOLD:
            try:
                folded = FOLD[type(op)](a.value, b.value)
            except (ZeroDivisionError, OverflowError, ValueError) as e:
                raise self.error(
                    f"{what} of {a.value!r} and {b.value!r}: {e}"
                ) from None
            assert isinstance(folded, bool | int | float)
            return Const(folded)
        if (
            isinstance(op, ast.Pow)
            and isinstance(b, Const)
            and not isinstance(a, Const)
        ):
            small = b.value if type(b.value) is int and 1 <= b.value <= 8 else None
            if small is not None:  # x ** 2: multiplications, for any number type
                result: Value = a
                for _ in range(small - 1):
                    result = self.binary(ast.Mult(), result, a)
                return self.scalar(result)
        dtype = self.common(a, b, what)
        x, y = self.scalar(a, dtype).ssa, self.scalar(b, dtype).ssa
        kind = type(op)
        if dtype.kind == "float":
            if kind in FLOAT_OPS:
                return Scalar(self.result(FLOAT_OPS[kind](x, y)), dtype)
            if kind is ast.Pow:
                from xdsl.dialects import math

                return Scalar(self.result(math.PowFOp(x, y)), dtype)
            if kind in (ast.FloorDiv, ast.Mod):
                from xdsl.dialects import math

                q = self.result(math.FloorOp(self.result(arith.DivfOp(x, y))))
                if kind is ast.FloorDiv:
                    return Scalar(q, dtype)
                r = self.result(arith.SubfOp(x, self.result(arith.MulfOp(q, y))))
                return Scalar(r, dtype)
        elif dtype.kind == "bool":
            if kind in BOOL_OPS:
                return Scalar(self.result(BOOL_OPS[kind](x, y)), dtype)
        else:
            if kind in INT_OPS:
                return Scalar(self.result(INT_OPS[kind](x, y)), dtype)
            if kind is ast.FloorDiv:
                return Scalar(self.result(arith.FloorDivSIOp(x, y)), dtype)
            if kind is ast.Mod:
                return Scalar(self.floor_mod(x, y, dtype), dtype)
            if kind is ast.Div:
                raise self.error(
                    f"'/' of {dtype.name} values; write '//' for integer division, "
                    "or convert to a float first (gpuc.f32(...))"
                )
        raise self.error(f"{what} is not supported on {dtype.name}")

    def floor_mod(self, x: SSAValue, y: SSAValue, dtype: DType) -> SSAValue:
        """Python's `%`: the remainder takes the divisor's sign."""
        r = self.result(arith.RemSIOp(x, y))
        zero = self.constant(0, dtype).ssa
        nonzero = self.result(arith.CmpiOp(r, zero, "ne"))
        signs = self.result(
            arith.XOrIOp(
                self.result(arith.CmpiOp(r, zero, "slt")),
                self.result(arith.CmpiOp(y, zero, "slt")),
            )
        )
        fix = self.result(arith.AndIOp(nonzero, signs))
        return self.result(arith.SelectOp(fix, self.result(arith.AddiOp(r, y)), r))

    def unary(self, op: ast.unaryop, v: Value) -> Value:
        if isinstance(op, ast.Not):
            t = self.truth(v)
            if isinstance(t, Const):
                return Const(not t.value)
            true = self.constant(True, boolean).ssa
            return Scalar(self.result(arith.XOrIOp(t.ssa, true)), boolean)
        if isinstance(v, Const):
            fold: dict[type[ast.AST], Callable[[Any], Any]] = {
                ast.USub: operator.neg,
                ast.UAdd: operator.pos,
                ast.Invert: operator.invert,
            }
            return Const(fold[type(op)](v.value))
        s = self.scalar(v)
        if isinstance(op, ast.UAdd):
            return s
        if isinstance(op, ast.USub):
            if s.dtype.kind == "float":
                return Scalar(self.result(arith.NegfOp(s.ssa)), s.dtype)
            return self.binary(ast.Sub(), Const(0), s)
        if s.dtype.kind == "float":
            raise self.error(f"'~' is not supported on {s.dtype.name}")
        return self.binary(
            ast.BitXor(), s, Const(True if s.dtype.kind == "bool" else -1)
        )

    def truth(self, v: Value) -> Const | Scalar:
        """`v` as a condition (Python's truth: nonzero)."""
        if isinstance(v, Const):
            return Const(bool(v.value))
        s = self.scalar(v, what="the condition")
        if s.dtype.kind == "bool":
            return s
        return self.cast(s, boolean)

    def compare(self, node: ast.Compare) -> Value:
        left = self.expr(node.left)
        result: Value | None = None
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.expr(right_node)
            one = self.compare_two(op, left, right)
            result = one if result is None else self.binary(ast.BitAnd(), result, one)
            left = right
        assert result is not None
        return result

    def compare_two(self, op: ast.cmpop, a: Value, b: Value) -> Value:
        kind = type(op)
        symbol = SYMBOLS.get(kind, "?")
        if kind not in INT_PREDICATES:
            raise self.error(f"'{symbol}' comparisons are not supported in kernels")
        if isinstance(a, Const) and isinstance(b, Const):
            result = FOLD[kind](a.value, b.value)
            assert isinstance(result, bool)
            return Const(result)
        dtype = self.common(a, b, f"'{symbol}'")
        x, y = self.scalar(a, dtype).ssa, self.scalar(b, dtype).ssa
        if dtype.kind == "float":
            return Scalar(
                self.result(arith.CmpfOp(x, y, FLOAT_PREDICATES[kind])), boolean
            )
        predicate = INT_PREDICATES[kind]
        if dtype.kind == "bool":
            predicate = (
                predicate.replace("s", "u")
                if predicate not in ("eq", "ne")
                else predicate
            )
        return Scalar(self.result(arith.CmpiOp(x, y, predicate)), boolean)

    def short_circuit(self, op: ast.boolop, nodes: Sequence[ast.expr]) -> Value:
        """`a and b` / `a or b` on conditions: b runs only when it decides."""
        first = self.truth(self.expr(nodes[0]))
        if len(nodes) == 1:
            return first
        is_and = isinstance(op, ast.And)
        if isinstance(first, Const):
            if first.value != is_and:
                return first
            return self.short_circuit(op, nodes[1:])

        def rest() -> list[Value]:
            return [self.truth(self.short_circuit(op, nodes[1:]))]

        def decided() -> list[Value]:
            return [Const(not is_and)]

        then, orelse = (rest, decided) if is_and else (decided, rest)
        return self.if_values(first, then, orelse, ["the condition"])[0]

    def conditional(self, node: ast.IfExp) -> Value:
        cond = self.truth(self.expr(node.test))
        if isinstance(cond, Const):
            return self.expr(node.body if cond.value else node.orelse)
        return self.if_values(
            cond,
            lambda: [self.expr(node.body)],
            lambda: [self.expr(node.orelse)],
            ["the conditional expression"],
        )[0]

    def if_values(
        self,
        cond: Scalar,
        then: Callable[[], Sequence[Value]],
        orelse: Callable[[], Sequence[Value]],
        labels: Sequence[str],
    ) -> list[Value]:
        """An scf.if whose branches compute one value per label."""

        def named(branch: Callable[[], Sequence[Value]]) -> Callable[[], Env]:
            return lambda: dict(zip(labels, branch(), strict=True))

        merged = self.if_merge(cond, named(then), named(orelse), {})
        values = [merged[label] for label in labels]
        assert not any(isinstance(v, Undefined) for v in values)
        return values  # type: ignore[return-value]

    def if_merge(
        self,
        cond: Scalar,
        then: Callable[[], dict[str, Value | Undefined]],
        orelse: Callable[[], dict[str, Value | Undefined]],
        before: dict[str, Value | Undefined],
    ) -> dict[str, Value | Undefined]:
        """An scf.if whose branches give names values (an environment each,
        from `before`); what differs between them becomes its results."""
        envs: list[dict[str, Value | Undefined]] = []
        line = getattr(self.node, "lineno", 0)
        # Emit both branches, then merge what differs, then build the scf.if.
        blocks: list[Block] = []
        for branch in (then, orelse):
            saved, self.block = self.block, Block()
            envs.append(branch())
            blocks.append(self.block)
            self.block = saved
        merged: dict[str, Value | Undefined] = dict(before)
        changed: list[tuple[str, DType, Value, Value]] = []
        for name in dict.fromkeys([*envs[0], *envs[1]]):
            a, b = envs[0].get(name), envs[1].get(name)
            if a is b:
                if a is not None:
                    merged[name] = a
                continue
            if (
                a is None
                or b is None
                or isinstance(a, Undefined)
                or isinstance(b, Undefined)
            ):
                merged[name] = Undefined(
                    f"it is assigned only on some paths of the if at line {line}"
                )
                continue
            if (
                isinstance(a, Const)
                and isinstance(b, Const)
                and a.value == b.value
                and type(a.value) is type(b.value)
            ):
                merged[name] = a
                continue
            label = self.label(name)
            changed.append((name, self.merged_type(label, [a, b]), a, b))
        for k, block in enumerate(blocks):
            saved, self.block = self.block, block
            values = [
                self.scalar((a, b)[k], t, self.label(n)).ssa for n, t, a, b in changed
            ]
            self.emit(scf.YieldOp(*values))
            self.block = saved
        # An else that only yields nothing is left out, as MLIR prints it.
        empty = not changed and len(blocks[1].ops) == 1
        op = self.emit(
            scf.IfOp(
                cond.ssa,
                [t.mlir() for _, t, _, _ in changed],
                Region(blocks[0]),
                None if empty else Region(blocks[1]),
            )
        )
        for (name, dtype, _, _), result in zip(changed, op.results, strict=True):
            merged[name] = Scalar(result, dtype)
        return merged

    def label(self, name: str) -> str:
        """How a diagnostic names a variable (or a described value)."""
        return name if name.startswith("the ") else f"'{name}'"

    def merged_type(self, label: str, values: Sequence[Value]) -> DType:
        """The one dtype a name has where control flow meets."""
        scalars = [v for v in values if isinstance(v, Scalar)]
        others = [v for v in values if not isinstance(v, Scalar | Const)]
        if others:
            raise self.error(
                f"{label} is {describe(others[0])} on one path and differs on "
                "another; only scalars can be reassigned under if, for and while"
            )
        if scalars:
            dtype = scalars[0].dtype
            for s in scalars[1:]:
                if s.dtype is not dtype:
                    if s.dtype.kind in INT_KINDS and dtype.kind in INT_KINDS:
                        raise self.error(
                            f"{label} is {dtype.name} on one path and {s.dtype.name} "
                            f"on another; convert one with gpuc.{dtype.name}(...)"
                        )
                    raise self.error(
                        f"{label} is {dtype.name} on one path and {s.dtype.name} on "
                        f"another; convert one (gpuc.{dtype.name}(...))"
                    )
            return dtype
        consts = [v for v in values if isinstance(v, Const)]
        if any(isinstance(c.value, float) for c in consts):
            return next(c.dtype for c in consts if isinstance(c.value, float))
        if all(isinstance(c.value, bool) for c in consts):
            return boolean
        return next(c.dtype for c in consts if not isinstance(c.value, bool))
