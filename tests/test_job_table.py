"""The job table on its own: deduplication of (source, configuration) and the
names of materialized symbols; then what resolve-deferred records in it."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerAttr, StringAttr, UnitAttr, i1, i32
from xdsl.parser import Parser

from gpuc.context import make_context
from gpuc.dialects.attrs import InlineHint, JobAttr, Role
from gpuc.dialects.functions import FuncOp
from gpuc.transforms.job_table import Job, JobTable, job_base_name, unique_name
from gpuc.transforms.resolve_deferred import resolve_deferred


def test_equal_jobs_are_one_entry() -> None:
    table = JobTable()
    job = Job("f", JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE))
    assert table.lookup(job) is None
    table.record(job, "f.helper.always_inline")
    same = Job("f", JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE))
    assert table.lookup(same) == "f.helper.always_inline"
    assert len(table) == 1


@pytest.mark.parametrize(
    "other",
    [
        Job("g", JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE)),
        Job("f", JobAttr(Role.HELPER)),
        Job("f", JobAttr(Role.KERNEL, InlineHint.ALWAYS_INLINE)),
        Job("f", JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE, "gen")),
        Job(
            "f",
            JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE, "gen", {"n": UnitAttr()}),
        ),
    ],
)
def test_another_source_or_configuration_is_another_job(other: Job) -> None:
    table = JobTable()
    table.record(Job("f", JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE)), "a")
    assert table.lookup(other) is None
    table.record(other, "b")
    assert [symbol for _, symbol in table] == ["a", "b"]


def test_recording_a_job_twice_is_a_bug() -> None:
    table = JobTable()
    job = Job("f", JobAttr(Role.HELPER))
    table.record(job, "f.helper")
    with pytest.raises(ValueError, match="already materialized"):
        table.record(job, "f.helper.1")


@pytest.mark.parametrize(
    ("config", "name"),
    [
        (JobAttr(Role.HELPER), "src.helper"),
        (JobAttr(Role.KERNEL), "src.kernel"),
        (JobAttr(Role.HELPER, InlineHint.NO_INLINE), "src.helper.no_inline"),
        (
            JobAttr(
                Role.HELPER,
                None,
                "mock_autodiff",
                {"always_inline": IntegerAttr(-1, i1)},
            ),
            "src.helper.mock_autodiff.always_inline",
        ),
        (
            JobAttr(
                Role.HELPER, None, "g", {"off": IntegerAttr(0, i1), "on": UnitAttr()}
            ),
            "src.helper.g.on",
        ),
        (
            JobAttr(
                Role.HELPER,
                InlineHint.ALWAYS_INLINE,
                "g",
                {
                    "depth": IntegerAttr(-2, i32),
                    "mode": StringAttr("fwd"),
                    "note": StringAttr("not a word"),
                },
            ),
            "src.helper.always_inline.g.depth_m2.mode_fwd",
        ),
    ],
)
def test_job_names_are_readable_mlir_identifiers(config: JobAttr, name: str) -> None:
    assert job_base_name(Job("src", config)) == name
    # The name must parse back as a bare symbol name.
    text = f"gpuc.func private @{name}() helper {{\n  gpuc.return\n}}"
    module = Parser(make_context(), text).parse_module()
    func = next(iter(module.ops))
    assert isinstance(func, FuncOp) and func.sym_name.data == name


def test_unique_name_counts_up_from_one() -> None:
    taken = {"f.helper", "f.helper.1"}
    assert unique_name("g.helper", taken.__contains__) == "g.helper"
    assert unique_name("f.helper", taken.__contains__) == "f.helper.2"


TWO_KERNELS = """
gpuc.func @k1(%x: f32) kernel {
  %a = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @h(%x) #gpuc.job<helper, always_inline> : (f32) -> f32
  gpuc.return
}
gpuc.func @k2(%x: f32) kernel {
  %a = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func @a(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @b(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func @b(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32
  %z = gpuc.deferred_call @b(%y) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %z : f32
}
"""


def test_resolution_records_each_job_once() -> None:
    module = Parser(make_context(), TWO_KERNELS).parse_module()
    tables = resolve_deferred(module)
    assert list(tables) == [module]
    recorded = {(job.source, str(job.config)): symbol for job, symbol in tables[module]}
    assert recorded == {
        ("h", "#gpuc.job<helper>"): "h.helper",
        ("h", "#gpuc.job<helper, always_inline>"): "h.helper.always_inline",
        ("a", "#gpuc.job<helper>"): "a.helper",
        ("b", "#gpuc.job<helper>"): "b.helper",
    }
    names = [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]
    assert sorted(n for n in names if "." in n) == sorted(recorded.values())
    module.verify()
