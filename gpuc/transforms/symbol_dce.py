"""`symbol-dce`: delete the symbols nothing live refers to, with MLIR's semantics.

Works on any symbol op (`func.func`, `gpuc.func`, named nested modules, ...).
Non-symbol ops and public symbols are live; so are `nested` symbols, unless
their table is hidden from its parent (the top module always is, and so is
everything inside it). A live op makes live every symbol its uses resolve to,
every symbol along a nested path `@m::@f` included; a live symbol table has
its own liveness computed. References to unknown symbols are ignored. Symbols
in tables nested inside other ops' bodies (not direct children of a live
table) are never live: MLIR deletes them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsolatedFromAbove

from gpuc.dialects.call_graph import invalidate_call_graph
from gpuc.dialects.symbols import build_table, is_symbol_table
from gpuc.explain.record import Recorder, active_recorder
from gpuc.transforms.symbol_uses import (
    is_private,
    is_symbol,
    symbol_uses,
    visibility,
)


class _Liveness:
    """The live symbols of one symbol table and of the live tables inside it."""

    def __init__(self) -> None:
        self.recorder = active_recorder()
        self.live: set[Operation] = set()
        self.computed: list[Operation] = []
        self.unreached: list[Operation] = []
        self._tables: dict[Operation, dict[str, Operation]] = {}
        self._held: dict[int, list[SymbolRefAttr]] = {}
        """The refs of each composite attribute met (`symbol_uses`): the ops
        are alive until liveness is known."""

    def _table(self, table_op: Operation) -> dict[str, Operation]:
        table = self._tables.get(table_op)
        if table is None:
            table = self._tables[table_op] = build_table(table_op)
        return table

    def _resolve(self, table_op: Operation, ref: SymbolRefAttr) -> list[Operation]:
        """MLIR's `lookupSymbolIn`, every symbol on the path; [] if one is missing."""
        found = self._table(table_op).get(ref.root_reference.data)
        if found is None:
            return []
        path = [found]
        for nested in ref.nested_references.data:
            if not is_symbol_table(found):
                return []
            found = self._table(found).get(nested.data)
            if found is None:
                return []
            path.append(found)
        return path

    def compute(self, table_op: Operation, hidden: bool) -> None:
        self.computed.append(table_op)
        worklist: list[Operation] = []
        for block in table_op.regions[0].blocks:
            for op in block.ops:
                if not is_symbol(op):
                    worklist.append(op)
                    continue
                seen = visibility(op)
                discardable = (hidden or seen == "private") and seen != "public"
                if not discardable and op not in self.live:
                    self.live.add(op)
                    worklist.append(op)
        done_tables: set[Operation] = set()
        while worklist:
            op = worklist.pop()
            if is_symbol_table(op) and op not in done_tables:
                done_tables.add(op)
                self.compute(op, hidden or not is_symbol(op) or is_private(op))
            scope = op.parent_op()
            assert scope is not None
            for ref in symbol_uses(op, self.unreached, self._held):
                for symbol in self._resolve(scope, ref):
                    if self.recorder is not None:
                        self.recorder.referenced(symbol, op)
                    if symbol not in self.live:
                        self.live.add(symbol)
                        worklist.append(symbol)


def _remove(op: Operation) -> None:
    block = op.parent_block()
    assert block is not None
    block.detach_op(op)
    if not op.has_trait(IsolatedFromAbove):
        op.erase(safe_erase=False)


def _remove_dead_children(
    table_op: Operation, live: set[Operation], recorder: Recorder | None
) -> None:
    for block in table_op.regions[0].blocks:
        dead = [op for op in block.ops if is_symbol(op) and op not in live]
        for op in dead:
            if recorder is not None:
                recorder.removed(op, "symbol-dce", "no references")
            _remove(op)


def symbol_dce(table_op: Operation) -> None:
    """Delete the dead symbols of `table_op` and of the symbol tables inside it."""
    liveness = _Liveness()
    parent = table_op.parent_op()
    hidden = parent is None or not is_symbol(table_op) or is_private(table_op)
    liveness.compute(table_op, hidden)
    recorder = liveness.recorder
    for table in liveness.computed:
        _remove_dead_children(table, liveness.live, recorder)
    for root in liveness.unreached:
        for table in [op for op in root.walk() if is_symbol_table(op)]:
            _remove_dead_children(table, liveness.live, recorder)


@dataclass(frozen=True)
class SymbolDCE(ModulePass):
    """Delete private symbols that nothing live refers to (MLIR's `symbol-dce`)."""

    name = "symbol-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbol_dce(op)
        invalidate_call_graph(op)
