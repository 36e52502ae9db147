"""The known block size gpu-kernel-outlining records on a kernel, as every
MLIR prints it (MLIR 16's `gpu.known_block_size` attribute, the
`known_block_size` property of MLIR 19 and later), is emitted (`.reqntid`,
which ptxas accepts) and is the only block the kernel runs with on native and
spirv. The fixtures are in tests/filecheck/import/Inputs/versions/, each
headed by the mlir-opt command that made it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.compiler import compile_module

VERSIONS = Path(__file__).parent / "filecheck" / "import" / "Inputs" / "versions"
PRINTED_BY = ["mlir16", "mlir19", "mlir22"]
KERNEL = "fill_kernel::fill_kernel"


def fixture(printed_by: str) -> Path:
    return VERSIONS / f"known_sizes_{printed_by}_generic.mlir"


def expected_fill(blocks: int) -> np.ndarray:
    b, y, x = np.meshgrid(np.arange(blocks), np.arange(2), np.arange(8), indexing="ij")
    return (x + 10 * y + 100 * b).astype(np.int32).ravel()


@pytest.mark.parametrize("printed_by", PRINTED_BY)
def test_ptx_declares_the_known_block_and_ptxas_accepts_it(printed_by: str) -> None:
    ptx = str(
        compile_module(fixture(printed_by).read_text(), "ptx", validate=True).artefact
    )
    entry = ptx[ptx.index(".visible .entry fill_kernel(") :]
    assert ".reqntid 8, 2, 1" in entry[: entry.index("{")]


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("printed_by", PRINTED_BY)
def test_the_known_block_runs_and_no_other(printed_by: str, target: str) -> None:
    mod = gpuc.compile(fixture(printed_by), target=target)
    out = np.full(48, -1, np.int32)
    mod.launch(KERNEL, (3,), (8, 2), [out])
    np.testing.assert_array_equal(out, expected_fill(3))
    for block in [(16,), (8,), (8, 2, 2), (2, 8)]:
        poisoned = np.full(48, -1, np.int32)
        with pytest.raises(gpuc.LaunchError, match=r"compiled for block \(8, 2, 1\)"):
            mod.launch(KERNEL, (3,), block, [poisoned])
        assert (poisoned == -1).all(), "a refused launch ran"


def fake_fill(
    grid: tuple[int, int, int], block: tuple[int, int, int], args: list[int]
) -> object:
    """fill_kernel(out: ptr) as its PTX would run it, for the fake driver."""
    import ctypes

    import fake_cuda_driver as f

    blocks = grid[0]
    out = f.device_array(f.read(args[0], ctypes.c_uint64), np.int32, 16 * blocks)
    out[:] = expected_fill(blocks)
    return f.OK


fake_fill.arity = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("printed_by", PRINTED_BY)
def test_the_ptx_executor_launches_the_known_block_only(
    printed_by: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On tests/fake_cuda_driver.py: no GPU here (a GPU runs the same check)."""
    pytest.importorskip("cuda.bindings")
    import fake_cuda_core
    import fake_cuda_driver as f

    driver = f.FakeDriver({"fill_kernel": fake_fill})
    fake_cuda_core.install(monkeypatch, driver)
    mod = gpuc.compile(fixture(printed_by), target="ptx")
    out = np.full(48, -1, np.int32)
    mod.launch(KERNEL, (3,), (8, 2), [out])
    np.testing.assert_array_equal(out, expected_fill(3))
    for block in [(16,), (8, 2, 2)]:
        with pytest.raises(gpuc.LaunchError, match=r"compiled for block \(8, 2, 1\)"):
            mod.launch(KERNEL, (3,), block, [np.full(48, -1, np.int32)])
    assert [name for name, _, _ in driver.launches] == ["fill_kernel"]
