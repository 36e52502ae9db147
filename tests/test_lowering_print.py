"""gpuc's translated functions print as llvmlite prints them
(gpuc.lowering.llvm.Function), on real modules: the examples and the test
kernel files, translated for every target they compile for, every
instruction of every body compared."""

from __future__ import annotations

from pathlib import Path

import pytest
from llvmlite import ir
from xdsl.utils.exceptions import DiagnosticException

from gpuc.driver import make_options, run
from gpuc.lowering.context import translate_module
from gpuc.lowering.llvm import Function

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/*_kernels.mlir")],
    key=lambda p: p.name,
)
TARGETS = ("ptx", "spirv", "native", "amdgpu")
REFUSED = {
    ("child_launch.mlir", "spirv"),
    ("child_launch.mlir", "native"),
    ("child_launch.mlir", "amdgpu"),
    ("vote_fence_kernels.mlir", "amdgpu"),
}
"""The files a target refuses with a diagnostic (a launch from the device is
ptx's only; an i32 ballot mask is too narrow for gfx90a's 64-lane
wavefronts): anything else that fails to compile fails the test."""


def translated(source: Path, target: str) -> ir.Module:
    """`source` through the dialect pipeline and translated for `target`."""
    c = run(source, make_options(target, {}), stop_after="dialect")
    assert c.module is not None
    return translate_module(c.module, c.target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_function_bodies_print_as_llvmlite_prints_them(
    source: Path, target: str
) -> None:
    if (source.name, target) in REFUSED:
        with pytest.raises(DiagnosticException):
            translated(source, target)
        return
    module = translated(source, target)
    bodies = [
        f for f in module.globals.values() if isinstance(f, Function) and f.blocks
    ]
    assert bodies
    for fn in bodies:
        ours: list[str] = []
        fn.descr_body(ours)
        theirs: list[str] = []
        ir.Function.descr_body(fn, theirs)
        assert "".join(ours) == "".join(theirs), fn.name
