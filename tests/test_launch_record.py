"""What the launch knows of a kernel (`KernelInfo`) comes from its
finalization record alone: a record edited by hand is what `kernel_infos`
reports and what the launch does (the asserts it reports), and the driver
asks none of the analyses that made the record."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from test_native_assert import ASSERTING
from xdsl.dialects.builtin import ModuleOp

import gpuc
from gpuc.dialects.attrs import FINALIZED_ATTR, FinalizedAttr
from gpuc.dialects.functions import FuncOp
from gpuc.driver import kernel_infos, make_options, run
from gpuc.runtime.args import LaunchError

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "examples" / "saxpy.mlir"

ANALYSES = {
    "call_graph",
    "CallGraph",
    "module_facts",
    "kernel_facts",
    "KernelFacts",
    "functions_reaching",
    "asserting_functions",
    "reaching_directly",
    "finalize_kernel",
    "known_block_size",
    "assert_table",
    "module_asserts",
    "failure_printing",
    "plan_printing",
}
"""What decides a kernel's facts (gpuc/dialects/call_graph.py, analysis.py,
asserts.py, Target.finalize_kernel): finalize-kernels asks them, the launch
never does."""


def finalized_saxpy() -> tuple[ModuleOp, FuncOp]:
    c = run(str(SAXPY), make_options("native", {}), stop_after="dialect")
    assert c.module is not None
    kernel = next(op for op in c.module.ops if isinstance(op, FuncOp))
    assert isinstance(kernel.attributes[FINALIZED_ATTR], FinalizedAttr)
    return c.module, kernel


def test_a_record_edited_by_hand_is_what_the_launch_reads() -> None:
    module, kernel = finalized_saxpy()
    before = kernel_infos(module)["saxpy"]
    assert not before.uses_barrier and not before.prints
    assert before.block_size is None and before.static_shared_bytes == 0
    # Facts the kernel's body does not have: only the record says them.
    kernel.attributes[FINALIZED_ATTR] = FinalizedAttr(
        "saxpy_by_hand",
        barrier=True,
        shared=256,
        block=(64, 1, 1),
        prints=True,
        fragments=True,
    )
    after = kernel_infos(module)["saxpy"]
    assert after.symbol == "saxpy_by_hand"
    assert after.uses_barrier and after.prints and after.uses_fragments
    assert after.static_shared_bytes == 256 and after.block_size == (64, 1, 1)
    assert after.params == before.params and after.param_names == before.param_names
    del kernel.attributes[FINALIZED_ATTR]
    assert "saxpy" not in kernel_infos(module)


def test_the_asserts_a_launch_reports_are_the_records(tmp_path: Path) -> None:
    """On spirv (Intel's OpenCL CPU runtime) the kernel's record lists the
    asserts it reports; the launch raises the record's message for the id
    the error record names, and a record that lists no such id makes the
    launch say the error record was overwritten."""
    pytest.importorskip("pyopencl")
    from gpuc.api import signature
    from gpuc.runtime.opencl import OpenCLExecutor

    path = tmp_path / "ids.mlir"
    path.write_text(ASSERTING)
    m = gpuc.compile(str(path), target="spirv", cache=False)
    kernel = next(op for op in m.result.module.ops if isinstance(op, FuncOp))
    record = kernel.attributes[FINALIZED_ATTR]
    assert isinstance(record, FinalizedAttr)
    message = f"{path}:5:3: assertion failed: the id is below the limit"
    assert record.assert_messages == ((1, message),)
    assert kernel_infos(m.result.module)["ids"].asserts == ((1, message),)

    def launch_with(edited: FinalizedAttr) -> str:
        kernel.attributes[FINALIZED_ATTR] = edited
        infos = kernel_infos(m.result.module)
        ex = OpenCLExecutor(m.artefact, {k: signature(i) for k, i in infos.items()})
        out = np.full(128, -1, np.int32)
        ex.launch("ids", (2,), (64,), (out, np.int32(1 << 30)))  # passes
        assert np.array_equal(out, np.arange(128, dtype=np.int32))
        with pytest.raises(LaunchError) as info:
            ex.launch("ids", (2,), (64,), (out, np.int32(70)))
        return str(info.value)

    by_hand = FinalizedAttr(
        "ids", cconv="spir_kernel", errors={1: "the record's own words"}, prints=True
    )
    assert ": the record's own words; the failing thread" in launch_with(by_hand)
    elsewhere = FinalizedAttr(
        "ids", cconv="spir_kernel", errors={2: "another assert"}, prints=True
    )
    assert "names assert 1, which the kernel cannot report (its asserts: [2])" in (
        launch_with(elsewhere)
    )


def test_the_reported_asserts_travel_with_the_signature(tmp_path: Path) -> None:
    """The record's `errors` reach `KernelSignature.asserts` and survive its
    JSON form (`KernelSignature.to_json`)."""
    from gpuc.api import signature
    from gpuc.runtime.args import KernelSignature

    path = tmp_path / "ids.mlir"
    path.write_text(ASSERTING)
    c = run(str(path), make_options("spirv", {}), stop_after="dialect")
    assert c.module is not None
    sig = signature(kernel_infos(c.module)["ids"])
    assert sig.asserts == (
        (1, f"{path}:5:3: assertion failed: the id is below the limit"),
    )
    assert KernelSignature.from_json(sig.to_json()) == sig


def names_in(node: ast.AST) -> set[str]:
    """Every name `node` references or imports."""
    found: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            found.add(inner.attr)
        elif isinstance(inner, ast.ImportFrom):
            found.update(alias.name for alias in inner.names)
    return found


def test_the_driver_asks_no_analysis_for_a_kernel_fact() -> None:
    """kernel_infos reads records, the asserts a kernel reports included,
    and nothing in the driver decides a kernel fact again."""
    tree = ast.parse((ROOT / "gpuc" / "driver.py").read_text())
    assert not names_in(tree) & ANALYSES
    infos = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "kernel_infos"
    )
    imported = {
        (node.module, alias.name)
        for node in ast.walk(infos)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= {
        ("gpuc.kernel_params", "memref_shapes"),
        ("gpuc.kernel_params", "read_only_params"),
        ("gpuc.kernel_params", "summed_params"),
    }
