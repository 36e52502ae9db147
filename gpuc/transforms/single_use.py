"""The single-use helpers of `inline{single-use=true}`, and inlining them.

A private helper whose only use is one direct `gpuc.call` is inlined by
LLVM's inliner at O1 and above anyway (the bonus for the last call to a
local function), after LLVM ran its function pipeline on it; `inline`
inlines it first, at opt_level >= 1, so LLVM gets one function per kernel.
Uses are counted on the calls each callable keeps once the always-inline
calls are inlined, and a helper on a cycle of calls is never one.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation

from gpuc.dialects.call_graph import CallGraph
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.explain.record import Recorder
from gpuc.transforms.inliner import inline_call
from gpuc.transforms.symbol_uses import is_private


def on_cycles(edges: dict[Operation, list[Operation]]) -> set[Operation]:
    """The nodes of `edges` on a cycle: in a strongly connected component of
    several nodes, or calling themselves (Tarjan's algorithm, iterative)."""
    index: dict[Operation, int] = {}
    low: dict[Operation, int] = {}
    stack: list[Operation] = []
    on_stack: set[Operation] = set()
    found: set[Operation] = set()

    def enter(node: Operation) -> Iterator[Operation]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return iter(edges.get(node, ()))

    for root in edges:
        if root in index:
            continue
        path = [(root, enter(root))]
        while path:
            node, targets = path[-1]
            for target in targets:
                if target not in index:
                    path.append((target, enter(target)))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
                    if target is node:
                        found.add(node)
            else:
                path.pop()
                if path:
                    parent = path[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = [stack.pop()]
                    while component[-1] is not node:
                        component.append(stack.pop())
                    on_stack.difference_update(component)
                    if len(component) > 1:
                        found.update(component)
    return found


def single_use_helpers(
    kept: dict[Operation, list[CallOp]], graph: CallGraph
) -> dict[FuncOp, None]:
    """The helpers whose only use is one direct call among `kept` (each
    callable's calls once the always-inline ones are inlined): private,
    defined, neither a kernel nor `no_inline`, referenced in no other way,
    not on a cycle of calls (an ordered set)."""
    calls: dict[Operation, list[CallOp]] = {}
    edges: dict[Operation, list[Operation]] = {}
    for caller, sites in kept.items():
        symbols = graph.scopes[caller]
        targets = edges[caller] = []
        for call in sites:
            target = symbols.get(call.callee.root_reference.data)
            if target is not None:
                calls.setdefault(target, []).append(call)
                targets.append(target)
    found = {
        f: None
        for f, sites in calls.items()
        if len(sites) == 1
        and not sites[0].callee.nested_references
        and isinstance(f, FuncOp)
        and not f.is_declaration
        and not f.is_kernel
        and f.inline_hint is None
        and is_private(f)
        and f not in graph.referenced
    }
    # Only a helper that calls something can be on a cycle.
    if any(edges.get(f) for f in found):
        cyclic = on_cycles(edges)
        found = {f: None for f in found if f not in cyclic}
    return found


def inline_single_use(
    kept: dict[Operation, list[CallOp]], graph: CallGraph, recorder: Recorder | None
) -> dict[FuncOp, None]:
    """Inline each single-use helper into the function that ends up holding
    its call; return them, for the caller to erase. Helpers are never
    inlined on their own: a helper's call comes along with its caller's body,
    as the always-inline functions that die do, so a chain of them costs what
    it produces; each body is moved, not copied."""
    single = single_use_helpers(kept, graph)
    for caller, sites in kept.items():
        if caller in single:
            continue
        symbols = graph.scopes[caller]
        worklist = list(sites)
        while worklist:
            call = worklist.pop()
            callee = symbols.get(call.callee.root_reference.data)
            if callee not in single:
                continue
            assert isinstance(callee, FuncOp)
            if recorder is not None:
                recorder.inlined(callee, caller, single_call_site=True)
            inline_call(call, callee, True, worklist)
    return single
