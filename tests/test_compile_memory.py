"""What a compile leaves for Python's cycle collector: the translated llvmlite
module is freed by reference counting once printed (not left as cyclic
garbage to traverse after the compile), and repeated compiles in one process
(the compile server's) do not grow the number of live objects. Counted in
objects the collector tracks, never timed."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from llvmlite import ir

from gpuc.driver import collector_paused, make_options, run

ROOT = Path(__file__).resolve().parent.parent
MATMUL = (ROOT / "examples" / "matmul.mlir").read_text()
STENCIL = (ROOT / "examples" / "stencil2d.mlir").read_text()


def llvmlite_values() -> int:
    """llvmlite.ir modules, functions, blocks and instructions tracked now,
    garbage not yet collected included."""
    kinds = (ir.Module, ir.Function, ir.Block, ir.Instruction)
    return sum(1 for o in gc.get_objects() if isinstance(o, kinds))


@pytest.mark.parametrize("target", ["ptx", "spirv", "native", "amdgpu"])
@pytest.mark.parametrize("source", [MATMUL, STENCIL], ids=["barriers", "rows"])
def test_the_translated_module_is_freed_without_the_cycle_collector(
    target: str, source: str
) -> None:
    # stencil2d has no barrier: on native its threads run by rows, with the
    # loop over x split at its edges (gpuc/targets/native/thread_loops.py).
    gc.collect()
    with collector_paused():
        before = llvmlite_values()
        c = run(source, make_options(target, {"line_info": True}), stop_after="link")
        assert c.translated is not None and "define" in c.translated
        assert llvmlite_values() == before


def test_repeated_compiles_do_not_grow_the_live_objects() -> None:
    options = make_options("ptx", {"line_info": True})
    counts: list[int] = []
    for _ in range(4):
        run(MATMUL, options, stop_after="emit")
        gc.collect()
        counts.append(len(gc.get_objects()))
    # The first compile fills first-use caches; a leak of the module grows
    # the count by hundreds of objects each time.
    assert counts[3] - counts[1] < 50, counts
