"""The one call graph (gpuc/dialects/call_graph.py) is never silently stale: a
query after the module's calls changed sees the change when the change came
through a pass (the runner invalidates) or an explicit invalidation, and with
GPUC_CHECK_ANALYSES=1 (the suite's setting) a change made behind its back is
an error, not a wrong answer."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

from gpuc.context import make_context
from gpuc.dialects.call_graph import call_graph, invalidate_call_graph
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.driver import load_module
from gpuc.transforms.gpuc_pipeline import run_passes
from gpuc.transforms.inline import Inline

MODULE = """
gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %r = gpuc.call @f(%x) : (f32) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @f(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @g(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @g(%x: f32) -> f32 helper no_inline {
  gpuc.barrier
  gpuc.return %x : f32
}
"""


def module() -> ModuleOp:
    return load_module(MODULE)


def test_a_pass_that_changes_calls_is_seen_by_the_next_query() -> None:
    m = module()
    first = call_graph(m)
    assert first.callees["k"] == {"f"}
    assert first.reaching(first.holding(["gpuc.barrier"])) >= {"k", "f", "g"}
    run_passes(make_context(), m, [Inline()])
    second = call_graph(m)
    assert second is not first
    assert "f" not in second.funcs  # inlined and dead
    assert second.callees["k"] == {"g"}


def test_an_explicit_invalidation_is_seen_by_the_next_query() -> None:
    m = module()
    assert call_graph(m).callees["g"] == set()
    g = next(op for op in m.ops if isinstance(op, FuncOp) and op.sym_name.data == "g")
    call = next(op for op in m.walk() if isinstance(op, CallOp))  # @k's, of @f
    again = call.clone()
    again.operands = (g.body.block.args[0],)
    g.body.block.insert_op_before(again, g.body.block.first_op)
    invalidate_call_graph(m)
    assert call_graph(m).callees["g"] == {"f"}


def test_a_change_behind_its_back_is_an_error_when_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GPUC_CHECK_ANALYSES", "1")
    m = module()
    call_graph(m)
    f = next(op for op in m.ops if isinstance(op, FuncOp) and op.sym_name.data == "f")
    f.detach()
    with pytest.raises(AssertionError, match="the call graph is stale"):
        call_graph(m)


def test_classify_entrypoints_keeps_the_graph_it_asks_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """classify-entrypoints asks the graph whether a deferred op is left and
    records the references of the set it writes, so the next pass (inline)
    gets that graph, checked against a fresh walk, not a second walk."""
    from gpuc.dialects import call_graph as graphs
    from gpuc.transforms.classify_entrypoints import ClassifyEntrypoints

    monkeypatch.setenv("GPUC_CHECK_ANALYSES", "1")
    m = module()
    run_passes(make_context(), m, [ClassifyEntrypoints(exports=("g",))])
    built = graphs.computed
    graph = call_graph(m)  # checked against a fresh walk: not stale
    assert graphs.computed == built
    names = {op.sym_name.data for op in graph.referenced if isinstance(op, FuncOp)}
    assert names == {"k", "g"}


def test_a_smaller_entrypoint_set_forgets_the_graph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A set written over one with more names drops references: the graph is
    forgotten, not patched."""
    from gpuc.transforms.classify_entrypoints import write_entrypoints

    monkeypatch.setenv("GPUC_CHECK_ANALYSES", "1")
    m = module()
    write_entrypoints(m, ["k", "g"])
    assert referenced_functions(m) == {"k", "g"}
    write_entrypoints(m, ["k"])
    assert referenced_functions(m) == {"k"}


def referenced_functions(m: ModuleOp) -> set[str]:
    graph = call_graph(m)  # checked against a fresh walk
    return {op.sym_name.data for op in graph.referenced if isinstance(op, FuncOp)}
