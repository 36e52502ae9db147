"""`inline`: inline every call to an `always_inline` callee, bottom-up.

`no_inline` callees and declarations are never inlined, callees without a
hint only with `single-use` (below). A recursive always-inline cycle is a
diagnostic naming the cycle. Like MLIR's inliner, the pass erases the
callables that inlining leaves dead: private always-inline functions
referenced only by calls. Those are never flattened themselves: a caller
copies their original bodies (moves them, for one called once) and expands
the calls in the copies, so the work is proportional to what the pass
produces, and a chain of n always-inline functions costs O(n) (MLIR's
inliner is quadratic on it). The other always-inline functions are
flattened callees first, then every other function.

With `single-use` (what the pipeline sets at opt_level >= 1), the pass then
also inlines, and erases, each function LLVM's inliner would inline anyway
(a private function with one call site always is, at O1 and above): a
private helper without `no_inline`, not recursive, whose only use left is
one direct `gpuc.call` (gpuc/transforms/single_use.py), so LLVM gets one
function per kernel, not one per helper. At O0 LLVM inlines nothing, and
neither does this.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import InlineHint, InlineHintAttr
from gpuc.dialects.call_graph import CallGraph, call_graph, invalidate_call_graph
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.explain.record import Recorder, active_recorder
from gpuc.transforms.inliner import inline_call
from gpuc.transforms.single_use import inline_single_use
from gpuc.transforms.symbol_uses import is_private


def _always_inline(op: Operation | None) -> FuncOp | None:
    # The hint first, read as `FuncOp.inline_hint` reads it: most callables
    # have none, and are then answered without a check of their class.
    hint = None if op is None else op.properties.get("inline")
    if hint is None or not isinstance(hint, InlineHintAttr):
        return None
    if hint.data != InlineHint.ALWAYS_INLINE:
        return None
    if isinstance(op, FuncOp) and not op.is_declaration:
        return op
    return None


@dataclass
class _InlineGraph:
    """The always-inline edges of the module's call graph."""

    graph: CallGraph
    callees: dict[FuncOp, list[tuple[CallOp, FuncOp]]] = field(default_factory=dict)
    always: dict[FuncOp, None] = field(default_factory=dict)
    """Every always-inline function met, in module order (an ordered set)."""
    callers: dict[FuncOp, list[Operation]] = field(default_factory=dict)
    """Always-inline function -> the callable holding each of its calls."""

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
                found.callers.setdefault(callee, []).append(caller)
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


def inline_module(module: ModuleOp, single_use: bool = False) -> None:
    """Inline every call to an always-inline callee in `module`; with
    `single_use`, then every call to a single-use helper (module docstring)."""
    graph = _InlineGraph.of(module)
    flattened = _bottom_up(graph)
    referenced = graph.graph.referenced
    dying = {f for f in flattened if is_private(f) and f not in referenced}
    done = set(flattened)
    later = [f for f in graph.graph.sites if f not in done]
    # A dying function called once, by a function that is not dying, is
    # inlined once: its body is moved there.
    once = {
        f
        for f in dying
        if len(callers := graph.callers.get(f, [])) == 1 and callers[0] not in dying
    }
    recorder = active_recorder()
    kept = {
        caller: _expand(caller, graph.graph, recorder, once)
        for caller in [*(f for f in flattened if f not in dying), *later]
    }
    _erase(dying, recorder, "no references left after inlining")
    if single_use:
        _erase(
            inline_single_use(kept, graph.graph, recorder),
            recorder,
            "no references left after inlining into its only caller (single call site)",
        )
    invalidate_call_graph(module)


def _erase(funcs: Iterable[FuncOp], recorder: Recorder | None, why: str) -> None:
    for f in funcs:
        block = f.parent_block()
        assert block is not None
        if recorder is not None:
            recorder.removed(f, "inline", why)
        block.detach_op(f)


def _expand(
    caller: Operation,
    graph: CallGraph,
    recorder: Recorder | None,
    once: set[FuncOp],
) -> list[CallOp]:
    """Inline the always-inline calls of `caller`, and those they bring along
    (moving the bodies of those inlined `once`); return the calls it keeps."""
    worklist = list(graph.sites.get(caller, ()))
    symbols = graph.scopes[caller]
    kept: list[CallOp] = []
    while worklist:
        call = worklist.pop()
        callee = _always_inline(symbols.get(call.callee.root_reference.data))
        if callee is None:
            kept.append(call)
            continue
        if recorder is not None:
            recorder.inlined(callee, caller)
        inline_call(call, callee, callee in once, worklist)
    return kept


@dataclass(frozen=True)
class Inline(ModulePass):
    """Inline calls to always_inline callees, bottom-up (never no_inline ones);
    with `single-use`, also private helpers called once."""

    name = "inline"

    single_use: bool = False
    """Also inline the helpers LLVM would inline anyway, those whose only use
    is one call (`inline{single-use=true}`; the pipeline's at opt_level >= 1)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_module(op, self.single_use)
