"""The explain record: what the passes decided about each symbol, written by
the passes themselves while they run.

A `Recorder` is active only inside `recording(recorder)` (a context
variable); every hook in a pass starts with `recorder = active_recorder()`
and does nothing more when it is None, so a compile that is not explained
pays one context-variable read per pass. The record holds facts, not prose:
`gpuc.explain.report` turns it, the final module and the artefact into
explanations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Operation

from gpuc.diagnostics import source_loc
from gpuc.dialects.functions import CallOp, FuncAddrOp, FuncOp, LaunchOp
from gpuc.dialects.symbols import symbol_name
from gpuc.transforms.symbol_uses import held_refs

REFERENCE_KINDS: dict[type[Operation], str] = {
    CallOp: "called",
    FuncAddrOp: "address taken",
    LaunchOp: "launched",
}
"""How an op refers to the symbol it names, in the explanation's words."""


@dataclass(frozen=True)
class Request:
    """A deferred op that asked for a job, and what it got."""

    op: str
    """`gpuc.deferred_call`, `gpuc.deferred_addr` or `gpuc.deferred_launch`."""
    location: str | None
    requester: str | None
    """The function holding the deferred op."""
    job: str
    """The job, `@source #gpuc.job<...>`."""
    symbol: str
    """The symbol the job table answered."""
    deduplicated: bool
    """The job was already materialized: the job table answered this request."""


@dataclass(frozen=True)
class Origin:
    """Where a function came from."""

    kind: str
    """`module`, `library`, `generator` or `linked` (a library symbol copied
    along with a job that references it)."""
    library: str | None = None
    generator: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None
    """The job's source symbol (for a materialized job)."""
    job: str | None = None
    """The job's configuration, `#gpuc.job<...>`."""
    replaced_declaration: bool = False
    """A linked definition that replaced the module's declaration."""


@dataclass
class SymbolRecord:
    """Everything the passes recorded about one symbol."""

    name: str
    origin: Origin
    role: str | None
    """`kernel` or `helper` as first seen (None: not a gpuc.func)."""
    declaration: bool
    location: str | None
    visibility: str
    """As first seen."""
    hint: str | None = None
    hint_from: str | None = None
    """Who set the inline hint: `job` (its `#gpuc.job<...>`) or `function`."""
    requests: list[Request] = field(default_factory=list)
    entrypoint: str | None = None
    """Why classify-entrypoints put it in the set: `kernel`, `export` or
    `earlier` (an entrypoint set already on the module)."""
    visibility_changes: list[tuple[str, str, str]] = field(default_factory=list)
    """(stage, from, to)."""
    inlined_into: dict[str, int] = field(default_factory=dict)
    """Caller -> how many of its calls were inlined."""
    single_call_site: bool = False
    """Inlined as a helper called once (`inline{single-use=true}`), not for
    an always_inline hint."""
    referenced_by: dict[str, str] = field(default_factory=dict)
    """Live referrer -> how it refers (`called`, ...), as symbol-dce found it."""
    removed: tuple[str, str] | None = None
    """(stage, why)."""


def _location(op: Operation) -> str | None:
    """`op`'s own location: an op a generator made has none."""
    loc = source_loc(op)
    return str(loc) if loc is not None else None


def qualified_name(op: Operation) -> str | None:
    """`@outer::@inner` spelled `outer::inner`; top-level symbols by their name."""
    name = symbol_name(op)
    if name is None:
        return None
    parts = [name]
    parent = op.parent_op()
    while parent is not None and parent.parent_op() is not None:
        outer = symbol_name(parent)
        if outer is not None:
            parts.append(outer)
        parent = parent.parent_op()
    return "::".join(reversed(parts))


def _enclosing_symbol(op: Operation) -> str | None:
    current: Operation | None = op
    while current is not None:
        if symbol_name(current) is not None and current.parent_op() is not None:
            return qualified_name(current)
        current = current.parent_op()
    return None


def _params(params: Mapping[str, Attribute]) -> dict[str, str]:
    return {key: str(value) for key, value in sorted(params.items())}


class Recorder:
    """The record of one compile, filled in by the passes' hooks."""

    def __init__(self) -> None:
        self.symbols: dict[str, SymbolRecord] = {}
        """Every function met, in the order met (input first)."""
        self._reference_kinds: dict[Operation, dict[str, str]] = {}

    def _add(self, op: Operation, origin: Origin) -> SymbolRecord:
        name = qualified_name(op)
        assert name is not None
        func = op if isinstance(op, FuncOp) else None
        record = SymbolRecord(
            name,
            origin,
            func.role.data.value if func is not None else None,
            func.is_declaration if func is not None else False,
            _location(op),
            func.visibility if func is not None else "public",
            func.inline_hint.value if func and func.inline_hint else None,
            "function" if func is not None and func.inline_hint else None,
        )
        self.symbols[name] = record
        return record

    # resolve-deferred

    def input_module(self, module: Operation) -> None:
        """The functions the module brings, before any job is materialized."""
        for op in module.walk():
            if isinstance(op, FuncOp) and qualified_name(op) not in self.symbols:
                self._add(op, Origin("module"))

    def request(self, op: Operation, job: str, symbol: str, deduplicated: bool) -> None:
        record = self._symbol_in(op, symbol)
        if record is not None:
            record.requests.append(
                Request(
                    op.name,
                    _location(op),
                    _enclosing_symbol(op),
                    job,
                    record.name,
                    deduplicated,
                )
            )

    def _symbol_in(self, op: Operation, symbol: str) -> SymbolRecord | None:
        scope = _enclosing_symbol(op)
        prefix = scope.rsplit("::", 1)[0] + "::" if scope and "::" in scope else ""
        return self.symbols.get(prefix + symbol)

    def materialized(
        self,
        func: FuncOp,
        source: str,
        job: Attribute,
        generator: str | None,
        params: Mapping[str, Attribute],
        library: str | None,
        hint_from_job: bool,
    ) -> None:
        kind = "generator" if generator else "library" if library else "module"
        origin = Origin(kind, library, generator, _params(params), source, str(job))
        record = self._add(func, origin)
        if hint_from_job:
            record.hint_from = "job"

    def linked(self, op: Operation, library: str, replaced: bool) -> None:
        if isinstance(op, FuncOp):
            self._add(op, Origin("linked", library, replaced_declaration=replaced))

    # classify-entrypoints, privatize

    def entrypoint(self, name: str, why: str) -> None:
        if (record := self.symbols.get(name)) is not None:
            record.entrypoint = why

    def visibility_changed(self, name: str, stage: str, old: str, new: str) -> None:
        if (record := self.symbols.get(name)) is not None and old != new:
            record.visibility_changes.append((stage, old, new))

    # inline, symbol-dce

    def inlined(
        self, callee: Operation, caller: Operation, single_call_site: bool = False
    ) -> None:
        record = self.symbols.get(qualified_name(callee) or "")
        into = qualified_name(caller)
        if record is not None and into is not None:
            record.inlined_into[into] = record.inlined_into.get(into, 0) + 1
            record.single_call_site = single_call_site

    def removed(self, op: Operation, stage: str, why: str) -> None:
        record = self.symbols.get(qualified_name(op) or "")
        if record is not None and record.removed is None:
            record.removed = (stage, why)

    def referenced(self, symbol: Operation, referrer: Operation) -> None:
        """`referrer` (live) holds a reference to `symbol`, which it makes live."""
        record = self.symbols.get(qualified_name(symbol) or "")
        name = symbol_name(symbol)
        if record is None or name is None:
            return
        who = qualified_name(referrer) or f"'{referrer.name}'"
        kinds = self._reference_kinds.get(referrer)
        if kinds is None:
            kinds = self._reference_kinds[referrer] = _reference_kinds(referrer)
        record.referenced_by.setdefault(who, kinds.get(name, "referenced"))


def _reference_kinds(op: Operation) -> dict[str, str]:
    """How `op` and the ops in it refer to each symbol they name (the first
    call, address or launch op naming it decides)."""
    kinds: dict[str, str] = {}
    for nested in op.walk():
        kind = REFERENCE_KINDS.get(type(nested))
        if kind is not None:
            for ref in held_refs(nested):
                kinds.setdefault(ref.root_reference.data, kind)
    return kinds


_ACTIVE: ContextVar[Recorder | None] = ContextVar("gpuc_explain", default=None)


def active_recorder() -> Recorder | None:
    """The recorder of the compile being explained, None when none is."""
    return _ACTIVE.get()


@contextmanager
def recording(recorder: Recorder | None) -> Iterator[Recorder | None]:
    """Make `recorder` the one the passes write to, for the `with` block."""
    token = _ACTIVE.set(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.reset(token)
