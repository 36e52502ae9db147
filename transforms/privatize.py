"""`privatize`: the visibility rewriting of gpuc's pipeline. Every top-level
symbol outside the entrypoint set (`gpuc.entrypoints`, written by
classify-entrypoints) becomes private and every entrypoint public, so that
symbol-dce can drop what inlining left dead (GPUCompiler.jl PR #928).
Declarations stay declarations: only visibility changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.dialects.symbols import build_table
from gpuc.transforms.classify_entrypoints import read_entrypoints
from gpuc.transforms.symbol_privatize import privatize_symbols, set_visibility


def privatize(module: ModuleOp) -> None:
    """Make the entrypoint set exactly the public top-level symbols of `module`."""
    entrypoints = read_entrypoints(module)
    privatize_symbols(module, exclude=set(entrypoints))
    table = build_table(module)
    for name in entrypoints:
        if name in table:
            set_visibility(table[name], "public")


@dataclass(frozen=True)
class Privatize(ModulePass):
    """Privatize every top-level symbol outside the entrypoint set."""

    name = "privatize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        privatize(op)
