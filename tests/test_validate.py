"""Validation by the real tools: every example's PTX is accepted by ptxas for
sm_75, sm_80, sm_90 and sm_100 (CUDA 13's ptxas has no sm_70), its SPIR-V by
spirv-val; a rejection is a diagnostic quoting the tool; the tools are found
where pip installs them, without PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpuc.compiler import compile_module
from gpuc.tools import ToolError, run_ptxas, run_spirv_val

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
PTX_SMS = (75, 80, 90, 100)
DEVICE_LAUNCH = {"child_launch"}
"""Examples that launch kernels from the device: PTX only."""


@pytest.mark.parametrize("sm", PTX_SMS)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_passes_ptxas(example: Path, sm: int) -> None:
    result = compile_module(example, "ptx", sm=sm, validate=True)
    assert isinstance(result.artefact, str)
    assert f".target sm_{sm}" in result.artefact
    for kernel in result.kernels:
        assert f".visible .entry {kernel.replace('.', '_$_')}(" in result.artefact


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_passes_spirv_val(example: Path) -> None:
    if example.stem in DEVICE_LAUNCH:
        with pytest.raises(Exception, match="cannot express"):
            compile_module(example, "spirv", validate=True)
        return
    result = compile_module(example, "spirv", validate=True)
    assert isinstance(result.artefact, bytes)
    assert result.artefact[:4] == b"\x03\x02\x23\x07"  # the SPIR-V magic number


def test_device_launch_ptx_is_relocatable_so_ptxas_compiles_only() -> None:
    ptx = compile_module(ROOT / "examples" / "child_launch.mlir", "ptx").artefact
    assert isinstance(ptx, str)
    run_ptxas(ptx, 90, compile_only=True)
    with pytest.raises(ToolError, match="__cudaCDP2GetParameterBufferV2"):
        run_ptxas(ptx, 90, compile_only=False)


def test_a_ptxas_rejection_quotes_ptxas() -> None:
    ptx = compile_module(ROOT / "examples" / "saxpy.mlir", "ptx").artefact
    assert isinstance(ptx, str)
    broken = ptx.replace("fma.rn.f32", "fma.rn.bogus")
    with pytest.raises(ToolError) as info:
        run_ptxas(broken, 90, compile_only=False)
    message = str(info.value)
    assert message.startswith("ptxas (sm_90) rejected the output:")
    assert "kernel.ptx, line" in message and "Unknown modifier '.bogus'" in message


def test_a_spirv_val_rejection_quotes_spirv_val() -> None:
    binary = compile_module(ROOT / "examples" / "saxpy.mlir", "spirv").artefact
    assert isinstance(binary, bytes)
    with pytest.raises(ToolError) as info:
        run_spirv_val(binary[: len(binary) // 2])
    assert str(info.value).startswith("spirv-val rejected the output:")
    assert "error" in str(info.value)


def test_tools_are_found_without_path() -> None:
    script = (
        "from gpuc.tools import ptxas, spirv_tool, libdevice;"
        "print(ptxas()); print(spirv_tool('spirv-val')); print(libdevice())"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PATH", "CUDA_HOME")}
    env["PATH"] = "/nonexistent"
    found = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()
    site = str(Path(sys.prefix))
    assert all(path.startswith(site) for path in found), found
