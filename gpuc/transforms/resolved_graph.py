"""Keeping the call graph true through resolve-deferred, in the case the
pipeline meets most: every deferred op a `gpuc.deferred_call` in a callable,
and each job's function its source itself, moved (renamed, placed last in
the module), no function made. The graph then changes by what resolution
did, which is known here: the moved functions' nodes are renamed and placed
last (where a walk would now meet them), each deferred call becomes the
`gpuc.call` that replaced it, at its place among its callable's sites, and
the one reference it held to its source is the call's. In any other case
the graph is forgotten, and the next question walks the module again.

This spares the walk of the whole module that classify-entrypoints would
otherwise make right after resolution (resolution asked the graph first, for
the deferred calls and the references to each symbol). The test suite
checks every graph kept against a fresh walk (GPUC_CHECK_ANALYSES).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation

from gpuc.dialects.call_graph import (
    ASSERT,
    COLLECTED,
    DEFERRED_CALL,
    FOR,
    IF,
    CallGraph,
    forget_derived,
)
from gpuc.dialects.deferred import DeferredCallOp
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.transforms.symbol_uses import held_refs


@dataclass
class Resolution:
    """What resolve-deferred did, as the call graph needs to know it."""

    moves: list[tuple[str, FuncOp]] = field(default_factory=list)
    """Each job's source moved into it (its old name, the function), in the
    order they were moved (to the module's end)."""
    rewritten: dict[Operation, Operation] = field(default_factory=dict)
    """Each deferred op -> the op that replaced it."""
    kept: bool = True
    """False once resolution did more (made, copied or linked a function,
    or met deferred ops other than calls)."""


_LISTED = frozenset((ASSERT, IF, FOR))
"""Ops the graph lists in module order, which a moved function's would leave."""


def keep_call_graph(graph: CallGraph, done: Resolution) -> bool:
    """Update `graph` (of the module before resolution) for what `done` says
    resolution did, if that is all renames and rewrites of deferred calls;
    whether it did (if not, the caller forgets the graph)."""
    deferred = graph.ops_by_name[DEFERRED_CALL]
    if (
        not done.kept
        or len(graph.deferred_sites) != len(deferred)  # one outside a callable
        or len(done.rewritten) != len(deferred)  # or one resolution made
        or (done.moves and graph.multi_block)
    ):
        return False
    for source, func in done.moves:
        held = graph.holds.get(source)
        if graph.funcs.get(source) is not func or held is None:
            return False
        # A new name that the module already names (a dangling reference
        # such as `{note = @job.helper}`, which renaming makes live) makes
        # the moved function referenced: a walk would count it.
        if graph.ref_counts.get(func.sym_name.data):
            return False
        if not held.isdisjoint(_LISTED):
            return False
    shared: dict[int, list[SymbolRefAttr]] = {}  # job configurations are shared
    for _, _, _, op in graph.deferred_sites:
        new = done.rewritten.get(op)
        # Its source its one reference: the call's callee is then its only one.
        if type(new) is not CallOp or type(op) is not DeferredCallOp:
            return False
        if len(held_refs(op, shared)) != 1:
            return False
    _rename(graph, done.moves)
    _rewrite_sites(graph, done.rewritten)
    return True


def _rename(graph: CallGraph, moves: list[tuple[str, FuncOp]]) -> None:
    """The moved functions under their new names, last (the symbol table,
    which resolution shares with the graph, is renamed already)."""
    for source, func in moves:
        name = func.sym_name.data
        del graph.funcs[source]
        graph.funcs[name] = func
        graph.callees[name] = graph.callees.pop(source)
        graph.holds[name] = graph.holds.pop(source)
        for names in (graph.state_own, graph.indirect_callers):
            if source in names:
                names.remove(source)
                names.add(name)
        if source in graph.shared_allocs:
            graph.shared_allocs[name] = graph.shared_allocs.pop(source)
        graph.sites[func] = graph.sites.pop(func)
        graph.scopes[func] = graph.scopes.pop(func)
        # Its one reference was the deferred call's; it is now a call's.
        graph.referenced.discard(func)


def _rewrite_sites(graph: CallGraph, rewritten: dict[Operation, Operation]) -> None:
    """Each deferred call's call at its place among its callable's sites."""
    counts = graph.ref_counts
    inserted: dict[Operation, int] = {}
    sites = graph.sites
    for caller, name, at, op in graph.deferred_sites:
        # (`keep_call_graph` checked the classes)
        source = cast(SymbolRefAttr, op.properties["source"]).root_reference.data
        new = rewritten[op]
        callee = cast(SymbolRefAttr, new.properties["callee"]).root_reference.data
        shift = inserted.get(caller, 0)
        sites[caller].insert(at + shift, cast(CallOp, new))
        inserted[caller] = shift + 1
        counts[source] -= 1
        if not counts[source]:
            del counts[source]
        counts[callee] = counts.get(callee, 0) + 1
        if name is not None:
            graph.callees[name].add(callee)
            holds = graph.holds[name]
            holds.discard(DEFERRED_CALL)
            holds.add(CallOp.name)
    if rewritten:
        graph.op_names.discard(DEFERRED_CALL)
        graph.op_names.add(CallOp.name)
    graph.deferred_sites = []
    for listed in [k for k in graph.ops_by_name if k not in COLLECTED]:
        del graph.ops_by_name[listed]  # asked since: walked again if asked
    graph.ops_by_name[DEFERRED_CALL] = []
    forget_derived(graph)
