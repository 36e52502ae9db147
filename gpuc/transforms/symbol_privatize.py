"""`symbol-privatize`: make every top-level symbol private (MLIR's pass).

Symbols named in `exclude` keep their visibility; nested symbol tables are
not entered. Declarations stay declarations: only visibility changes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass

from gpuc.dialects.symbols import symbol_name
from gpuc.transforms.symbol_uses import is_symbol

# One shared attribute per keyword: attributes are immutable, and building a
# StringAttr per symbol is most of the cost of privatizing 10,000 symbols.
_VISIBILITY = {v: StringAttr(v) for v in ("private", "nested")}


def _is_property(op: Operation) -> bool:
    if "sym_visibility" in op.properties:
        return True
    return isinstance(op, IRDLOperation) and (
        "sym_visibility" in op.get_irdl_definition().properties
    )


def set_visibility(op: Operation, visibility: str) -> None:
    """Set `sym_visibility` where the op keeps it (property or attribute)."""
    value = None if visibility == "public" else _VISIBILITY.get(visibility)
    if value is None and visibility != "public":
        value = StringAttr(visibility)
    holder = op.properties if _is_property(op) else op.attributes
    if value is None:
        holder.pop("sym_visibility", None)
    else:
        holder["sym_visibility"] = value


def privatize_symbols(table_op: Operation, exclude: Collection[str] = ()) -> None:
    """Make the symbols directly inside `table_op` private, except `exclude`."""
    for block in table_op.regions[0].blocks:
        for op in block.ops:
            name = symbol_name(op)
            if is_symbol(op) and name is not None and name not in exclude:
                set_visibility(op, "private")


@dataclass(frozen=True)
class SymbolPrivatize(ModulePass):
    """Make all top-level symbols private except those in `exclude`."""

    name = "symbol-privatize"
    preserves_call_graph: ClassVar[bool] = True
    """It changes no call, function or op (`gpuc.dialects.call_graph`)."""

    exclude: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        privatize_symbols(op, {name.removeprefix("@") for name in self.exclude})
