"""Explanations: the record the passes wrote (`gpuc.explain.record`), read
together with the compiled module's finalization records and the artefact,
as one `SymbolExplanation` per function of the input and per materialized
job. Every fact comes from the record or the artefact; this module only
words it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from gpuc.dialects.attrs import FINALIZED_ATTR, FinalizedAttr
from gpuc.dialects.symbols import build_table
from gpuc.explain.artefact import ArtefactSymbol, artefact_format, artefact_symbols
from gpuc.explain.record import Recorder, SymbolRecord
from gpuc.transforms.classify_entrypoints import read_entrypoints

if TYPE_CHECKING:
    from gpuc.compiler import CompileResult
    from gpuc.targets.base import Target

SCHEMA = "gpuc-explain/1"

_ENTRYPOINT_REASONS = {
    "export": "explicit export",
    "earlier": "in the entrypoint set already on the module",
}
_REQUEST_WORDS = {
    "gpuc.deferred_launch": "launched from @{}",
    "gpuc.deferred_addr": "whose address @{} takes",
    "gpuc.deferred_call": "called from @{}",
}


class UnknownSymbol(DiagnosticException, KeyError):
    """`explain` was asked about a symbol the compile never met (a KeyError
    too, as a missing key of a mapping is)."""

    def __str__(self) -> str:
        return BaseException.__str__(self)  # KeyError's quotes the message


@dataclass(frozen=True)
class RequestInfo:
    op: str
    location: str | None
    requester: str | None
    job: str
    deduplicated: bool


@dataclass(frozen=True)
class ArtefactInfo:
    symbol: str
    kind: str
    linkage: str
    entry_point: bool
    text: str


@dataclass
class SymbolExplanation:
    """Why one symbol is what it is, as JSON-ready data (docs/explain.md)."""

    name: str
    summary: str
    origin: dict[str, Any]
    role: str | None
    requests: list[RequestInfo] = field(default_factory=list)
    job_source_of: list[str] = field(default_factory=list)
    visibility: str | None = None
    """Final visibility; None once removed."""
    visibility_why: str = ""
    entrypoint: str | None = None
    """Why it is in the entrypoint set, in words; None: it is not."""
    entrypoint_kind: str | None = None
    """`kernel`, `kernel_job`, `export` or `earlier`."""
    inlined_into: dict[str, int] = field(default_factory=dict)
    inline_why: str | None = None
    status: str = "kept"
    """`kept` or `removed`."""
    removed_by: str | None = None
    why: str = ""
    referenced_by: dict[str, str] = field(default_factory=dict)
    artefact: ArtefactInfo | None = None
    artefact_note: str | None = None


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"@{n}" for n in names)


def _origin(record: SymbolRecord) -> tuple[dict[str, Any], str]:
    origin = record.origin
    data: dict[str, Any] = {"kind": origin.kind, "location": record.location}
    if origin.kind == "linked":
        data["library"] = origin.library
        data["replaced_declaration"] = origin.replaced_declaration
        replaced = (
            "; it replaced the module's declaration"
            if origin.replaced_declaration
            else ""
        )
        return (
            data,
            f"linked from library {origin.library} (a job's function "
            f"references it){replaced}",
        )
    if origin.job is None:
        at = f", at {record.location}" if record.location else ""
        return data, f"the module{at}"
    data.update(source=origin.source, job=origin.job)
    job = f"job @{origin.source} {origin.job}"
    if origin.kind == "generator":
        data.update(generator=origin.generator, params=dict(origin.params))
        params = ", ".join(f"{k} = {v}" for k, v in origin.params.items())
        shown = f" ({params})" if params else ""
        return data, f"generator '{origin.generator}'{shown}, for {job}"
    if origin.kind == "library":
        data["library"] = origin.library
        return data, f"{job}: a copy of @{origin.source} from library {origin.library}"
    return data, f"{job}: a copy of @{origin.source} from the module"


def _entrypoint_reason(record: SymbolRecord) -> str | None:
    why = record.entrypoint
    if why is None:
        return None
    if why != "kernel":
        return _ENTRYPOINT_REASONS[why]
    if record.origin.job is None:
        return "kernel of the module"
    asked = [
        _REQUEST_WORDS.get(r.op, "asked for in @{}").format(r.requester)
        for r in record.requests
        if r.requester is not None
    ]
    return "kernel job " + (", ".join(dict.fromkeys(asked)) or "")


def _visibility_why(record: SymbolRecord, entrypoint: str | None) -> str:
    if entrypoint is not None:
        return f"public: in the entrypoint set ({entrypoint})"
    for stage, old, new in record.visibility_changes:
        if new == "private":
            return (
                f"private: made private by {stage} (was {old}; not in the "
                "entrypoint set)"
            )
    if record.declaration:
        return "private: a declaration (defined elsewhere)"
    if record.origin.kind == "linked":
        return "private: linked library symbols are private"
    if record.origin.job is not None:
        return "private: resolve-deferred materializes a helper job private"
    if record.visibility == "private":
        return "private: declared private in the module"
    return record.visibility


def _inline_why(record: SymbolRecord) -> str | None:
    if not record.inlined_into:
        return None
    if record.single_call_site:
        return (
            "its only call site: a private helper called once, inlined at "
            "opt_level >= 1 as LLVM's inliner would"
        )
    if record.hint_from == "job":
        return f"always_inline on the job ({record.origin.job})"
    if record.origin.kind == "generator":
        generator = record.origin.generator
        return f"always_inline on the function, set by generator '{generator}'"
    return "always_inline on the function"


def _references(referenced_by: dict[str, str]) -> str:
    groups: dict[str, list[str]] = {}
    for who, how in referenced_by.items():
        groups.setdefault(how, []).append(who)
    return "; ".join(f"{how} by {_names(who)}" for how, who in groups.items())


class Explanation:
    """Every symbol's explanation for one compile, in the order met."""

    def __init__(
        self,
        target: Target,
        symbols: dict[str, SymbolExplanation],
        entrypoints: list[str],
        artefact_format: str | None = None,
        result: CompileResult | None = None,
    ) -> None:
        self.target = target
        self.symbols = symbols
        self.entrypoints = entrypoints
        """The entrypoint set, as the compiled module records it."""
        self.artefact_format = artefact_format
        """`ptx`, `spirv` or `elf`: how the artefact was read (None: unread)."""
        self.result = result
        """The compile explained (from `gpuc.explain.explain`)."""

    @classmethod
    def build(
        cls,
        recorder: Recorder,
        target: Target,
        module: ModuleOp,
        artefact: bytes | str,
    ) -> Explanation:
        """Word `recorder`'s record of a compile for `target` that produced
        `module` (after the dialect pipeline) and `artefact`."""
        found = artefact_symbols(artefact)
        table = build_table(module)
        explained = {
            name: _explain(record, recorder, target, table.get(name), found)
            for name, record in recorder.symbols.items()
        }
        return cls(
            target, explained, read_entrypoints(module), artefact_format(artefact)
        )

    def __getitem__(self, name: str) -> SymbolExplanation:
        return self.select([name])[0]

    def select(self, names: Iterable[str] = ()) -> list[SymbolExplanation]:
        """The explanations of `names` (`@` optional), or all of them."""
        wanted = [n.removeprefix("@") for n in names]
        unknown = [n for n in wanted if n not in self.symbols]
        if unknown:
            raise UnknownSymbol(
                f"no symbol {_names(unknown)} in this compile; explained symbols: "
                f"{_names(self.symbols)}"
            )
        return [self.symbols[n] for n in wanted or self.symbols]

    def to_json(self, names: Iterable[str] = ()) -> dict[str, Any]:
        """The JSON document `gpuc explain --format json` prints."""
        return {
            "schema": SCHEMA,
            "target": self.target.describe(),
            "artefact_format": self.artefact_format,
            "entrypoints": list(self.entrypoints),
            "symbols": [asdict(s) for s in self.select(names)],
        }

    def text(self, names: Iterable[str] = ()) -> str:
        from gpuc.explain.render import render_text

        return render_text(self.select(names))

    def json(self, names: Iterable[str] = ()) -> str:
        import json

        return json.dumps(self.to_json(names), indent=2) + "\n"

    def dot(self, names: Iterable[str] = ()) -> str:
        from gpuc.explain.render import render_dot

        return render_dot(self.select(names))


def _explain(
    record: SymbolRecord,
    recorder: Recorder,
    target: Target,
    compiled: Operation | None,
    found: dict[str, ArtefactSymbol] | None,
) -> SymbolExplanation:
    origin, origin_text = _origin(record)
    origin["text"] = origin_text
    entrypoint = _entrypoint_reason(record)
    e = SymbolExplanation(record.name, "", origin, record.role, entrypoint=entrypoint)
    if record.entrypoint is not None:
        job = record.entrypoint == "kernel" and record.origin.job is not None
        e.entrypoint_kind = "kernel_job" if job else record.entrypoint
    e.requests = [
        RequestInfo(r.op, r.location, r.requester, r.job, r.deduplicated)
        for r in record.requests
    ]
    e.job_source_of = [
        other.name
        for other in recorder.symbols.values()
        if other.origin.source == record.name and other.origin.job is not None
    ]
    e.inlined_into = dict(record.inlined_into)
    e.inline_why = _inline_why(record)
    e.referenced_by = dict(record.referenced_by)
    inlined = f"inlined into {_names(e.inlined_into)}" if e.inlined_into else ""
    e.visibility_why = _visibility_why(record, entrypoint)
    if record.removed is not None:
        e.status = "removed"
        e.removed_by, e.why = record.removed
        e.artefact_note = f"none: removed by {e.removed_by} before lowering"
        then = f"{inlined}, then " if inlined else ""
        e.summary = f"{then}removed by {e.removed_by}: {e.why}"
        return e
    e.visibility = "public" if entrypoint is not None else "private"
    refs = _references(e.referenced_by)
    if entrypoint is not None:
        e.why = "public: in the entrypoint set"
        e.summary = f"entrypoint: {entrypoint}"
    else:
        e.why = refs or "public"
        what = "declaration" if record.declaration else record.role or "symbol"
        also = f"{inlined}, " if inlined else ""
        e.summary = f"{e.visibility} {what}, {also}kept: {e.why}"
    _artefact(e, record, target, compiled, found)
    return e


def _artefact(
    e: SymbolExplanation,
    record: SymbolRecord,
    target: Target,
    compiled: Operation | None,
    found: dict[str, ArtefactSymbol] | None,
) -> None:
    """What the symbol became, looked up in the artefact under the name its
    finalization record (a kernel's) or the target gives it."""
    if found is None:
        e.artefact_note = "unknown: gpuc cannot read this artefact's symbols"
        return
    if compiled is None:
        e.artefact_note = "none: not a function at the top of the compiled module"
        return
    finalized = compiled.attributes.get(FINALIZED_ATTR)
    if isinstance(finalized, FinalizedAttr):
        symbol = finalized.symbol.data
        entry = " (the target's launch entry)" if finalized.has_launch_entry else ""
    else:
        symbol, entry = target.symbol_name(record.name), ""
    got = found.get(symbol)
    if got is None:
        e.artefact_note = (
            f"none: no function {symbol} in the artefact (LLVM inlined it into "
            "its callers or removed it)"
        )
        return
    e.artefact = ArtefactInfo(
        got.name, got.kind, got.linkage, got.entry_point, got.describe() + entry
    )
