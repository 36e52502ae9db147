"""Function values from MLIR text: `func.constant` of helpers with memref
parameters, chosen per thread through `scf.if` and called with
`func.call_indirect` (tests/filecheck/import/func_constant.mlir, MLIR 16's
text). Run on native against numpy on fresh random inputs (a strided view),
the output poisoned first; ptx validated by ptxas, amdgpu by its linker;
spirv refuses function pointers at the op. Rerun with GPUC_TEST_SEED=<seed>.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import numpy as np
import pytest
from kernel_modules import seeded

import gpuc
from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_import_function_values: GPUC_TEST_SEED={SEED}")
SOURCE = Path(__file__).parent / "filecheck" / "import" / "func_constant.mlir"


def test_function_values_run_on_native() -> None:
    r = seeded(SEED, "function values")
    whole = r.standard_normal((37, 12)).astype(np.float32)
    x = whole[:, 1::3]  # a view: strides (12, 3), offset 1
    w = r.standard_normal(4).astype(np.float32)
    out = np.full(37, np.nan, np.float32)
    gpuc.compile(SOURCE.read_text(), target="native")["k"][2, 32](x, w, out)
    dot = x.astype(np.float64) @ w.astype(np.float64)
    first = x[:, 0] * w[0]
    want = np.where(np.arange(37) % 2 == 0, dot, first)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg=f"{SEED}")


def test_function_values_pass_ptxas_and_amdgpu_and_spirv_refuses_them() -> None:
    assert compile_module(SOURCE.read_text(), "ptx", sm=90, validate=True).artefact
    assert compile_module(SOURCE.read_text(), "amdgpu", validate=True).artefact
    # At func.constant's line (the import keeps each op's location).
    line = next(
        n
        for n, text in enumerate(SOURCE.read_text().splitlines(), start=1)
        if '"func.constant"() {value = @dot}' in text
    )
    with pytest.raises(OpError, match=f":{line}:14: error: 'gpuc.func_addr' op"):
        gpuc.compile(SOURCE.read_text(), target="spirv")
