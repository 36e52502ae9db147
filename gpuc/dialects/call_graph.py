"""The call graph of a module, MLIR's `CallGraph` analysis for gpuc: one walk
over the module records who calls whom, whose address is taken, which symbols
are referenced other than by a call, and which ops each function holds. Every
question of the form "which functions reach X" (a barrier, an assert, a
printf, a matrix fragment, the kernel state) is a query on that one graph, so
no pass or stage walks the module once per kernel.

The graph belongs to one state of the module: `call_graph` computes it once
and keeps it until `invalidate_call_graph`. The pass runner invalidates it
after every pass that does not declare `preserves_call_graph`, and a pass that
changes calls or functions and then asks again invalidates it itself, or
updates it for what it changed (resolve-deferred's renames and rewrites:
gpuc/transforms/resolved_graph.py). With
`GPUC_CHECK_ANALYSES=1` (the test suite sets it) every cached answer is
checked against a fresh walk, so a pass that forgets is caught, not trusted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Operation, Region

from gpuc.dialects.functions import (
    FUNCTION_OPS,
    CallIndirectOp,
    CallOp,
    FuncAddrOp,
    FuncOp,
)
from gpuc.dialects.memory import SharedAllocOp
from gpuc.dialects.symbols import build_table, is_symbol_table
from gpuc.dialects.traits import ReadsKernelState
from gpuc.transforms.symbol_uses import ATTRIBUTE_KINDS, LEAF_KIND, UNKNOWN_KIND

INDIRECT = "<indirect>"
"""Call-graph node standing for every function whose address is taken: a
`gpuc.call_indirect` calls it, and it calls every address-taken function."""

ASSERT = "cf.assert"
"""Matched by name: a module without asserts needs no cf dialect loaded."""
PRINTF = "gpuc.printf"
"""Matched by name, as `ASSERT` is."""
IF, FOR = "scf.if", "scf.for"
"""Collected by the walk too (`ops_named`), for verify-target's checks."""
DEFERRED_CALL = "gpuc.deferred_call"
"""Collected too, for resolve-deferred (which keeps the graph true as it
rewrites them: gpuc/transforms/resolved_graph.py)."""
COLLECTED = (ASSERT, IF, FOR, DEFERRED_CALL)
"""The op names whose ops the walk lists (`ops_named`)."""

_CALL, _ADDRESS, _INDIRECT_CALL, _STATE, _DEFERRED, _OTHER = 1, 2, 3, 4, 5, 6
_KIND: dict[type[Operation], int] = {}
"""Op class -> what the walk does with it: one dict hit per op is much cheaper
than a chain of isinstance checks (xDSL op classes are ABCs)."""


def _kind(cls: type[Operation]) -> int:
    found = _KIND.get(cls)
    if found is None:
        if issubclass(cls, CallOp):
            found = _CALL
        elif issubclass(cls, FuncAddrOp):
            found = _ADDRESS
        elif issubclass(cls, CallIndirectOp):
            found = _INDIRECT_CALL
        elif cls.has_trait(ReadsKernelState):
            found = _STATE
        elif cls.name == DEFERRED_CALL:
            found = _DEFERRED
        else:
            found = _OTHER
        _KIND[cls] = found
    return found


class CallGraph:
    """Who calls whom in a module, from one walk (see the module docstring).

    Functions are the module's top-level `gpuc.func`s, by name; the inliner's
    view (`sites`, `tables`, `referenced`) also covers callables in nested
    symbol tables, by op."""

    def __init__(self, module: ModuleOp) -> None:
        from gpuc.transforms.symbol_uses import held_refs

        self.module = module
        self.funcs: dict[str, FuncOp] = {}
        """Top-level functions by name, in module order."""
        self.callees: dict[str, set[str]] = {INDIRECT: set()}
        """Function -> the functions it calls directly (INDIRECT for an
        indirect call); INDIRECT -> every function whose address is taken."""
        self.address_taken: set[str] = set()
        self.indirect_callers: set[str] = set()
        self.holds: dict[str, set[str]] = {}
        """Function -> the names of the ops in its body."""
        self.op_names: set[str] = set()
        """The name of every op of the module."""
        self.ops_by_name: dict[str, list[Operation]] = {name: [] for name in COLLECTED}
        """Op name -> its ops in module order, for the few names asked for
        by op (`ops_named`)."""
        self.multi_block: list[Region] = [
            region
            for region in module.regions
            if region._first_block is not region._last_block  # noqa: SLF001
        ]
        """The regions of several blocks, in module order (`multi_block_regions`)."""
        self.state_own: set[str] = set()
        """Functions holding an op that reads the kernel state."""
        self.shared_allocs: dict[str, list[SharedAllocOp]] = {}
        """Function -> its shared allocations, in order."""
        self.tables: dict[Operation, dict[str, Operation]] = {}
        """Symbol table op -> its symbols."""
        self.sites: dict[Operation, list[CallOp]] = {}
        """Callable (any function op, nested tables included) -> its direct
        call sites, in order."""
        self.scopes: dict[Operation, dict[str, Operation]] = {}
        """Callable -> the symbol table its calls resolve in."""
        self.referenced: set[Operation] = set()
        """Symbols referenced other than as the callee of a direct call."""
        self.ref_counts: dict[str, int] = {}
        """Root name -> how many references of the module name it, whatever
        table they resolve in (`referenced_names`' count)."""
        self.deferred_sites: list[tuple[Operation, str | None, int, Operation]] = []
        """Each `gpuc.deferred_call` in a callable, in module order: the
        callable, its top-level function's name (None: a nested callable),
        how many of the callable's `sites` come before it, the op."""
        self._held_refs = held_refs
        self._held: dict[int, list[SymbolRefAttr]] = {}
        """The refs in each composite attribute met, by id (`held_refs`)."""
        self._scan_table(module)

    def _scan_table(self, table: Operation) -> None:
        symbols = self.tables[table] = build_table(table)
        counts = self.ref_counts
        top = table is self.module
        for ref in self._held_refs(table):  # e.g. the entrypoint set
            root = ref.root_reference.data
            if top:  # a nested table's were counted by the walk that met it
                counts[root] = counts.get(root, 0) + 1
            if (target := symbols.get(root)) is not None:
                self.referenced.add(target)
        funcs, callees, holds = self.funcs, self.callees, self.holds
        for region in table.regions:
            block = region._first_block  # noqa: SLF001
            while block is not None:  # xDSL's links: its iterators cost calls
                op = block._first_op  # noqa: SLF001
                while op is not None:
                    if top and isinstance(op, FuncOp):
                        name = op.properties["sym_name"].data  # type: ignore[attr-defined]
                        funcs.setdefault(name, op)
                        callees.setdefault(name, set())
                        holds.setdefault(name, set())
                        self._visit(op, symbols, op, name)
                    else:  # a function of a nested table calls too
                        caller = op if op.name in FUNCTION_OPS else None
                        self._visit(op, symbols, caller, None)
                    op = op._next_op  # noqa: SLF001
                block = block._next_block  # noqa: SLF001

    def _visit(
        self,
        root: Operation,
        symbols: dict[str, Operation],
        caller: Operation | None,
        name: str | None,
    ) -> None:
        """Record `root` and the ops nested in it (not entering nested symbol
        tables, which `_scan_table` does with their own symbols)."""
        # A function's op names go to its `holds`, and into `op_names` once
        # at the end; other ops' straight into `op_names`.
        holds = self.holds[name] if name is not None else self.op_names
        ops_by_name, kinds, attribute_kinds = self.ops_by_name, _KIND, ATTRIBUTE_KINDS
        stack = [root]
        while stack:
            op = stack.pop()
            op_name = op.name
            holds.add(op_name)
            wanted = ops_by_name.get(op_name)
            if wanted is not None:
                wanted.append(op)
            kind = kinds.get(type(op)) or _kind(type(op))
            if kind != _OTHER:
                if kind == _CALL and caller is not None:
                    assert isinstance(op, CallOp)
                    self.sites[caller].append(op)
                    callee = op.callee.root_reference.data
                    if name is not None:
                        self.callees[name].add(callee)
                    if op.attributes:  # counted whole: they may hold some
                        self._count_refs(op)
                    else:
                        counts = self.ref_counts
                        counts[callee] = counts.get(callee, 0) + 1
                    continue
                if kind == _DEFERRED and caller is not None:
                    at = len(self.sites[caller])
                    self.deferred_sites.append((caller, name, at, op))
                self._special(op, kind, name)
            # Most attributes can hold no reference (a type, an integer):
            # `held_refs` is asked only of an op with one that may.
            for attr in op.properties.values():
                if attribute_kinds.get(type(attr), UNKNOWN_KIND)[0] != LEAF_KIND:
                    self._note_refs(op, symbols)
                    break
            else:
                if op.attributes:
                    self._note_refs(op, symbols)
            if op is root and op_name in FUNCTION_OPS:
                self.sites[op] = []
                self.scopes[op] = symbols
            regions = op.regions
            if not regions:
                continue  # neither a symbol table nor a function body
            for region in regions:
                if region._first_block is not region._last_block:  # noqa: SLF001
                    self.multi_block.append(region)
            if is_symbol_table(op):  # a nested table, the root included
                self._scan_table(op)
                continue
            if op is not root and op_name in FUNCTION_OPS:
                self._visit(op, symbols, op, None)
                continue
            # Reversed onto the stack: ops are visited in program order (by
            # xDSL's links: its iterators cost a call per op).
            for region in reversed(regions):
                block = region._last_block  # noqa: SLF001
                while block is not None:
                    child = block._last_op  # noqa: SLF001
                    while child is not None:
                        stack.append(child)
                        child = child._prev_op  # noqa: SLF001
                    block = block._prev_block  # noqa: SLF001
        if name is not None:
            self.op_names |= holds

    def _special(self, op: Operation, kind: int, name: str | None) -> None:
        """Record an op that takes an address, calls indirectly or reads the
        kernel state (`kind`), in function `name` (None: outside one)."""
        if kind == _ADDRESS:
            assert isinstance(op, FuncAddrOp)
            callee = op.callee.root_reference.data
            self.address_taken.add(callee)
            self.callees[INDIRECT].add(callee)
        elif kind == _INDIRECT_CALL and name is not None:
            self.callees[name].add(INDIRECT)
            self.indirect_callers.add(name)
        elif kind == _STATE and name is not None:
            self.state_own.add(name)
            if isinstance(op, SharedAllocOp):
                self.shared_allocs.setdefault(name, []).append(op)

    def _note_refs(self, op: Operation, symbols: dict[str, Operation]) -> None:
        """Record the symbols `op`'s attributes reference (in `symbols`)."""
        counts = self.ref_counts
        for ref in self._held_refs(op, self._held):
            root = ref.root_reference.data
            counts[root] = counts.get(root, 0) + 1
            target = symbols.get(root)
            if target is not None:
                self.referenced.add(target)

    def _count_refs(self, op: Operation) -> None:
        counts = self.ref_counts
        for ref in self._held_refs(op, self._held):
            root = ref.root_reference.data
            counts[root] = counts.get(root, 0) + 1

    # Queries.

    def ops_named(self, name: str) -> list[Operation]:
        """The ops named `name`, in module order (pre-order, as `walk`)."""
        found = self.ops_by_name.get(name)
        if found is None:
            found = self.ops_by_name[name] = (
                [op for op in self.module.walk() if op.name == name]
                if name in self.op_names
                else []
            )
        return found

    def multi_block_regions(self) -> list[Region]:
        """The module's regions of several blocks, innermost first (the
        reverse of module order: a region's nested ones come after it)."""
        return self.multi_block[::-1]

    def holding(self, names: Iterable[str]) -> set[str]:
        """The functions whose bodies hold an op of one of `names`."""
        wanted = set(names)
        return {f for f, held in self.holds.items() if not held.isdisjoint(wanted)}

    @cached_property
    def callers(self) -> dict[str, set[str]]:
        """Function -> its direct callers (and INDIRECT's, the indirect ones)."""
        found: dict[str, set[str]] = {}
        for caller, targets in self.callees.items():
            for callee in targets:
                found.setdefault(callee, set()).add(caller)
        return found

    def reaching(self, own: Iterable[str]) -> set[str]:
        """`own` and every function from which one of them is reachable,
        through indirect calls too (a `call_indirect` may reach any function
        whose address is taken); INDIRECT is in it when an address-taken
        function reaches one."""
        result = set(own)
        work = list(result)
        callers = self.callers
        while work:
            for caller in callers.get(work.pop(), ()):
                if caller not in result:
                    result.add(caller)
                    work.append(caller)
        return result

    def reaching_directly(self, own: Iterable[str]) -> set[str]:
        """`own` and their callers through direct calls, but for functions
        whose address is taken (and the callers only those make reach it):
        what can pass a hidden argument (an error record) along its calls."""
        result = set(own) - self.address_taken
        work = list(result)
        callers = self.callers
        while work:
            for caller in callers.get(work.pop(), ()):
                if caller not in result and caller not in self.address_taken:
                    if caller != INDIRECT:
                        result.add(caller)
                        work.append(caller)
        return result

    def reachable_from(self, start: str) -> list[str]:
        """`start` and what it calls, transitively, breadth first (sorted
        within a level, so the order does not depend on set order)."""
        seen = {start}
        order = [start]
        for name in order:
            for callee in sorted(self.callees.get(name, ())):
                if callee not in seen:
                    seen.add(callee)
                    order.append(callee)
        return order

    def cycle(self) -> list[str] | None:
        """A cycle of direct calls (recursion), if the module has one."""
        color: dict[str, int] = {}
        for root in sorted(self.funcs):
            if color.get(root):
                continue
            path = [root]
            stack = [(root, sorted(self.callees.get(root, ())))]
            color[root] = 1
            while stack:
                name, pending = stack[-1]
                if not pending:
                    stack.pop()
                    path.pop()
                    color[name] = 2
                    continue
                nxt = pending.pop(0)
                if nxt == INDIRECT or nxt not in self.funcs:
                    continue
                if color.get(nxt) == 1:
                    return [*path[path.index(nxt) :], nxt]
                if not color.get(nxt):
                    color[nxt] = 1
                    path.append(nxt)
                    stack.append((nxt, sorted(self.callees.get(nxt, ()))))
        return None

    def signature(self) -> tuple[object, ...]:
        """What the graph says, comparable between two graphs of a module."""
        return (
            list(self.funcs.items()),
            sorted((k, sorted(v)) for k, v in self.callees.items()),
            sorted((k, sorted(v)) for k, v in self.holds.items()),
            sorted(self.op_names),
            [(id(k), [id(c) for c in v]) for k, v in self.sites.items()],
            sorted(id(op) for op in self.referenced),
            [id(region) for region in self.multi_block],
            sorted((k, n) for k, n in self.ref_counts.items() if n),
            [(k, [id(op) for op in self.ops_by_name[k]]) for k in sorted(COLLECTED)],
            sorted(self.address_taken),
            sorted(self.indirect_callers),
            sorted(self.state_own),
            sorted((k, [id(a) for a in v]) for k, v in self.shared_allocs.items()),
        )


_KEPT = "_gpuc_call_graph"
"""The Python attribute of a module object that holds its graph. Not a
weak-keyed table: the graph refers to the module's ops, and through their
parents to the module, so a table's value would keep its key (and every
module ever asked about) alive for good. On the module, graph and module are
one cycle, freed together."""


def _kept(module: ModuleOp) -> CallGraph | None:
    graph = module.__dict__.get(_KEPT)
    return graph if isinstance(graph, CallGraph) else None


computed = 0
"""How many graphs were computed (walks of a whole module), for tests."""


def call_graph(module: ModuleOp) -> CallGraph:
    """The call graph of `module` in its current state: computed on the first
    query after the module changed (`invalidate_call_graph`), else kept."""
    global computed
    graph = _kept(module)
    if graph is not None:
        if os.environ.get("GPUC_CHECK_ANALYSES") == "1":
            _check_fresh(graph)
        return graph
    computed += 1
    graph = CallGraph(module)
    module.__dict__[_KEPT] = graph
    return graph


def invalidate_call_graph(module: ModuleOp) -> None:
    """Forget `module`'s graph: its calls or functions changed."""
    module.__dict__.pop(_KEPT, None)


def forget_derived(graph: CallGraph) -> None:
    """Drop what was derived from `graph` and kept on it (`callers`, the
    module facts of gpuc/dialects/analysis.py): its update changed it."""
    for key in [k for k in graph.__dict__ if k == "callers" or k.startswith("_gpuc")]:
        del graph.__dict__[key]


def note_references(
    module: ModuleOp, names: Iterable[str], replaced: Iterable[str] = ()
) -> None:
    """`module` now references its symbols `names` from an attribute of its
    own (as the entrypoint set does), which referenced `replaced` before
    (each of them among `names`): its graph, if one is kept, records that as
    a fresh walk would (adding references is all such a change does to the
    graph)."""
    graph = _kept(module)
    if graph is not None:
        symbols = graph.tables[module]
        names = list(names)
        graph.referenced.update(
            target for name in names if (target := symbols.get(name)) is not None
        )
        counts = graph.ref_counts
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        for name in replaced:
            counts[name] -= 1


def pass_ran(ran: object, module: ModuleOp) -> None:
    """What a pass runner calls after each pass: the graph is forgotten unless
    the pass declares `preserves_call_graph` (passes from elsewhere, which
    know nothing of it, never do)."""
    if not getattr(ran, "preserves_call_graph", False):
        invalidate_call_graph(module)


def _check_fresh(graph: CallGraph) -> None:
    fresh = CallGraph(graph.module)
    if fresh.signature() != graph.signature():
        raise AssertionError(
            "the call graph is stale: a pass changed calls or functions without "
            "invalidate_call_graph (or without leaving preserves_call_graph "
            "False)"
        )
