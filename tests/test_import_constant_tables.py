"""Constant tables: a `constant` memref.global with a dense initial value (what
bufferization makes of a constant tensor), read in a kernel through
`memref.get_global` (a private array the kernel fills on entry) or by the
host code before a mapped loop (a kernel argument). Run on native and spirv
against numpy on fresh random inputs, outputs poisoned; ptxas and amdgpu
compile them. Rerun with GPUC_TEST_SEED=<seed>.
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

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_import_constant_tables: GPUC_TEST_SEED={SEED}")
HERE = Path(__file__).parent / "fixtures" / "constant_tables"
KERNEL = (HERE / "kernel.mlir").read_text()
HOST = (HERE / "host.mlir").read_text()
WEIGHTS = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
HOST_WEIGHTS = np.array([[1.0, -2.0, 3.5], [0.25, 5.0, -6.0]], np.float32)


def with_barrier(text: str) -> str:
    """`text` with a gpu.barrier after the kernel's thread_id: on native, a
    work-group function, whose threads share one copy of each table."""
    line = next(x for x in text.splitlines() if '"gpu.thread_id"' in x)
    return text.replace(line, line + '\n    "gpu.barrier"() : () -> ()')


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("barrier", [False, True])
def test_kernel_reads_constant_tables(target: str, barrier: bool) -> None:
    r = seeded(SEED, "kernel", target, barrier)
    a = r.standard_normal(6).astype(np.float32)
    want = a * WEIGHTS.reshape(-1)
    b = np.full(4, -1, np.int32)
    source = with_barrier(KERNEL) if barrier else KERNEL
    gpuc.compile(source, target=target)["k"][1, 6](a, b)
    np.testing.assert_array_equal(a, want, err_msg=f"seed {SEED}")
    np.testing.assert_array_equal(b, [7, 7, 7, 7])


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_host_code_passes_a_constant_table(target: str) -> None:
    r = seeded(SEED, "host", target)
    a = r.standard_normal((2, 3)).astype(np.float32)
    out = np.full((2, 3), np.nan, np.float32)
    gpuc.run_host(HOST, target, entry="scale", args=[a, out])
    np.testing.assert_array_equal(out, a * HOST_WEIGHTS, err_msg=f"seed {SEED}")


def test_constant_tables_pass_ptxas_and_link_for_amdgpu() -> None:
    assert compile_module(KERNEL, "ptx", sm=90, validate=True).artefact
    assert compile_module(KERNEL, "amdgpu").artefact
