"""Per-thread (private) arrays: `gpuc.private_alloc` and the import of
`memref.alloca` in private memory, on native and spirv (Intel's OpenCL CPU
runtime) against numpy on fresh random inputs with poisoned outputs, through
ptxas and the amdgpu back-end; and the diagnostics. Rerun with
GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_private_arrays: GPUC_TEST_SEED={SEED}")
N, K = 256, 8
"""Threads, and elements of each thread's array."""

G = "!gpuc.ptr<f32, global>"
L = "!gpuc.ptr<f32, local>"

# Each thread copies its K inputs into its own array, then writes them out in
# the order of a per-thread rotation (a dynamic index into the array), and the
# running maximum through a helper's private array.
SOURCE = f"""
gpuc.func @prefix_max(%a: {G}, %out: {G}, %base: index) helper {{
  %run = gpuc.private_alloc {K} : {L}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant {K} : index
  %first = gpuc.load %a[%base] : {G}
  gpuc.store %first, %run[%c0] : {L}
  scf.for %k = %c1 to %ck step %c1 {{
    %j = arith.addi %base, %k : index
    %v = gpuc.load %a[%j] : {G}
    %p = arith.subi %k, %c1 : index
    %prev = gpuc.load %run[%p] : {L}
    %m = arith.maximumf %prev, %v : f32
    gpuc.store %m, %run[%k] : {L}
  }}
  scf.for %k = %c0 to %ck step %c1 {{
    %m = gpuc.load %run[%k] : {L}
    %j = arith.addi %base, %k : index
    gpuc.store %m, %out[%j] : {G}
  }}
  gpuc.return
}}

gpuc.func @rotate(%a: {G}, %out: {G}, %maxes: {G}) kernel {{
  %i = gpuc.global_id x
  %tmp = gpuc.private_alloc {K} : {L}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant {K} : index
  %base = arith.muli %i, %ck : index
  scf.for %k = %c0 to %ck step %c1 {{
    %j = arith.addi %base, %k : index
    %v = gpuc.load %a[%j] : {G}
    gpuc.store %v, %tmp[%k] : {L}
  }}
  scf.for %k = %c0 to %ck step %c1 {{
    %s = arith.addi %k, %i : index
    %r = arith.remui %s, %ck : index
    %v = gpuc.load %tmp[%r] : {L}
    %j = arith.addi %base, %k : index
    gpuc.store %v, %out[%j] : {G}
  }}
  gpuc.call @prefix_max(%a, %maxes, %base) : ({G}, {G}, index) -> ()
  gpuc.return
}}

gpuc.func @after_barrier(%a: {G}, %out: {G}) kernel {{
  %i = gpuc.global_id x
  %ck = arith.constant {K} : index
  %base = arith.muli %i, %ck : index
  gpuc.barrier
  gpuc.call @prefix_max(%a, %out, %base) : ({G}, {G}, index) -> ()
  gpuc.return
}}
"""

IMPORTED = Path(__file__).parent / "fixtures" / "private_allocas.mlir"
"""MLIR 16's generic form: an alloca in private memory and one without a space
(for N threads of K elements)."""


def rng(*key: object) -> np.random.Generator:
    return np.random.default_rng([SEED, *(hash(str(k)) % 2**32 for k in key)])


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_private_arrays_match_numpy(target: str) -> None:
    a = rng("rotate").standard_normal(N * K).astype(np.float32)
    out, maxes = np.full(N * K, np.nan, np.float32), np.full(N * K, np.nan, np.float32)
    module = gpuc.compile(SOURCE.replace(BARRIER_KERNEL, ""), target=target)
    module["rotate"][(N // 64,), (64,)](a, out, maxes)
    rows = a.reshape(N, K)
    shift = (np.arange(K)[None, :] + np.arange(N)[:, None]) % K
    np.testing.assert_array_equal(out.reshape(N, K), np.take_along_axis(rows, shift, 1))
    np.testing.assert_array_equal(
        maxes.reshape(N, K), np.maximum.accumulate(rows, axis=1)
    )


BARRIER_KERNEL = SOURCE[SOURCE.index("gpuc.func @after_barrier") :]


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_helpers_private_array_is_per_thread_in_a_barrier_kernel(target: str) -> None:
    """On native the kernel runs a block per call; the helper, per thread."""
    a = rng("barrier").standard_normal(N * K).astype(np.float32)
    out = np.full(N * K, np.nan, np.float32)
    gpuc.compile(SOURCE, target=target)["after_barrier"][(N // 64,), (64,)](a, out)
    rows = a.reshape(N, K)
    np.testing.assert_array_equal(out.reshape(N, K), np.maximum.accumulate(rows, 1))


def test_native_barrier_kernel_refuses_its_own_private_array() -> None:
    source = f"""
gpuc.func @k(%a: {G}) kernel {{
  %tmp = gpuc.private_alloc 4 : {L}
  gpuc.barrier
  gpuc.return
}}
"""
    with pytest.raises(OpError, match="'gpuc.private_alloc' op is in a kernel the "):
        compile_module(source, "native")
    assert compile_module(source, "spirv").artefact


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_imported_allocas_match_numpy(target: str) -> None:
    a = rng("flip").standard_normal(N * K).astype(np.float32)
    out = np.full(N * K, np.nan, np.float32)
    gpuc.compile(IMPORTED, target=target)["flip"][(N // 64,), (64,)](a, out)
    rows = a.reshape(N, K)
    np.testing.assert_array_equal(out.reshape(N, K), rows[:, ::-1] + 2 * rows)


@pytest.mark.parametrize(("target", "sm"), [("ptx", 75), ("ptx", 90), ("amdgpu", None)])
def test_other_targets_compile(target: str, sm: int | None) -> None:
    options = {"sm": sm} if sm is not None else {}
    artefact = compile_module(SOURCE, target, **options).artefact
    assert artefact
    if target == "ptx":
        assert isinstance(artefact, str) and ".local" in artefact


@pytest.mark.parametrize(
    ("alloc", "message"),
    [
        (f"gpuc.private_alloc 0 : {L}", "allocates 0 elements; the count must be"),
        (
            "gpuc.private_alloc 4 : !gpuc.ptr<f32, shared>",
            "a private allocation's pointer must be in the local address space",
        ),
        (
            f"gpuc.private_alloc {2**30} : {L}",
            "allocates 4294967296 bytes of private memory",
        ),
    ],
)
def test_bad_private_allocs_are_diagnostics(alloc: str, message: str) -> None:
    source = f"gpuc.func @k() kernel {{\n  %p = {alloc}\n  gpuc.return\n}}\n"
    with pytest.raises(Exception, match=message) as error:
        compile_module(source, "native")
    assert ":2:8:" in str(error.value)
