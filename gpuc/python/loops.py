"""Loops of a Python kernel: `for ... in range(...)` and `while`, with
`break`, `continue` and `return` inside.

What the body changes is carried as iteration arguments; a loop with a
constant positive step and no `break` or `return` is an `scf.for`, every
other one an `scf.while` whose condition also reads the break and return
flags (statements.py sets them and guards what follows them).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Sequence

from xdsl.dialects import scf
from xdsl.ir import Block, Region, SSAValue

from gpuc.python.expressions import Expressions
from gpuc.python.source import KernelError
from gpuc.python.types import DType, boolean, index
from gpuc.python.values import Const, Scalar, Undefined, Value, describe

RETURNED, BROKE, CONTINUED = "$return", "$break", "$continue"
RESULT = "$result"
FLAGS = (RETURNED, BROKE, CONTINUED)


class Retry(Exception):
    """A loop-carried literal turned out to need another type: build again."""

    def __init__(self, name: str, dtype: DType) -> None:
        super().__init__(name, dtype)  # args: pickled and rebuilt as such
        self.name, self.dtype = name, dtype


def assigned_names(stmts: Sequence[ast.stmt]) -> list[str]:
    """Names stored anywhere in `stmts`, first store first, and the flags a
    `return` sets."""
    return list(_assigned_names(tuple(stmts)))


@functools.lru_cache(maxsize=1024)
def _assigned_names(stmts: tuple[ast.stmt, ...]) -> tuple[str, ...]:
    """Kept per loop body (its statements are nodes of a function's tree,
    which every compile of the function walks again)."""
    names: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names[node.id] = None
            elif isinstance(node, ast.Return):
                names[RETURNED] = None
                names[RESULT] = None
    return tuple(names)


def contains_break(stmts: Sequence[ast.stmt]) -> bool:
    """A `break` of this loop (not of a nested one) in `stmts`."""
    return _contains_break(tuple(stmts))


@functools.lru_cache(maxsize=1024)
def _contains_break(stmts: tuple[ast.stmt, ...]) -> bool:

    def visit(node: ast.AST) -> Iterator[bool]:
        if isinstance(node, ast.Break):
            yield True
        if isinstance(node, ast.For | ast.While):
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    return any(any(visit(s)) for s in stmts)


def go_is_true(v: Value) -> bool:
    return isinstance(v, Const) and v.value is True


class Loops(Expressions):
    """The loop part of a function's compiler."""

    def body(self, stmts: Sequence[ast.stmt]) -> None:
        raise NotImplementedError

    def label(self, name: str) -> str:
        flags = {
            RETURNED: "the return flag",
            BROKE: "the break flag",
            CONTINUED: "the continue flag",
            RESULT: "the returned value",
        }
        return flags.get(name) or super().label(name)

    def carried(self, stmts: Sequence[ast.stmt], exclude: str | None) -> list[str]:
        names = [n for n in assigned_names(stmts) if n != exclude]
        if contains_break(stmts):
            self.env[BROKE] = Const(False)
            names.append(BROKE)
        return [
            n
            for n in names
            if n in self.env
            and not isinstance(self.env[n], Undefined)
            and n != CONTINUED
        ]

    def for_loop(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error("for ... else is not supported; use a flag")
        it = node.iter
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and self.env.get("range") is None
            and not it.keywords
            and 1 <= len(it.args) <= 3
        ):
            raise self.error("gpuc kernels loop over range(start, stop, step) only", it)
        if not isinstance(node.target, ast.Name):
            raise self.error("the loop variable must be a name", node.target)
        bounds = [self.expr(a) for a in it.args]
        start, stop, step = (
            (Const(0), bounds[0], Const(1))
            if len(bounds) == 1
            else (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else Const(1))
        )
        start_i, stop_i = (
            self.index(start, "the range's start"),
            self.index(stop, "the range's stop"),
        )
        if isinstance(step, Const) and step.value == 0:
            raise self.error("range() step must not be zero", it)
        names = self.carried(node.body, node.target.id)
        simple = (
            isinstance(step, Const)
            and isinstance(step.value, int)
            and step.value > 0
            and BROKE not in names
            and RETURNED not in names
        )
        step_i = self.index(step, "the range's step")
        self.build_loop(
            node,
            names,
            start_i,
            stop_i,
            step_i,
            simple,
            positive=isinstance(step, Const) and int(step.value) > 0,
        )

    def while_loop(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error("while ... else is not supported; use a flag")
        names = self.carried(node.body, None)
        self.build_loop(node, names, None, None, None, False, True)

    def build_loop(
        self,
        node: ast.For | ast.While,
        names: list[str],
        start: Scalar | None,
        stop: Scalar | None,
        step: Scalar | None,
        simple: bool,
        positive: bool,
    ) -> None:
        hints = self.literal_types(node, names, start is not None)
        env, block = self.env, self.block
        for _ in range(len(names) + 2):
            made: list[Block] = []
            try:
                self.try_loop(
                    node, names, start, stop, step, simple, positive, hints, made
                )
                return
            except Retry as r:
                hints[r.name] = r.dtype
                self.env, self.block = env, block
                for b in made:
                    b.erase(safe_erase=False)
        raise self.error("the types of the loop's variables do not settle")

    def literal_types(
        self, node: ast.For | ast.While, names: list[str], counted: bool
    ) -> dict[str, DType]:
        """The types the loop gives the carried names that start as literals
        (`acc = 0` before `acc += x[i]` makes `acc` an f32): the body compiled
        once into a scratch block with those names left literals. A problem
        there is reported by the real compile that follows."""
        literals = [n for n in names if isinstance(self.env[n], Const)]
        if not literals:
            return {}
        env, block = self.env, self.block
        others = [n for n in names if n not in literals]
        types = [index] * counted + self.loop_types(others, {})
        scratch = Block(arg_types=[t.mlir() for t in types])
        self.env, self.block = dict(env), scratch
        args = list(scratch.args)
        target = node.target if isinstance(node, ast.For) else None
        if counted and isinstance(target, ast.Name):
            self.env[target.id] = Scalar(args[0], index)
        for n, t, a in zip(others, types[counted:], args[counted:], strict=True):
            self.env[n] = Scalar(a, t)
        for f in FLAGS:
            self.env[f] = Const(False)
        hints: dict[str, DType] = {}
        try:
            self.body(node.body)
            for n in literals:
                v = self.env.get(n)
                if isinstance(v, Scalar):
                    hints[n] = v.dtype
        except (KernelError, Retry):
            pass
        finally:
            self.env, self.block = env, block
            scratch.erase(safe_erase=False)
        return hints

    def loop_types(self, names: list[str], hints: dict[str, DType]) -> list[DType]:
        types: list[DType] = []
        for n in names:
            v = self.env[n]
            if isinstance(v, Scalar):
                types.append(v.dtype)
            elif isinstance(v, Const):
                types.append(hints.get(n, v.dtype))
            else:
                assert not isinstance(v, Undefined)
                raise self.error(
                    f"{self.label(n)} is {describe(v)} and is reassigned in the loop; "
                    "only scalars can be"
                )
        return types

    def try_loop(
        self,
        node: ast.For | ast.While,
        names: list[str],
        start: Scalar | None,
        stop: Scalar | None,
        step: Scalar | None,
        simple: bool,
        positive: bool,
        hints: dict[str, DType],
        made: list[Block],
    ) -> None:
        before = self.env
        types = self.loop_types(names, hints)
        counter = [index] if start is not None else []
        outer = self.block
        target = (
            node.target.id
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
            else None
        )

        def enter(block: Block) -> Scalar | None:
            self.block = block
            self.env = dict(before)
            args = list(block.args)
            iv = Scalar(args.pop(0), index) if counter else None
            for n, t, a in zip(names, types, args, strict=True):
                self.env[n] = Scalar(a, t)
            return iv

        def body_and_yield(iv: Scalar | None) -> None:
            if target is not None and iv is not None:
                self.env[target] = iv
            for f in (BROKE, RETURNED, CONTINUED):
                if f in self.env or f == CONTINUED:
                    self.env[f] = Const(False)
            self.body(node.body)
            values: list[SSAValue] = []
            if iv is not None and not simple:
                assert step is not None
                nxt = self.binary(ast.Add(), iv, step)
                assert isinstance(nxt, Scalar)
                values.append(nxt.ssa)
            for n, t in zip(names, types, strict=True):
                v = self.env.get(n)
                if (
                    isinstance(v, Scalar)
                    and v.dtype is not t
                    and isinstance(before[n], Const)
                ):
                    raise Retry(n, v.dtype)
                if v is None or isinstance(v, Undefined):
                    raise self.error(
                        f"{self.label(n)} is not defined at the end of the loop body"
                    )
                values.append(self.scalar(v, t, self.label(n)).ssa)
            self.emit(scf.YieldOp(*values))

        all_types = [t.mlir() for t in counter + types]
        if simple:
            assert start is not None and stop is not None and step is not None
            body = Block(arg_types=all_types)
            made.append(body)
            body_and_yield(enter(body))
            self.block, self.env = outer, before
            inits = [
                self.scalar(self.defined(before, n), t, self.label(n)).ssa
                for n, t in zip(names, types, strict=True)
            ]
            op = self.emit(
                scf.ForOp(start.ssa, stop.ssa, step.ssa, inits, Region(body))
            )
            results = list(op.results)
        else:
            cond_block = Block(arg_types=all_types)
            made.append(cond_block)
            iv = enter(cond_block)
            flags = [self.defined(self.env, f) for f in (BROKE, RETURNED) if f in names]
            go: Value = Const(True)
            for f in flags:
                stay = self.unary(ast.Not(), f)
                go = stay if go_is_true(go) else self.binary(ast.BitAnd(), go, stay)

            def user_condition() -> list[Value]:
                if isinstance(node, ast.While):
                    return [self.truth(self.expr(node.test))]
                assert iv is not None and stop is not None and step is not None
                if positive:
                    return [self.compare_two(ast.Lt(), iv, stop)]
                up = self.compare_two(ast.Gt(), step, Const(0))
                below = self.compare_two(ast.Lt(), iv, stop)
                above = self.compare_two(ast.Gt(), iv, stop)
                return [self.select(up, below, above)]

            if isinstance(go, Const):
                cond = self.truth(user_condition()[0])
            else:
                assert isinstance(go, Scalar)
                cond = self.truth(
                    self.if_values(
                        go,
                        user_condition,
                        lambda: [Const(False)],
                        ["the loop condition"],
                    )[0]
                )
            cond_s = self.scalar(cond, boolean)
            self.emit(scf.ConditionOp(cond_s.ssa, *cond_block.args))
            after = Block(arg_types=all_types)
            made.append(after)
            body_and_yield(enter(after))
            self.block, self.env = outer, before
            inits = ([start.ssa] if start is not None else []) + [
                self.scalar(self.defined(before, n), t, self.label(n)).ssa
                for n, t in zip(names, types, strict=True)
            ]
            op = self.emit(
                scf.WhileOp(inits, all_types, Region(cond_block), Region(after))
            )
            results = list(op.results)[len(counter) :]
        line = node.lineno
        self.env = dict(before)
        for n in assigned_names(node.body):
            if n not in names and n not in FLAGS and n != RESULT:
                self.env[n] = Undefined(
                    f"it is assigned only inside the loop at line {line}"
                )
        if target is not None:
            self.env[target] = Undefined(
                f"it is the loop variable of the loop at line {line}"
            )
        for n, t, r in zip(names, types, results, strict=True):
            self.env[n] = Scalar(r, t)
        if BROKE in self.env:
            self.env[BROKE] = Const(False)
        self.env[CONTINUED] = Const(False)

    @staticmethod
    def defined(env: dict[str, Value | Undefined], name: str) -> Value:
        value = env[name]
        assert not isinstance(value, Undefined)  # carried() keeps defined names
        return value

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        from xdsl.dialects import arith

        c = self.scalar(cond, boolean)
        x, y = self.scalar(a, boolean), self.scalar(b, boolean)
        return Scalar(self.result(arith.SelectOp(c.ssa, x.ssa, y.ssa)), boolean)
