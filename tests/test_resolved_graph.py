"""resolve-deferred keeps the call graph true when it only moves job sources
and rewrites deferred calls (gpuc/transforms/resolved_graph.py): the graph it
asked for before resolution is the one classify-entrypoints and inline get,
updated, never a stale one (GPUC_CHECK_ANALYSES=1 compares each answer with
a fresh walk); when resolution copies a function, the graph is walked again."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

from gpuc.context import make_context
from gpuc.dialects import call_graph as graphs
from gpuc.dialects.call_graph import call_graph
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.walk import preorder
from gpuc.driver import CompileOptions, load_module, run
from gpuc.transforms.classify_entrypoints import ClassifyEntrypoints
from gpuc.transforms.gpuc_pipeline import run_passes
from gpuc.transforms.resolve_deferred import ResolveDeferred
from gpuc.transforms.symbol_uses import referenced_names

KERNEL = """
gpuc.func @k{i}(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {{
  %a = gpuc.call @plain{i}(%x) : (f32) -> f32
  %b = gpuc.deferred_call @job{i}(%a) #gpuc.job<helper> : (f32) -> f32
  %c = gpuc.call @plain{i}(%b) : (f32) -> f32
  %d = gpuc.deferred_call @{twice}(%c) #gpuc.job<helper, always_inline> : (f32) -> f32
  gpuc.store %d, %p : !gpuc.ptr<f32, global>
  gpuc.return
}}
gpuc.func private @plain{i}(%x: f32) -> f32 helper {{
  gpuc.return %x : f32
}}
gpuc.func private @job{i}(%x: f32) -> f32 helper {{
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}}
gpuc.func private @inl{i}(%x: f32) -> f32 helper {{
  %y = arith.addf %x, %x : f32
  gpuc.return %y : f32
}}
"""


def module(twice: bool = False) -> ModuleOp:
    """Two kernels, each deferring to two sources of its own (moved into
    their jobs), or (`twice`) both to the first kernel's second source, which
    is then copied."""
    return load_module(
        "".join(
            KERNEL.format(i=i, twice="inl0" if twice else f"inl{i}") for i in (0, 1)
        )
    )


def resolve_and_classify(m: ModuleOp) -> int:
    """Run resolution and classification; how many graphs were walked."""
    before = graphs.computed
    passes = [ResolveDeferred(move_sources=True), ClassifyEntrypoints()]
    run_passes(make_context(), m, passes)
    call_graph(m)  # inline's question, checked against a fresh walk
    return graphs.computed - before


def test_moved_sources_keep_the_graph_resolution_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GPUC_CHECK_ANALYSES", "1")
    m = module()
    assert resolve_and_classify(m) == 1
    graph = call_graph(m)
    assert graph.callees["k0"] == {"plain0", "job0.helper", "inl0.helper.always_inline"}
    assert list(graph.funcs)[-4:] == [
        "job0.helper",
        "inl0.helper.always_inline",
        "job1.helper",
        "inl1.helper.always_inline",
    ]
    k0 = graph.funcs["k0"]
    assert [c.callee.root_reference.data for c in graph.sites[k0]] == [
        "plain0",
        "job0.helper",
        "plain0",
        "inl0.helper.always_inline",
    ]
    assert "gpuc.deferred_call" not in graph.op_names


def test_a_copied_source_walks_the_graph_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GPUC_CHECK_ANALYSES", "1")
    m = module(twice=True)
    assert resolve_and_classify(m) == 2
    assert call_graph(m).callees["k1"] == {
        "plain1",
        "job1.helper",
        "inl0.helper.always_inline",
    }


KERNEL_HEADER = "gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel"

ONE_JOB = """ {
  %b = gpuc.deferred_call @job(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.store %b, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @job(%x: f32) -> f32 helper {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}
"""
"""The rest of a kernel deferring to `@job`, after its header, and `@job`."""

NESTED = KERNEL_HEADER + ONE_JOB + "builtin.module attributes {note = @job} {\n}\n"


@pytest.mark.parametrize("text", ["twice", "once", "nested"])
def test_the_graph_counts_references_as_referenced_names(text: str) -> None:
    """Each reference counted once, a nested table's own attribute's too."""
    m = load_module(NESTED) if text == "nested" else module(text == "twice")
    counts = {k: n for k, n in call_graph(m).ref_counts.items() if n}
    assert counts == dict(referenced_names(preorder(m)))


DANGLING = KERNEL_HEADER + "\n    attributes {note = @job.helper}" + ONE_JOB


def test_a_move_onto_a_name_already_referenced_walks_the_graph_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`@job`'s job is named `@job.helper`, which the kernel's attribute
    already names: once moved, the function is referenced beyond its call,
    so it is no single-use helper, and the graph kept would say otherwise."""
    monkeypatch.setenv("GPUC_CHECK_ANALYSES", "1")
    m = load_module(DANGLING)
    assert resolve_and_classify(m) == 2
    graph = call_graph(m)
    assert graph.funcs["job.helper"] in graph.referenced
    assert graph.ref_counts["job.helper"] == 2
    compiled = run(DANGLING, CompileOptions(target="ptx"), stop_after="dialect")
    assert compiled.module is not None
    names = [f.sym_name.data for f in compiled.module.ops if isinstance(f, FuncOp)]
    assert "job.helper" in names  # kept, as a fresh graph decides
