"""gpuc's builder (gpuc.lowering.builder) makes the calls llvmlite's makes:
the same fields, whether it makes the call itself or leaves it to llvmlite,
and the same refusal of an argument of the wrong type."""

from __future__ import annotations

from typing import Any

import pytest
from llvmlite import ir

from gpuc.lowering.builder import Builder
from gpuc.lowering.printing import Function

F32, I32 = ir.FloatType(), ir.IntType(32)


def fields(call: ir.Instruction) -> dict[str, Any]:
    """`call`'s fields but its name (llvmlite deduplicates it per call)."""
    return {k: v for k, v in vars(call).items() if k != "_name"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"fastmath": ("nnan", "contract")},
        {"fastmath": ()},
        {"name": "r"},
        {"tail": "tail"},
        {"cconv": "fastcc"},
        {"attrs": ("convergent",)},
        {"arg_attrs": {0: ("noundef",)}},
    ],
)
def test_calls_are_llvmlites(kwargs: dict[str, Any]) -> None:
    module = ir.Module(name="calls")
    fn = Function(module, ir.FunctionType(F32, [F32, F32]), "f")
    fma = ir.Function(module, ir.FunctionType(F32, [F32, F32, F32]), "fma")
    fma.calling_convention = "spir_func"
    read = ir.Function(module, ir.FunctionType(I32, []), "read")
    variadic = ir.Function(module, ir.FunctionType(I32, [F32], var_arg=True), "v")
    block = fn.append_basic_block("entry")
    x, y = fn.args
    for callee, args in ((fma, [x, y, ir.Constant(F32, 1.0)]), (read, [])):
        if "arg_attrs" in kwargs and not args:
            continue
        ours = Builder(block).call(callee, args, **kwargs)
        theirs = ir.IRBuilder(block).call(callee, args, **kwargs)
        assert fields(ours) == fields(theirs)
        assert type(ours.fastmath) is type(theirs.fastmath)
        assert type(ours.attributes) is type(theirs.attributes)
        assert ours.name.split(".")[0] == theirs.name.split(".")[0]
    ours = Builder(block).call(variadic, [x, y, x])
    theirs = ir.IRBuilder(block).call(variadic, [x, y, x])
    assert fields(ours) == fields(theirs)


def test_an_argument_of_the_wrong_type_is_refused_as_llvmlite_does() -> None:
    module = ir.Module(name="calls")
    fn = Function(module, ir.FunctionType(F32, [I32]), "f")
    callee = ir.Function(module, ir.FunctionType(F32, [F32]), "g")
    block = fn.append_basic_block("entry")
    with pytest.raises(TypeError, match="arg mismatch"):
        Builder(block).call(callee, [fn.args[0]])
