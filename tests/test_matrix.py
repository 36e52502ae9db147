"""Warp matrix ops (tests/matrix_kernels.mlir, imported gpu.subgroup_mma_*)
on the native target and on spirv (Intel's OpenCL CPU runtime), against
numpy on fresh random inputs with poisoned outputs; on ptx, the wmma
instructions ptxas accepts; bad fragments as located diagnostics.

Tiles sit inside bigger matrices (leading dimensions above 16), the C
fragment is carried over several k-tiles by scf.for, every matrix is also
stored transposed, and blocks of 64 threads hold two subgroups that compute
the same tile. Inputs differ per run; rerun with GPUC_TEST_SEED=<seed>.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.cli import main as cli
from gpuc.tools import ToolError, llvm_tool

SOURCE = Path(__file__).with_name("matrix_kernels.mlir")
SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_matrix: GPUC_TEST_SEED={SEED}")
TARGETS = ["native", "spirv"]
Array = np.ndarray[Any, Any]

_modules: dict[tuple[str, str], gpuc.Module] = {}


def module(target: str, source: str | Path = SOURCE) -> gpuc.Module:
    key = (str(source), target)
    if key not in _modules:
        _modules[key] = gpuc.compile(source, target=target)
    return _modules[key]


def rng(*key: object) -> np.random.Generator:
    return np.random.default_rng([SEED, *(hash(str(k)) % 2**32 for k in key)])


def halves(r: np.random.Generator, *shape: int) -> Array:
    """Small integers and halves: their f16 products and sums are exact."""
    return (r.integers(-8, 9, shape) / 2).astype(np.float16)


M, N, K = 32, 48, 64
PAD = 8
"""Each leading dimension is PAD more than the matrix is wide."""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [32, 64])
def test_gemm_matches_numpy(target: str, block: int) -> None:
    r = rng("gemm", target, block)
    a = r.standard_normal((M, K + PAD)).astype(np.float16)
    b = r.standard_normal((K, N + PAD)).astype(np.float16)
    c = r.standard_normal((M, N + PAD)).astype(np.float32)
    d = np.full_like(c, np.nan)
    module(target)["gemm_nn"][(M // 16, N // 16), (block,)](
        a, b, c, d, *np.array([K, K + PAD, N + PAD, N + PAD], np.int64)
    )
    want = a[:, :K].astype(np.float32) @ b[:, :N].astype(np.float32) + c[:, :N]
    np.testing.assert_allclose(d[:, :N], want, rtol=1e-5, atol=1e-4)
    assert np.isnan(d[:, N:]).all(), "stored outside the tiles"


@pytest.mark.parametrize("target", TARGETS)
def test_transposed_gemm_matches_numpy(target: str) -> None:
    r = rng("gemm_tt", target)
    at = r.standard_normal((K, M + PAD)).astype(np.float16)  # A's columns
    bt = r.standard_normal((N, K + PAD)).astype(np.float16)
    ct = r.standard_normal((N, M + PAD)).astype(np.float32)
    dt = np.full_like(ct, np.nan)
    module(target)["gemm_tt"][(M // 16, N // 16), (32,)](
        at, bt, ct, dt, *np.array([K, M + PAD, K + PAD, M + PAD], np.int64)
    )
    a, b, c = at[:, :M].T, bt[:, :K].T, ct[:, :M].T
    want = a.astype(np.float32) @ b.astype(np.float32) + c
    np.testing.assert_allclose(dt[:, :M].T, want, rtol=1e-5, atol=1e-4)
    assert np.isnan(dt[:, M:]).all()


@pytest.mark.parametrize("target", TARGETS)
def test_half_accumulator_matches_numpy(target: str) -> None:
    r = rng("gemm_half", target)
    a, b = halves(r, M, K + PAD), halves(r, K, N + PAD)
    init = np.float16(r.integers(-4, 5) / 4)
    d = np.full((M, N + PAD), np.nan, np.float16)
    module(target)["gemm_half"][(M // 16, N // 16), (32,)](
        a, b, d, init, *np.array([K, K + PAD, N + PAD, N + PAD], np.int64)
    )
    want = a[:, :K].astype(np.float32) @ b[:, :N].astype(np.float32) + init
    np.testing.assert_array_equal(d[:, :N], want.astype(np.float16))
    assert np.isnan(d[:, N:]).all()


@pytest.mark.parametrize("target", TARGETS)
def test_elementwise_and_splat_match_numpy(target: str) -> None:
    r = rng("epilogue", target)
    x = r.standard_normal((16, 16)).astype(np.float32)
    y = r.standard_normal((16, 16)).astype(np.float32)
    h = r.standard_normal((16, 16)).astype(np.float16)
    alpha = np.float32(r.uniform(0.5, 2))
    out = np.full((16, 16), np.nan, np.float32)
    out16 = np.full((16, 16), np.nan, np.float16)
    module(target)["epilogue"][(1,), (32,)](x, y, h, alpha, out, out16)
    t = (x * alpha + h.astype(np.float32) - y) / alpha
    want = -np.minimum(np.maximum(t, x), y)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(out16, h + h)


@pytest.mark.parametrize("target", TARGETS)
def test_fragment_live_across_a_barrier(target: str) -> None:
    """Native runs a barrier kernel as a work-group function: the C fragment
    loaded before the barrier lives in its context storage."""
    r = rng("staged", target)
    a = r.standard_normal((16, 16)).astype(np.float16)
    b = r.standard_normal((16, 16)).astype(np.float16)
    c = r.standard_normal((16, 16)).astype(np.float32)
    d = np.full((16, 16), np.nan, np.float32)
    module(target)["staged"][(1,), (64,)](a, b, c, d)
    want = a.astype(np.float32) @ b.astype(np.float32) + c
    np.testing.assert_allclose(d, want, rtol=1e-5, atol=1e-4)


IMPORTED = (
    Path(__file__).parent / "filecheck/import/Inputs/versions/mma_mlir16_generic.mlir"
)
"""gpu.subgroup_mma_* as mlir-opt-16 --mlir-print-op-generic prints them (all
five ops): A's tile at row 16, B's at row 16 loaded column-major, both over
two k-tiles of 16, C a constant 1 carried by scf.for, D + C stored at (16, 16)
of a 32x32 matrix."""


@pytest.mark.parametrize("target", TARGETS)
def test_imported_subgroup_mma_ops(target: str) -> None:
    r = rng("imported", target)
    a = r.standard_normal((32, 32)).astype(np.float16)
    b = r.standard_normal((32, 32)).astype(np.float16)
    c = np.full((32, 32), np.nan, np.float32)
    module(target, IMPORTED)["k"][(1,), (32,)](a, b, c)
    want = a[16:].astype(np.float32) @ b[16:].T.astype(np.float32) + 2
    np.testing.assert_allclose(c[16:, 16:], want, rtol=1e-5, atol=1e-4)
    assert np.isnan(c[:16]).all() and np.isnan(c[:, :16]).all()


def test_ptx_uses_wmma_that_ptxas_accepts() -> None:
    m = gpuc.compile(SOURCE, target="ptx", validate=True, cache=False)
    ptx = m.artefact
    assert isinstance(ptx, str)
    for line in (
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16",
        "wmma.load.a.sync.aligned.col.m16n16k16.global.f16",
        "wmma.load.b.sync.aligned.col.m16n16k16.global.f16",
        "wmma.load.c.sync.aligned.col.m16n16k16.global.f32",
        "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16",
        "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32",
        "wmma.mma.sync.aligned.col.col.m16n16k16.f32.f32",
        "wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16",
        "wmma.store.d.sync.aligned.col.m16n16k16.global.f32",
        "wmma.store.d.sync.aligned.row.m16n16k16.global.f16",
    ):
        assert line in ptx, line


def _no_ld_lld() -> str | None:
    try:
        llvm_tool("ld.lld")
    except ToolError as e:
        return str(e)
    return None


@pytest.mark.skipif(_no_ld_lld() is not None, reason=f"{_no_ld_lld()}")
def test_amdgpu_emulates_the_matrix_ops() -> None:
    """The emulation needs only the subgroup index ops, which amdgpu has:
    each lane holds the tile (an array of row vectors), lanes store their
    share of it."""
    m = gpuc.compile(IMPORTED, target="amdgpu", validate=True, cache=False)
    assert "define amdgpu_kernel void @k(" in m.llvm_ir
    assert "<16 x float>" in m.llvm_ir
    assert "wmma" not in m.llvm_ir


LOAD = (
    "%A = gpu.subgroup_mma_load_matrix %{m}[%c0, %c0] {{leadDimension = 32 : index}}"
    ' : memref<32x32x{e}> -> !gpu.mma_matrix<{shape}, "AOp">'
)
BAD_IMPORTS = [
    (
        LOAD.format(m="a", e="f16", shape="32x8xf16"),
        "a 32x8xf16 fragment of operand a is not supported; the supported shape "
        "is m16n16k16",
    ),
    (
        LOAD.format(m="c", e="f32", shape="16x16xf32"),
        "a 16x16xf32 fragment of operand a is not supported",
    ),
]


@pytest.mark.parametrize(("line", "message"), BAD_IMPORTS)
def test_unsupported_fragments_are_located_diagnostics(
    line: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = "%a: memref<32x32xf16>, %c: memref<32x32xf32>"
    source = f"""func.func @k({params}) attributes {{gpu.kernel}} {{
  %c0 = arith.constant 0 : index
  {line}
  return
}}
"""
    path = tmp_path / "bad.mlir"
    path.write_text(source)
    out = tmp_path / "out.ptx"
    status = cli.main(["compile", str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 1
    assert f"{path}:3:8: error: 'gpu.subgroup_mma_load_matrix' op" in err
    assert message in err
    assert "Traceback" not in err
    assert not out.exists()


COPY = """\
gpuc.func @copy(%c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>, %i: index) kernel {
  %c16 = arith.constant 16 : index
  %f = gpuc.matrix_load %c[%i], %c16 : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %f, %d[%i], %c16 : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501


def test_checked_native_reports_a_tile_outside_its_buffer(tmp_path: Path) -> None:
    """Checked mode checks every element a tile load or store touches: a
    tile one row past the end of its 16x16 buffer is stopped at the load."""
    path = tmp_path / "copy.mlir"
    path.write_text(COPY)
    m = gpuc.compile(path, target="native", checked=True)
    c = np.zeros((16, 16), np.float32)
    d = np.full_like(c, np.nan)
    m["copy"][(1,), (32,)](c, d, np.int64(0))
    np.testing.assert_array_equal(d, c)
    with pytest.raises(
        gpuc.LaunchError,
        match=r"copy.mlir:3:8: 'gpuc.matrix_load' outside parameter %c",
    ):
        m["copy"][(1,), (32,)](c, d, np.int64(16))


def test_spirv_refuses_a_known_block_of_partial_subgroups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "half_warp.mlir"
    path.write_text(
        COPY.replace(
            "kernel {",
            "kernel attributes {gpu.known_block_size = array<i32: 16, 2, 1>} {",
        )
    )
    out = tmp_path / "out.spv"
    status = cli.main(["compile", str(path), "--target", "spirv", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 1
    assert (
        f"{path}:1:1: error: 'gpuc.func' op kernel @copy uses matrix fragments, "
        "which spirv spreads over sub-groups of 32 threads along x, but its "
        "block [16, 2, 1] has an x size of 16; give it an x size that is a "
        "multiple of 32"
    ) in err
    assert not out.exists()


@pytest.mark.parametrize("block", [(16, 2), (8, 4, 2), (48, 2)])
def test_spirv_refuses_a_launch_whose_x_size_splits_subgroups(
    block: tuple[int, ...],
) -> None:
    """Intel's runtime forms sub-groups along x only: a block of 32 threads as
    (16, 2) is two sub-groups of 16, which the lanes' layout cannot use; the
    launch says so rather than compute the wrong tile. (64, 1) runs."""
    from gpuc.runtime.args import LaunchError

    m = gpuc.compile(COPY, target="spirv")
    c = rng("copy-x", block).standard_normal((16, 16)).astype(np.float32)
    d = np.full_like(c, np.nan)
    with pytest.raises(LaunchError, match=f"x size of {block[0]}; launch it"):
        m["copy"][(1,), block](c, d, np.int64(0))
    assert np.isnan(d).all()
    m["copy"][(1,), (64,)](c, d, np.int64(0))
    np.testing.assert_array_equal(d, c)
