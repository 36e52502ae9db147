"""`privatize`: the visibility rewriting of gpuc's pipeline. Every top-level
symbol outside the entrypoint set (`gpuc.entrypoints`, written by
classify-entrypoints) becomes private and every entrypoint public, so that
symbol-dce can drop what inlining left dead (GPUCompiler.jl PR #928).
Declarations stay declarations: only visibility changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import ENTRYPOINTS_ATTR
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.symbols import lookup_in, symbol_name
from gpuc.explain.record import active_recorder
from gpuc.transforms.classify_entrypoints import read_entrypoints
from gpuc.transforms.symbol_privatize import privatize_symbols, set_visibility
from gpuc.transforms.symbol_uses import is_symbol, visibility


def privatize(module: ModuleOp) -> None:
    """Make the entrypoint set exactly the public top-level symbols of `module`."""
    entrypoints = read_entrypoints(module)
    recorder = active_recorder()
    before = _visibilities(module) if recorder is not None else {}
    privatize_symbols(module, exclude=set(entrypoints))
    for name in entrypoints:
        # `lookup_in`: the table last built for the module (by the call
        # graph, in classification), each hit checked; building another is
        # a weak reference per symbol, 5,000 at 1,000 kernels.
        op = lookup_in(module, name)
        if op is None:
            continue
        if isinstance(op, FuncOp) and op.is_declaration:
            raise OpError(
                op,
                f"@{name} is in the entrypoint set ('{ENTRYPOINTS_ATTR}') but is a "
                "declaration, which must stay private; define it here or take it "
                "out of the set",
            )
        set_visibility(op, "public")
    if recorder is not None:
        for name, new in _visibilities(module).items():
            recorder.visibility_changed(name, "privatize", before[name], new)


def _visibilities(module: ModuleOp) -> dict[str, str]:
    return {
        name: visibility(op)
        for op in module.ops
        if is_symbol(op) and (name := symbol_name(op)) is not None
    }


@dataclass(frozen=True)
class Privatize(ModulePass):
    """Privatize every top-level symbol outside the entrypoint set."""

    name = "privatize"
    preserves_call_graph: ClassVar[bool] = True
    """It changes no call, function or op (`gpuc.dialects.call_graph`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        privatize(op)
