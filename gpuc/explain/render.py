"""Explanations as text (`gpuc explain`'s default) and as a Graphviz graph of
the jobs (`--format dot`): sources, jobs, entrypoints, inlining, what was
removed. JSON is `Explanation.to_json` (docs/explain.md has its schema).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuc.explain.report import RequestInfo, SymbolExplanation


def _request(r: RequestInfo) -> str:
    where = f" in @{r.requester}" if r.requester else ""
    at = f" at {r.location}" if r.location else " (no location)"
    return f"{r.op}{where}{at}"


def _lines(e: SymbolExplanation) -> list[tuple[str, str]]:
    lines = [("origin", str(e.origin["text"]))]
    for r in e.requests:
        if r.deduplicated:
            lines.append(("deduplicated", f"{_request(r)} (the job table's answer)"))
        else:
            lines.append(("requested by", _request(r)))
    if e.job_source_of:
        lines.append(("job source of", ", ".join(f"@{n}" for n in e.job_source_of)))
    if e.visibility_why:
        lines.append(("visibility", e.visibility_why))
    if e.inlined_into:
        calls = ", ".join(
            f"@{caller} ({n} call{'s' if n > 1 else ''})"
            for caller, n in e.inlined_into.items()
        )
        lines.append(("inlined", f"into {calls}: {e.inline_why}"))
    if e.status == "removed":
        lines.append(("removed", f"by {e.removed_by}: {e.why}"))
    else:
        lines.append(("kept", e.why))
    artefact = e.artefact.text if e.artefact is not None else e.artefact_note
    if artefact:
        lines.append(("artefact", artefact))
    return lines


def render_text(explanations: Sequence[SymbolExplanation]) -> str:
    blocks: list[str] = []
    for e in explanations:
        body = "".join(f"  {key}: {value}\n" for key, value in _lines(e))
        blocks.append(f"@{e.name}: {e.summary}\n{body}")
    return "\n".join(blocks)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _attrs(**attrs: str) -> str:
    return ", ".join(f"{key}={_quote(value)}" for key, value in attrs.items())


def render_dot(explanations: Sequence[SymbolExplanation]) -> str:
    """A `digraph`: a box per symbol (double border: entrypoint; dashed and
    grey: removed), a node per generator and library, and edges for job
    sources, deferred requests, inlining and the references that kept a
    symbol."""
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []

    def edge(src: str, dst: str, **attrs: str) -> None:
        edges.append((src, dst, _attrs(**attrs)))

    for e in explanations:
        node = f"@{e.name}"
        style: dict[str, str] = {"label": f"{node}\n{e.summary}"}
        if e.entrypoint is not None:
            style.update(peripheries="2", style="bold")
        elif e.status == "removed":
            style.update(style="dashed", color="gray50", fontcolor="gray50")
        nodes[node] = _attrs(**style)
        origin = e.origin
        if origin.get("generator"):
            source = f"generator {origin['generator']}"
            nodes.setdefault(source, _attrs(shape="component"))
            edge(source, node, label="generated")
        elif origin.get("library"):
            source = f"library {origin['library']}"
            nodes.setdefault(source, _attrs(shape="folder"))
            edge(
                source, node, label="linked" if origin["kind"] == "linked" else "copied"
            )
        for job in e.job_source_of:
            edge(node, f"@{job}", label="job source", style="dotted")
        for r in e.requests:
            if r.requester is not None:
                kind = r.op.removeprefix("gpuc.")
                if r.deduplicated:
                    edge(
                        f"@{r.requester}",
                        node,
                        label=f"{kind} (deduplicated)",
                        style="dashed",
                    )
                else:
                    edge(f"@{r.requester}", node, label=kind)
        for caller in e.inlined_into:
            edge(
                node, f"@{caller}", label="inlined into", color="blue", fontcolor="blue"
            )
        for who, how in e.referenced_by.items():
            edge(f"@{who}", node, label=how, color="darkgreen", fontcolor="darkgreen")
    for src, dst, _ in edges:  # symbols left out of a selection
        nodes.setdefault(src, _attrs(shape="ellipse"))
        nodes.setdefault(dst, _attrs(shape="ellipse"))
    lines = [
        "digraph explain {",
        "  rankdir=LR;",
        '  node [shape=box, fontname="monospace"];',
    ]
    lines += [f"  {_quote(name)} [{attrs}];" for name, attrs in nodes.items()]
    lines += [f"  {_quote(s)} -> {_quote(d)} [{attrs}];" for s, d, attrs in edges]
    return "\n".join([*lines, "}"]) + "\n"
