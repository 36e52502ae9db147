"""`inline` keeps what programs compute: random call DAGs of integer functions
(straight-line, multi-block with cf branches, calls inside scf.if), with
random inline hints, are evaluated by a small interpreter before and after
the pass; the results must agree, no call to an always-inline function may
remain, and the private always-inline functions must be gone; with
`single_use`, neither may a private helper called once."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.parser import Parser

from gpuc.context import make_context
from gpuc.dialects.attrs import InlineHint
from gpuc.dialects.functions import CallOp, FuncOp, ReturnOp
from gpuc.transforms.inline import inline_module


def wrap(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


class Interpreter:
    """Evaluates the few ops the generated programs use."""

    def __init__(self, module: ModuleOp):
        self.funcs = {
            op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)
        }

    def call(self, name: str, args: Sequence[int]) -> int:
        (result,) = self.region(self.funcs[name].body, list(args))
        return result

    def region(
        self, region: Region, args: list[int], env: dict[SSAValue, int] | None = None
    ) -> list[int]:
        """Run `region`; nested regions see the values of the enclosing `env`."""
        env = {} if env is None else env
        block: Block | None = region.blocks.first
        while block is not None:
            env.update(zip(block.args, args, strict=True))
            block, args = self.block(block, env)
        return args

    def block(
        self, block: Block, env: dict[SSAValue, int]
    ) -> tuple[Block | None, list[int]]:
        for op in block.ops:
            values = [env[v] for v in op.operands]
            if isinstance(op, ReturnOp | scf.YieldOp):
                return None, values
            if isinstance(op, cf.BranchOp):
                return op.successor, values
            if isinstance(op, cf.ConditionalBranchOp):
                if env[op.cond]:
                    return op.then_block, [env[v] for v in op.then_arguments]
                return op.else_block, [env[v] for v in op.else_arguments]
            env.update(zip(op.results, self.op(op, values, env), strict=True))
        raise AssertionError("block without terminator")

    def op(
        self, op: Operation, values: list[int], env: dict[SSAValue, int]
    ) -> list[int]:
        if isinstance(op, arith.ConstantOp):
            assert isinstance(op.value, IntegerAttr)
            return [op.value.value.data]
        if isinstance(op, arith.AddiOp):
            return [wrap(values[0] + values[1])]
        if isinstance(op, arith.MuliOp):
            return [wrap(values[0] * values[1])]
        if isinstance(op, arith.CmpiOp):
            return [int(values[0] < values[1])]
        if isinstance(op, CallOp):
            return [self.call(op.callee.root_reference.data, values)]
        if isinstance(op, scf.IfOp):
            return self.region(
                op.true_region if values[0] else op.false_region, [], env
            )
        if isinstance(op, scf.ExecuteRegionOp):
            return self.region(op.region, [], env)
        raise AssertionError(f"unexpected op {op.name}")


def random_program(rng: random.Random, n: int) -> str:
    """n functions (i32, i32) -> i32; @f0 is public and no_inline, the rest
    private with random hints; @fi calls only @fj with j > i (a DAG)."""
    lines: list[str] = []
    for i in range(n):
        hint = (
            "no_inline"
            if i == 0
            else rng.choice(["always_inline"] * 3 + ["no_inline", ""])
        )
        vis = "" if i == 0 else "private "
        callee = f"@f{rng.randrange(i + 1, n)}" if i + 1 < n else None
        lines.append(f"gpuc.func {vis}@f{i}(%a: i32, %b: i32) -> i32 helper {hint} {{")
        lines.append(f"  %k = arith.constant {rng.randrange(-9, 10)} : i32")
        lines.append("  %s = arith.addi %a, %k : i32")
        shape = rng.choice(["straight", "branchy", "scf"]) if callee else "straight"
        if shape == "straight" and callee:
            lines += [
                f"  %c = gpuc.call {callee}(%s, %b) : (i32, i32) -> i32",
                "  %r = arith.muli %c, %k : i32",
                "  gpuc.return %r : i32",
            ]
        elif shape == "branchy":
            other = f"@f{rng.randrange(i + 1, n)}"
            lines += [
                "  %lt = arith.cmpi slt, %a, %b : i32",
                "  cf.cond_br %lt, ^then(%s : i32), ^else",
                "^then(%t: i32):",
                f"  %c = gpuc.call {callee}(%t, %b) : (i32, i32) -> i32",
                "  gpuc.return %c : i32",
                "^else:",
                f"  %d = gpuc.call {other}(%b, %s) : (i32, i32) -> i32",
                "  gpuc.return %d : i32",
            ]
        elif shape == "scf":
            lines += [
                "  %lt = arith.cmpi slt, %b, %a : i32",
                "  %r = scf.if %lt -> (i32) {",
                f"    %c = gpuc.call {callee}(%b, %s) : (i32, i32) -> i32",
                "    scf.yield %c : i32",
                "  } else {",
                "    scf.yield %s : i32",
                "  }",
                "  gpuc.return %r : i32",
            ]
        else:
            lines += ["  %r = arith.muli %s, %b : i32", "  gpuc.return %r : i32"]
        lines.append("}")
    return "\n".join(lines)


INPUTS = [(0, 0), (1, 2), (2, 1), (-5, 7), (30, -4), (12345, 678)]


def call_counts(module: ModuleOp) -> Counter[str]:
    return Counter(
        op.callee.root_reference.data for op in module.walk() if isinstance(op, CallOp)
    )


@pytest.mark.parametrize("single_use", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_inlining_keeps_results(seed: int, single_use: bool) -> None:
    rng = random.Random(seed)
    text = random_program(rng, rng.randint(2, 9))
    module = Parser(make_context(), text).parse_module()
    before = [Interpreter(module).call("f0", args) for args in INPUTS]
    inline_module(module, single_use)
    module.verify()
    after = [Interpreter(module).call("f0", args) for args in INPUTS]
    assert after == before, text
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    calls = call_counts(module)
    for name in calls:
        assert funcs[name].inline_hint != InlineHint.ALWAYS_INLINE, text
    assert all(f.inline_hint != InlineHint.ALWAYS_INLINE for f in funcs.values()), text
    if single_use:  # the programs are DAGs: no recursion keeps one
        once = [n for n, f in funcs.items() if f.inline_hint is None and calls[n] == 1]
        assert not once, text


def test_programs_cover_every_inlining_path() -> None:
    """The corpus above exercises both multi-block strategies, and inlines
    helpers called once that a plain `inline` keeps."""
    split = execute_region = single = 0
    for seed in range(40):
        rng = random.Random(seed)
        text = random_program(rng, rng.randint(2, 9))
        module = Parser(make_context(), text).parse_module()
        inline_module(module)
        ops = list(module.walk())
        execute_region += any(isinstance(op, scf.ExecuteRegionOp) for op in ops)
        split += any(isinstance(op, cf.BranchOp) and op.successor.args for op in ops)
        again = Parser(make_context(), text).parse_module()
        inline_module(again, single_use=True)
        single += len(list(again.ops)) < len(list(module.ops))
    assert split > 0 and execute_region > 0 and single > 5


def test_on_cycles_finds_exactly_the_nodes_on_a_cycle() -> None:
    """single-use never inlines a helper on a cycle; nodes only reachable
    from one (or reaching one) are not on it."""
    from gpuc.transforms.single_use import on_cycles

    edges: dict[Any, list[Any]] = {
        "e": ["a"],
        "a": ["b"],
        "b": ["c"],
        "c": ["a", "d"],
        "d": ["d", "g"],
        "f": [],
        "g": ["h"],
        "h": ["i"],
        "i": ["g", "j"],
    }
    assert on_cycles(edges) == {"a", "b", "c", "d", "g", "h", "i"}
    assert on_cycles({"x": ["y"], "y": []}) == set()
