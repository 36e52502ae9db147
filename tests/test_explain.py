"""`gpuc.explain` from Python: the seed's scenarios (GPUCompiler.jl PR #928)
explained from the record the passes write while they run, checked against
the artefact itself; the record changes nothing about the code; the JSON
keys are the ones docs/explain.md documents; the dot output is a well-formed
graph of the jobs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpuc.compiler import compile_module
from gpuc.context import make_context
from gpuc.driver import load_module
from gpuc.explain import explain
from gpuc.explain.artefact import artefact_symbols, spirv_symbols
from gpuc.explain.record import Recorder, active_recorder, recording
from gpuc.explain.report import UnknownSymbol
from gpuc.transforms.gpuc_pipeline import GpucPipeline, run_passes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
WITH_FLAG = (EXAMPLES / "deferred_inline.mlir").read_text()
WITHOUT_FLAG = WITH_FLAG.replace(" {always_inline = true}", "")
WRAPPER = "poly.helper.mock_autodiff.always_inline"


def test_always_inline_wrapper_is_inlined_then_removed() -> None:
    e = explain(WITH_FLAG, "ptx")
    wrapper = e[WRAPPER]
    assert wrapper.summary == (
        "inlined into @deferred_inline, then removed by inline: no references "
        "left after inlining"
    )
    assert (wrapper.status, wrapper.removed_by) == ("removed", "inline")
    assert wrapper.inlined_into == {"deferred_inline": 1}
    assert wrapper.origin["generator"] == "mock_autodiff"
    assert wrapper.origin["params"] == {"always_inline": "true"}
    assert [r.requester for r in wrapper.requests] == ["deferred_inline"]
    assert wrapper.artefact is None
    # The wrapped source is removed by symbol-dce; the artefact agrees that
    # the kernel is its only function.
    assert e["poly"].removed_by == "symbol-dce"
    assert e.result is not None and isinstance(e.result.artefact, str)
    assert set(artefact_symbols(e.result.artefact) or {}) == {"deferred_inline"}


def test_without_the_flag_the_wrapper_is_a_kept_private_helper() -> None:
    e = explain(WITHOUT_FLAG, "ptx", opt_level=0)
    wrapper = e["poly.helper.mock_autodiff"]
    assert wrapper.summary == "private helper, kept: called by @deferred_inline"
    assert wrapper.referenced_by == {"deferred_inline": "called"}
    assert wrapper.visibility == "private"
    assert wrapper.artefact is not None
    assert (wrapper.artefact.kind, wrapper.artefact.linkage) == (".func", "internal")
    assert e.result is not None and isinstance(e.result.artefact, str)
    assert re.search(
        rf"^\.func .*{re.escape(wrapper.artefact.symbol)}\($",
        e.result.artefact,
        re.M,
    )


def test_child_kernel_is_an_entrypoint_launched_from_its_parent() -> None:
    e = explain(EXAMPLES / "child_launch.mlir", "ptx")
    child = e["@double.kernel"]
    assert child.summary == "entrypoint: kernel job launched from @child_launch"
    assert child.entrypoint_kind == "kernel_job"
    assert [r.op for r in child.requests] == ["gpuc.deferred_launch"]
    assert e.result is not None
    # The artefact symbol is the one the finalization record names, which
    # the executors launch by.
    assert child.artefact is not None
    assert child.artefact.symbol == e.result.kernels["double.kernel"].symbol
    assert child.artefact.text == "PTX .visible .entry double_$_kernel"


@pytest.mark.parametrize("target", ["ptx", "spirv", "native"])
def test_explaining_changes_nothing_in_the_artefact(target: str) -> None:
    assert active_recorder() is None
    explained = explain(WITHOUT_FLAG, target)
    plain = compile_module(WITHOUT_FLAG, target)
    assert explained.result is not None
    assert explained.result.artefact == plain.artefact
    assert explained.result.llvm_ir == plain.llvm_ir


def test_the_passes_write_the_record_as_they_run() -> None:
    """After each pass, the record says what that pass did and no more."""
    module = load_module(WITH_FLAG)
    recorder = Recorder()
    seen: dict[str, tuple[int, tuple[str, str] | None, bool]] = {}

    def after(name: str, _module: object) -> None:
        record = recorder.symbols.get(WRAPPER)
        if record is not None:
            seen[name] = (
                len(record.requests),
                record.removed,
                "deferred_inline" in record.inlined_into,
            )

    with recording(recorder):
        run_passes(make_context(), module, GpucPipeline("ptx").passes(), after)
    assert active_recorder() is None
    assert seen["resolve-deferred"] == (1, None, False)
    assert seen["privatize"] == (1, None, False)
    removed = ("inline", "no references left after inlining")
    assert seen["inline"] == (1, removed, True)
    assert seen["symbol-dce"] == (1, removed, True)
    assert recorder.symbols["poly"].removed == ("symbol-dce", "no references")


def test_unknown_symbols_are_named_with_the_known_ones() -> None:
    e = explain(EXAMPLES / "deferred_helper.mlir", "ptx")
    with pytest.raises(UnknownSymbol, match=r"no symbol @nope .*@deferred_helper"):
        e.select(["nope"])
    with pytest.raises(KeyError):
        e["nope"]


def test_json_keys_are_the_documented_ones() -> None:
    doc = (ROOT / "docs" / "explain.md").read_text()
    e = explain(EXAMPLES / "deferred_helper.mlir", "spirv")
    document = json.loads(e.json())
    assert document["schema"] == "gpuc-explain/1"
    top = set(document)
    symbol_keys = {k for s in document["symbols"] for k in s}
    documented = set(re.findall(r"^\| `([a-z_.]+)` \|", doc, re.M))
    assert top | symbol_keys <= documented
    names = [s["name"] for s in document["symbols"]]
    assert names == ["deferred_helper", "square_plus", "square_plus.helper.no_inline"]


# A statement of the dot subset render_dot writes: a graph attribute, node
# defaults, a node or an edge, each with quoted names and quoted values.
_ID = r'"(?:[^"\\]|\\.)*"'
_ATTRS = rf"\[(?:[a-z]+={_ID}|[a-z]+=[a-z]+)(?:, (?:[a-z]+={_ID}|[a-z]+=[a-z]+))*\]"
_STATEMENT = re.compile(
    rf"^  (?:rankdir=LR|node {_ATTRS}|(?P<node>{_ID}) {_ATTRS}"
    rf"|(?P<src>{_ID}) -> (?P<dst>{_ID}) (?P<eattrs>{_ATTRS}));$"
)


def _parse_dot(text: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    lines = text.splitlines()
    assert lines[0] == "digraph explain {" and lines[-1] == "}"
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    for line in lines[1:-1]:
        m = _STATEMENT.match(line)
        assert m is not None, f"not a dot statement: {line!r}"
        if m["node"]:
            nodes[json.loads(m["node"])] = line
        elif m["src"]:
            edges.append((json.loads(m["src"]), json.loads(m["dst"]), m["eattrs"]))
    return nodes, edges


def test_dot_is_a_graph_of_sources_jobs_inlining_and_removals() -> None:
    nodes, edges = _parse_dot(explain(WITH_FLAG, "ptx").dot())
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes
    labels = {(s, d): a for s, d, a in edges}
    wrapper = f"@{WRAPPER}"
    assert 'label="job source"' in labels[("@poly", wrapper)]
    assert 'label="generated"' in labels[("generator mock_autodiff", wrapper)]
    assert 'label="deferred_call"' in labels[("@deferred_inline", wrapper)]
    assert 'label="inlined into"' in labels[(wrapper, "@deferred_inline")]
    # The wrapped function's job, called once, is inlined too (O1 and above).
    assert 'label="inlined into"' in labels[("@poly.helper", "@deferred_inline")]
    assert 'peripheries="2"' in nodes["@deferred_inline"]
    for removed in (wrapper, "@poly", "@poly.helper"):
        assert 'style="dashed"' in nodes[removed]
    # At O0 it stays, kept by the kernel's call.
    nodes, edges = _parse_dot(explain(WITH_FLAG, "ptx", opt_level=0).dot())
    labels = {(s, d): a for s, d, a in edges}
    assert 'label="called"' in labels[("@deferred_inline", "@poly.helper")]
    assert "style" not in nodes["@poly.helper"]


def test_spirv_reader_finds_every_function_spirv_dis_shows() -> None:
    from gpuc.tools import run_spirv_dis

    source = (ROOT / "tests" / "filecheck" / "explain" / "targets.mlir").read_text()
    binary = compile_module(source, "spirv", exports=["exported"]).artefact
    assert isinstance(binary, bytes)
    found = spirv_symbols(binary)
    text = run_spirv_dis(binary)
    assert len(found) == text.count(" OpFunction ")
    assert found["exported"].linkage == "Export"
    assert 'OpDecorate %exported LinkageAttributes "exported" Export' in text
    assert found["k"].entry_point and 'OpEntryPoint Kernel %k "k"' in text
