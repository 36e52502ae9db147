"""The builder of a translated function's instructions: llvmlite's
`IRBuilder`, with the calls gpuc makes most made faster. llvmlite's
`CallInstr` validates every argument through two property lookups and a
type comparison each and builds its attribute sets one name at a time,
about 6 µs a call; an intrinsic call of a kernel (a special register,
`llvm.fmuladd`) is most of its calls. `Builder.call` makes the same
instruction, with the same fields, in about half of that when nothing about
the call is unusual (no calling convention, tail marker, call or argument
attributes given; a non-variadic function; each argument of its
parameter's type), and leaves the rest to llvmlite."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from llvmlite import ir
from llvmlite.ir import instructions as li


def _plain(fn: ir.Value, args: Sequence[ir.Value]) -> bool:
    """Whether `fn(args)` is a call llvmlite would make without converting
    or refusing anything: a non-variadic function, each argument of its
    parameter's type."""
    if not isinstance(fn, ir.Function):
        return False
    fnty = fn.function_type
    params = fnty.args
    if fnty.var_arg or len(args) != len(params):
        return False
    return all(a.type is t or a.type == t for a, t in zip(args, params, strict=True))


class Builder(ir.IRBuilder):  # type: ignore[misc]  # untyped
    """llvmlite's builder, its plain calls made directly."""

    def call(
        self,
        fn: ir.Value,
        args: Sequence[ir.Value],
        name: str = "",
        cconv: str | None = None,
        tail: bool | str = False,
        fastmath: Iterable[str] = (),
        attrs: Iterable[str] = (),
        arg_attrs: Mapping[int, Iterable[str]] | None = None,
    ) -> ir.Value:
        """`fn(args)`, as llvmlite's `IRBuilder.call` makes it."""
        if (
            cconv is not None
            or tail
            or attrs
            or arg_attrs is not None
            or not _plain(fn, args)
        ):
            return super().call(fn, args, name, cconv, tail, fastmath, attrs, arg_attrs)
        block = self.block
        call = li.CallInstr.__new__(li.CallInstr)
        call.cconv = fn.calling_convention
        call.tail = ""
        # Empty attribute sets made as llvmlite's constructors would leave them.
        call.fastmath = (
            li.FastMathFlags(fastmath)
            if fastmath
            else li.FastMathFlags.__new__(li.FastMathFlags)
        )
        call.attributes = li.CallInstrAttributes.__new__(li.CallInstrAttributes)
        call.arg_attributes = {}
        call.parent = block
        call.type = fn.function_type.return_type
        call._name = block.scope.register(name, deduplicate=True)  # noqa: SLF001
        call.opname = "call"
        call.operands = [fn, *args]
        call.flags = []
        call.metadata = {}
        self._insert(call)
        return call
