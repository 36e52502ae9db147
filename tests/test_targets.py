"""Each target's output on the examples, checked by the real tools: ptxas for
every supported sm, spirv-val for SPIR-V, LLVM's verifier for native."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuc.driver import compile_module

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.mlir"))
PTX_SMS = (75, 80, 90, 100)


@pytest.mark.parametrize("sm", PTX_SMS)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_ptx_is_accepted_by_ptxas(example: Path, sm: int) -> None:
    result = compile_module(example, "ptx", sm=sm, validate=True)
    assert isinstance(result.artefact, str)
    assert f".target sm_{sm}" in result.artefact
    for kernel in result.kernels:
        assert f".visible .entry {kernel}(" in result.artefact


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_spirv_is_accepted_by_spirv_val(example: Path) -> None:
    result = compile_module(example, "spirv", validate=True)
    assert isinstance(result.artefact, bytes)
    assert result.artefact[:4] == b"\x03\x02\x23\x07"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_native_defines_a_launch_entry_per_kernel(example: Path) -> None:
    result = compile_module(example, "native")
    for kernel in result.kernels:
        assert f"define void @__gpuc_launch_{kernel}(ptr" in result.llvm_ir
    assert isinstance(result.artefact, bytes) and result.artefact[:4] == b"\x7fELF"
