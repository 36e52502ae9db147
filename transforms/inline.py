"""`inline`: inline every call to an `always_inline` callee, bottom-up.

`no_inline` callees, callees without a hint and declarations are never
inlined. A recursive always-inline cycle is a diagnostic naming the cycle.
Like MLIR's inliner, the pass erases the callables that inlining leaves
dead: private always-inline functions referenced only by calls. Those are
never flattened themselves: a caller copies their original bodies and
expands the calls in the copies, so the work is proportional to what the
pass produces, and a chain of n always-inline functions costs O(n) (MLIR's
inliner is quadratic on it). The other always-inline functions are
flattened callees first, then every other function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import InlineHint
from gpuc.dialects.functions import FUNCTION_OPS, CallOp, FuncOp
from gpuc.dialects.symbols import build_table, is_symbol_table
from gpuc.explain.record import Recorder, active_recorder
from gpuc.transforms.inliner import inline_call
from gpuc.transforms.symbol_uses import held_refs, is_private


def _always_inline(op: Operation | None) -> FuncOp | None:
    if isinstance(op, FuncOp) and not op.is_declaration:
        if op.inline_hint == InlineHint.ALWAYS_INLINE:
            return op
    return None


@dataclass
class _CallGraph:
    """The inlinable call sites of a module and who is referenced otherwise."""

    tables: dict[Operation, dict[str, Operation]] = field(default_factory=dict)
    callers: dict[Operation, dict[str, Operation]] = field(default_factory=dict)
    """Every function that may hold calls -> the symbols its calls resolve in."""
    sites: dict[Operation, list[CallOp]] = field(default_factory=dict)
    callees: dict[FuncOp, list[tuple[CallOp, FuncOp]]] = field(default_factory=dict)
    always: dict[FuncOp, None] = field(default_factory=dict)
    """Every always-inline function met, in module order (an ordered set)."""
    referenced: set[Operation] = field(default_factory=set)

    def scan_module(self, module: ModuleOp) -> None:
        self.tables[module] = symbols = build_table(module)
        for ref in held_refs(module):  # e.g. the entrypoint set
            if (target := symbols.get(ref.root_reference.data)) is not None:
                self.referenced.add(target)
        self.scan(module, module, None)

    def scan(self, op: Operation, table: Operation, caller: Operation | None) -> None:
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    self._visit(nested, table, caller)

    def _visit(self, op: Operation, table: Operation, caller: Operation | None) -> None:
        symbols = self.tables.get(table)
        if symbols is None:
            symbols = self.tables[table] = build_table(table)
        if isinstance(op, CallOp) and caller is not None:
            callee = _always_inline(symbols.get(op.callee.root_reference.data))
            if callee is not None:
                self.always[callee] = None
                self.sites.setdefault(caller, []).append(op)
                if isinstance(caller, FuncOp):
                    self.callees.setdefault(caller, []).append((op, callee))
                return
        for ref in held_refs(op):
            target = symbols.get(ref.root_reference.data)
            if target is not None:
                self.referenced.add(target)
        if is_symbol_table(op):
            self.scan(op, op, None)
        elif op.name in FUNCTION_OPS:
            self.callers[op] = symbols
            if (always := _always_inline(op)) is not None:
                self.always[always] = None
            self.scan(op, table, op)
        else:
            self.scan(op, table, caller)


def _bottom_up(graph: _CallGraph) -> list[FuncOp]:
    """Always-inline functions, callees before callers; a cycle is a diagnostic."""
    order: list[FuncOp] = []
    state: dict[FuncOp, int] = {}  # 1: on the DFS path, 2: done
    for root in graph.always:
        if root in state:
            continue
        path: list[tuple[FuncOp, int]] = [(root, 0)]
        state[root] = 1
        while path:
            node, i = path[-1]
            edges = graph.callees.get(node, [])
            if i == len(edges):
                path.pop()
                state[node] = 2
                order.append(node)
                continue
            path[-1] = (node, i + 1)
            call, callee = edges[i]
            if state.get(callee) == 1:
                cycle = [f for f, _ in path[[f for f, _ in path].index(callee) :]]
                names = " -> ".join(f"@{f.sym_name.data}" for f in [*cycle, callee])
                raise OpError(
                    call,
                    f"recursive always-inline cycle {names}: it cannot be inlined; "
                    "mark one of these functions no_inline (or drop always_inline)",
                )
            if callee not in state:
                state[callee] = 1
                path.append((callee, 0))
    return order


def inline_module(module: ModuleOp) -> None:
    """Inline every call to an always-inline callee in `module`."""
    graph = _CallGraph()
    graph.scan_module(module)
    flattened = _bottom_up(graph)
    dying = {f for f in flattened if is_private(f) and f not in graph.referenced}
    done = set(flattened)
    later = [f for f in graph.callers if f not in done]
    recorder = active_recorder()
    for caller in [*(f for f in flattened if f not in dying), *later]:
        _expand(caller, graph, recorder)
    for f in dying:
        block = f.parent_block()
        assert block is not None
        if recorder is not None:
            recorder.removed(f, "inline", "no references left after inlining")
        block.detach_op(f)


def _expand(caller: Operation, graph: _CallGraph, recorder: Recorder | None) -> None:
    """Inline the always-inline calls of `caller`, and those they bring along."""
    worklist = list(graph.sites.get(caller, ()))
    symbols = graph.callers[caller]
    while worklist:
        call = worklist.pop()
        callee = _always_inline(symbols.get(call.callee.root_reference.data))
        if callee is None:
            continue
        if recorder is not None:
            recorder.inlined(callee, caller)
        for copy in inline_call(call, callee):
            worklist.extend(op for op in copy.walk() if isinstance(op, CallOp))


@dataclass(frozen=True)
class Inline(ModulePass):
    """Inline calls to always_inline callees, bottom-up (never no_inline ones)."""

    name = "inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_module(op)
