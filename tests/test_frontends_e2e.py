"""Kernels from another frontend, end to end: built with xDSL's Python API in
standard dialects (examples/frontend_xdsl.py) or printed by mlir-opt-16,
compiled by `gpuc.compile` (whose first stage is the `import` pass) for native
and spirv (and ptx where a GPU exists), run, and checked against numpy.

Inputs are fresh per run (the seed is printed and in every failure; rerun with
GPUC_TEST_SEED=<seed>); outputs are poisoned with NaN, and a NaN guard past
the end of each output must survive, so a missed or stray write fails.
"""

from __future__ import annotations

import os
import secrets
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.reader.text import parse_foreign_module

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import frontend_xdsl as frontend  # noqa: E402
from cases import assert_equal, assert_within, blocks_for, fma_bound  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_frontends_e2e: GPUC_TEST_SEED={BASE_SEED}")

Array = np.ndarray[Any, Any]
GUARD = 8
"""NaN elements after each output that the kernel must not touch."""


def _gpu_sm() -> int | str:
    try:
        from gpuc.runtime.cuda import device_sm

        return device_sm()
    except gpuc.LaunchError as error:
        return str(error)


GPU_SM = _gpu_sm()
TARGETS = ["native", "spirv", "ptx"]


def compile_for(module: Any, target: str) -> gpuc.Module:
    if target == "ptx":
        if isinstance(GPU_SM, str):
            pytest.skip(f"no GPU for the ptx executor: {GPU_SM}")
        return gpuc.compile(module, target=target, sm=GPU_SM)
    return gpuc.compile(module, target=target)


def rng_for(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr((BASE_SEED, *key)).encode()))


def guarded(shape: tuple[int, ...], fill: Array | None = None) -> tuple[Array, Array]:
    """(whole, view): a NaN-poisoned C-contiguous `view` of `shape` at the
    start of `whole`, followed by GUARD NaN elements."""
    size = int(np.prod(shape))
    whole = np.full(size + GUARD, np.nan, np.float32)
    view = whole[:size].reshape(shape)
    if fill is not None:
        view[...] = fill
    return whole, view


def assert_guard(whole: Array, size: int, what: str) -> None:
    assert np.isnan(whole[size:]).all(), f"{what}: written past its end"


def check(seed_key: tuple[object, ...], body: Callable[[], None]) -> None:
    try:
        body()
    except AssertionError as error:
        raise AssertionError(
            f"{error} (GPUC_TEST_SEED={BASE_SEED}, {seed_key})"
        ) from None


def run_saxpy(mod: gpuc.Module, n: int, block: int, key: tuple[object, ...]) -> None:
    rng = rng_for(*key)
    a = np.float32(rng.uniform(0.5, 2) * rng.choice([-1, 1]))
    x = rng.standard_normal(n, dtype=np.float32)
    x[x == 0] = 1  # an unwritten y[i] keeps y[i], which differs from a*x+y
    whole, y = guarded((n,), rng.standard_normal(n, dtype=np.float32))
    product = a * x
    want = product + y
    # Bare-pointer convention: each memref is its array and its dynamic size.
    mod.launch(
        "saxpy", grid=(blocks_for(n, block),), block=(block,), args=(a, x, n, y, n)
    )

    def body() -> None:
        # a*x+y may be contracted into an fma (cases.fma_bound).
        assert_within(y, want, fma_bound(product, want, y), "saxpy y")
        assert_guard(whole, n, "saxpy y")

    check(key, body)


def run_block_sum(mod: gpuc.Module, n: int, key: tuple[object, ...]) -> None:
    rng = rng_for(*key)
    block = frontend.REDUCE_BLOCK
    grid = blocks_for(n, block)
    src = rng.uniform(-1, 1, n).astype(np.float32)
    whole, out = guarded((grid,))
    mod.launch("block_sum", grid=(grid,), block=(block,), args=(src, n, out, grid))
    padded = np.zeros(grid * block, np.float64)
    padded[:n] = src
    slices = padded.reshape(grid, block)
    want = slices.sum(axis=1)
    # A pairwise tree of log2(block) levels in f32: each level rounds once, so
    # |error| <= levels * 2^-24 * sum|x| per block (first order), plus the
    # rounding of the result itself.
    levels = block.bit_length() - 1
    bound = (levels + 1) * 2.0**-24 * np.abs(slices).sum(axis=1)

    def body() -> None:
        assert_within(out, want, bound, "block_sum out")
        assert_guard(whole, grid, "block_sum out")

    check(key, body)


def run_transpose_scale(
    mod: gpuc.Module,
    rows: int,
    cols: int,
    block: tuple[int, int],
    key: tuple[object, ...],
) -> None:
    rng = rng_for(*key)
    a = np.float32(rng.uniform(0.5, 2))
    src = rng.standard_normal((rows, cols), dtype=np.float32)
    whole, dst = guarded((cols, rows))
    grid = (blocks_for(cols, block[0]), blocks_for(rows, block[1]))
    mod.launch(
        "transpose_scale",
        grid=grid,
        block=block,
        args=(a, src, rows, cols, dst, cols, rows),
    )

    def body() -> None:
        # One f32 multiply per element on both sides: bit-exact.
        assert_equal(dst, a * src.T, "transpose_scale dst")
        assert_guard(whole, rows * cols, "transpose_scale dst")

    check(key, body)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), [(1000, 128), (4099, 256)])
def test_saxpy_built_with_xdsl(target: str, n: int, block: int) -> None:
    mod = compile_for(frontend.saxpy(), target)
    run_saxpy(mod, n, block, ("saxpy", n, block, target))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [3000, 5 * frontend.REDUCE_BLOCK])
def test_workgroup_reduction_built_with_xdsl(target: str, n: int) -> None:
    mod = compile_for(frontend.block_sum(), target)
    info = mod.signatures["block_sum"]
    assert info.uses_barrier
    assert info.static_shared_bytes == 4 * frontend.REDUCE_BLOCK
    run_block_sum(mod, n, ("block_sum", n, target))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("rows", "cols", "block"), [(37, 53, (8, 8)), (130, 7, (16, 4))]
)
def test_2d_dynamic_sizes_built_with_xdsl(
    target: str, rows: int, cols: int, block: tuple[int, int]
) -> None:
    mod = compile_for(frontend.transpose_scale(), target)
    run_transpose_scale(mod, rows, cols, block, ("transpose", rows, cols, target))


def mlir16_text(name: str) -> str:
    """The mlir-opt-16 output committed under tests/filecheck/import/."""
    lines = (ROOT / "tests" / "filecheck" / "import" / f"{name}.mlir").read_text()
    body = lines.splitlines(keepends=True)
    start = next(i for i, line in enumerate(body) if not line.startswith("//"))
    return "".join(body[start:])


@pytest.mark.parametrize("target", TARGETS)
def test_saxpy_printed_by_mlir_opt_16(target: str) -> None:
    # The gpu.module's kernel, with the host code around it dropped.
    module = parse_foreign_module(mlir16_text("saxpy"), name="saxpy.mlir")
    mod = compile_for(module, target)
    run_saxpy(mod, 777, 64, ("mlir16-saxpy", target))


def test_mlir_opt_16_file_compiles_from_its_path() -> None:
    path = ROOT / "tests" / "filecheck" / "import" / "saxpy.mlir"
    mod = gpuc.compile(path, target="native")
    run_saxpy(mod, 300, 64, ("mlir16-path", "native"))


@pytest.mark.parametrize("build", ["saxpy", "block_sum", "transpose_scale"])
def test_ptx_of_xdsl_kernels_passes_ptxas(build: str) -> None:
    # Without a GPU the ptx runs above skip; the PTX is still checked by ptxas.
    mod = gpuc.compile(getattr(frontend, build)(), target="ptx", sm=80, validate=True)
    assert isinstance(mod.artefact, str)
    assert f".entry {build}(" in mod.artefact


def permute3d() -> Any:
    """`dst[k, i, j] = src[i, j, k]`: 3-D, static and dynamic sizes mixed."""
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import arith, func, gpu, memref, scf
    from xdsl.dialects.builtin import (
        DYNAMIC_INDEX,
        MemRefType,
        ModuleOp,
        UnitAttr,
        f32,
    )

    dyn = DYNAMIC_INDEX
    src_t = MemRefType(f32, [dyn, 3, dyn])
    dst_t = MemRefType(f32, [dyn, dyn, 3])
    kernel = func.FuncOp("permute3d", ([src_t, dst_t], []))
    kernel.attributes["gpu.kernel"] = UnitAttr()
    src, dst = frontend.params(kernel.body.block, "src", "dst")
    with ImplicitBuilder(kernel.body.block):
        k, i, j = (frontend.global_id(d) for d in gpu.DimensionEnum)
        n_i = memref.DimOp(src, frontend.const(0)).result
        n_j = memref.DimOp(src, frontend.const(1)).result
        n_k = memref.DimOp(src, frontend.const(2)).result
        inside = arith.AndIOp(
            arith.AndIOp(
                arith.CmpiOp(i, n_i, "ult").result, arith.CmpiOp(j, n_j, "ult").result
            ).result,
            arith.CmpiOp(k, n_k, "ult").result,
        ).result
        with ImplicitBuilder(frontend.when(inside)):
            v = memref.LoadOp.get(src, [i, j, k]).res
            memref.StoreOp.get(v, dst, [k, i, j])
            scf.YieldOp()
        func.ReturnOp()
    return ModuleOp([kernel])


@pytest.mark.parametrize("target", TARGETS)
def test_3d_mixed_static_dynamic_sizes(target: str) -> None:
    key = ("permute3d", target)
    rng = rng_for(*key)
    n_i, n_k = 5, 11
    src = rng.standard_normal((n_i, 3, n_k), dtype=np.float32)
    whole, dst = guarded((n_k, n_i, 3))
    mod = compile_for(permute3d(), target)
    block = (4, 2, 3)
    grid = (blocks_for(n_k, 4), blocks_for(n_i, 2), 1)
    # src: memref<?x3x?xf32> passes sizes 0 and 2; dst: memref<?x?x3xf32> 0 and 1.
    mod.launch("permute3d", grid=grid, block=block, args=(src, n_i, n_k, dst, n_k, n_i))

    def body() -> None:
        assert_equal(dst, src.transpose(2, 0, 1), "permute3d dst")
        assert_guard(whole, dst.size, "permute3d dst")

    check(key, body)


def test_example_script_runs() -> None:
    import subprocess

    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "frontend_xdsl.py"), "native"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "saxpy on native: ok" in run.stdout
