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
from gpuc.dialects.call_graph import CallGraph, call_graph, invalidate_call_graph
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.explain.record import Recorder, active_recorder
from gpuc.transforms.inliner import inline_call
from gpuc.transforms.symbol_uses import is_private


def _always_inline(op: Operation | None) -> FuncOp | None:
    if isinstance(op, FuncOp) and not op.is_declaration:
        if op.inline_hint == InlineHint.ALWAYS_INLINE:
            return op
    return None


@dataclass
class _InlineGraph:
    """The always-inline edges of the module's call graph."""

    graph: CallGraph
    callees: dict[FuncOp, list[tuple[CallOp, FuncOp]]] = field(default_factory=dict)
    always: dict[FuncOp, None] = field(default_factory=dict)
    """Every always-inline function met, in module order (an ordered set)."""

    @classmethod
    def of(cls, module: ModuleOp) -> _InlineGraph:
        graph = call_graph(module)
        found = cls(graph)
        for caller, sites in graph.sites.items():
            if (always := _always_inline(caller)) is not None:
                found.always[always] = None
            symbols = graph.scopes[caller]
            for call in sites:
                callee = _always_inline(symbols.get(call.callee.root_reference.data))
                if callee is None:
                    continue
                found.always[callee] = None
                if isinstance(caller, FuncOp):
                    found.callees.setdefault(caller, []).append((call, callee))
        return found


def _bottom_up(graph: _InlineGraph) -> list[FuncOp]:
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
    graph = _InlineGraph.of(module)
    flattened = _bottom_up(graph)
    referenced = graph.graph.referenced
    dying = {f for f in flattened if is_private(f) and f not in referenced}
    done = set(flattened)
    later = [f for f in graph.graph.sites if f not in done]
    recorder = active_recorder()
    for caller in [*(f for f in flattened if f not in dying), *later]:
        _expand(caller, graph.graph, recorder)
    for f in dying:
        block = f.parent_block()
        assert block is not None
        if recorder is not None:
            recorder.removed(f, "inline", "no references left after inlining")
        block.detach_op(f)
    invalidate_call_graph(module)


def _expand(caller: Operation, graph: CallGraph, recorder: Recorder | None) -> None:
    """Inline the always-inline calls of `caller`, and those they bring along."""
    worklist = list(graph.sites.get(caller, ()))
    symbols = graph.scopes[caller]
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
