"""SPIR-V emission in a fresh process (gpuc/targets/spirv/isolation.py): never
a fork, safe from several threads at once, the same bytes whatever was
compiled before, and LLVM's fatal errors a LoweringError of the caller, not
its end."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gpuc
from gpuc.lowering.diagnostics import LoweringError
from gpuc.targets.spirv import isolation

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SPIRV = "spirv64-unknown-unknown"


def spirv(name: str) -> bytes:
    artefact = gpuc.compile(EXAMPLES / f"{name}.mlir", target="spirv").artefact
    assert isinstance(artefact, bytes)
    return artefact


@pytest.fixture
def no_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> int:
        raise AssertionError("os.fork called while compiling")

    monkeypatch.setattr(os, "fork", refuse)


@pytest.mark.usefixtures("no_fork")
def test_threads_compile_spirv_at_once_without_fork() -> None:
    names = ["saxpy", "reduce", "histogram", "matmul"]
    alone = {n: spirv(n) for n in names}
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(spirv, names * 3))
    assert together == [alone[n] for n in names * 3]


@pytest.mark.usefixtures("no_fork")
def test_output_does_not_depend_on_earlier_modules() -> None:
    first = spirv("stencil2d")
    for other in ("matmul", "histogram", "reduce"):
        spirv(other)
    assert spirv("stencil2d") == first


def test_fatal_llvm_error_is_a_lowering_error() -> None:
    from llvmlite import binding as llvm

    from gpuc.lowering.llvm import initialize

    initialize()
    module = llvm.parse_assembly(
        f'target triple = "{SPIRV}"\n'
        "define spir_kernel void @k(ptr addrspace(1) %p, i128 %a, i128 %b) {\n"
        "  %c = sdiv i128 %a, %b\n"
        "  store i128 %c, ptr addrspace(1) %p\n"
        "  ret void\n"
        "}\n"
    )
    tm = llvm.Target.from_triple(SPIRV).create_target_machine(opt=2)
    isolation.rebuildable(tm, isolation.MachineSpec(SPIRV, 2))
    with pytest.raises(LoweringError, match="SPIR-V emission failed in LLVM"):
        isolation.emit_object(module, tm, "SPIR-V emission")
    assert len(spirv("saxpy")) > 0  # and the caller goes on


def test_machine_not_made_rebuildable_is_refused() -> None:
    from llvmlite import binding as llvm

    from gpuc.lowering.llvm import initialize

    initialize()
    module = llvm.parse_assembly(f'target triple = "{SPIRV}"\n')
    tm = llvm.Target.from_triple(SPIRV).create_target_machine(opt=2)
    with pytest.raises(LoweringError, match="cannot be recreated"):
        isolation.emit_object(module, tm, "SPIR-V emission")


def test_no_resource_warning_under_w_error(tmp_path: Path) -> None:
    """`python -W error`: the server's pipes are closed when it is stopped at
    exit and when it went away and is started again (Python reports a pipe
    left open with a ResourceWarning, printed even where it cannot raise)."""
    import subprocess
    import sys

    script = (
        "import gpuc\n"
        "from gpuc.targets.spirv import isolation\n"
        f"examples = {str(EXAMPLES)!r}\n"
        "gpuc.compile(examples + '/saxpy.mlir', target='spirv')\n"
        "isolation._server._proc.kill()\n"
        "gpuc.compile(examples + '/reduce.mlir', target='spirv')\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "GPUC_CACHE": "0"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr
