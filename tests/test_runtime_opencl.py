"""The spirv executor on SPIR-V made by llvmlite from hand-written LLVM IR, run
by a real OpenCL runtime (Intel's CPU runtime from PyPI here): buffers in and
out, 3-D grid/block mapping, local memory with barriers, launch checks, and
the ICD loader setup that needs no system file."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from cases import assert_within, fma_bound  # noqa: E402
from spirv_ir import BSUM, BSUM_SIG, IDS3, IDS3_SIG, SAXPY, SAXPY_SIG, to_spirv

from gpuc.runtime.args import KernelSignature, LaunchError, Param
from gpuc.runtime.opencl import OpenCLExecutor, intel_cpu_runtime, spirv_version

pytest.importorskip("pyopencl")


@pytest.fixture(scope="module")
def spirv() -> bytes:
    return to_spirv(SAXPY + IDS3 + BSUM)


@pytest.fixture(scope="module")
def ex(spirv: bytes) -> OpenCLExecutor:
    return OpenCLExecutor(
        spirv, {"saxpy": SAXPY_SIG, "ids3": IDS3_SIG, "bsum": BSUM_SIG}
    )


@pytest.mark.parametrize(("n", "block"), [(1, 1), (1000, 128), (1001, 64), (77, 100)])
def test_saxpy_writes_results_back(ex: OpenCLExecutor, n: int, block: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    product = np.float32(2.5) * x
    expected = product + y  # one rounding per operation
    ex.launch("saxpy", -(-n // block), block, (2.5, x, y, n))
    # The runtime may contract a*x+y into an fma: cases.fma_bound says how far.
    assert_within(y, expected, fma_bound(product, expected, y), "saxpy")


@pytest.mark.parametrize(
    ("grid", "block"), [((1,), (1,)), ((3, 2, 2), (4, 5, 2)), ((5, 1, 3), (2, 2, 2))]
)
def test_3d_grid_and_block_map_to_ids(
    ex: OpenCLExecutor, grid: tuple[int, ...], block: tuple[int, ...]
) -> None:
    g = list(grid) + [1] * (3 - len(grid))
    b = list(block) + [1] * (3 - len(block))
    out = np.full(int(np.prod(g) * np.prod(b)), -1, np.int64)
    ex.launch("ids3", grid, block, (out,))
    z, y, x = np.meshgrid(
        np.arange(g[2] * b[2]),
        np.arange(g[1] * b[1]),
        np.arange(g[0] * b[0]),
        indexing="ij",
    )
    expected = x // b[0] + 10 * (y % b[1]) + 100 * z
    np.testing.assert_array_equal(out.reshape(expected.shape), expected)


@pytest.mark.parametrize(("n", "block"), [(1, 1), (999, 100), (1000, 256), (513, 7)])
def test_block_reduction_in_local_memory(
    ex: OpenCLExecutor, n: int, block: int
) -> None:
    x = np.random.default_rng(block).integers(-99, 99, n, dtype=np.int32)
    blocks = -(-n // block)
    out = np.full(blocks, np.iinfo(np.int32).min, np.int32)
    ex.launch("bsum", blocks, block, (x, out, n))
    np.testing.assert_array_equal(out, np.add.reduceat(x, np.arange(0, n, block)))


def test_launch_checks(ex: OpenCLExecutor) -> None:
    x, y = np.zeros(4, np.float32), np.zeros(4, np.float64)
    with pytest.raises(LaunchError, match="argument 2 \\('y'.*got one of float64"):
        ex.launch("saxpy", 1, 4, (1.0, x, y, 4))
    with pytest.raises(LaunchError, match="takes 4 arguments"):
        ex.launch("saxpy", 1, 4, (1.0, x))
    limit = ex.limits("saxpy").max_block_threads
    with pytest.raises(LaunchError, match=f"runs at most {limit} threads per block"):
        ex.launch("saxpy", 1, (limit, 2), (1.0, x, x, 4))
    with pytest.raises(LaunchError, match="grid.x is 0"):
        ex.launch("saxpy", 0, 4, (1.0, x, x, 4))


def test_a_released_buffer_is_an_error_not_a_crash(ex: OpenCLExecutor) -> None:
    """A device array whose buffer was released (pyopencl's release(), which
    leaves the handle pointing at freed memory: Intel's runtime crashed on
    it) is refused by every use, and the others are not affected."""
    x = ex.to_device(np.arange(4, dtype=np.float32))
    y = ex.to_device(np.ones(4, np.float32))
    view = ex.host_view(np.zeros(4, np.float32))
    for array in (x, view):
        array.handle.release()
    released = "the device array's OpenCL buffer was released"
    with pytest.raises(LaunchError, match=f"copy_to_host: {released}"):
        x.copy_to_host()
    with pytest.raises(LaunchError, match=f"copy_from_host: {released}"):
        x.copy_from_host(np.zeros(4, np.float32))
    with pytest.raises(LaunchError, match=f"argument 'x': {released}"):
        ex.launch("saxpy", 1, 4, (2.0, x, y, 4))
    with pytest.raises(LaunchError, match=f"sync_host_view: {released}"):
        ex.sync_host_view(view)
    ex.launch("saxpy", 1, 4, (2.0, y, y, 4))
    assert list(y.copy_to_host()) == [3.0] * 4


def test_too_much_local_memory_is_refused(spirv: bytes) -> None:
    greedy = KernelSignature(
        "bsum", BSUM_SIG.params, uses_barrier=True, static_shared_bytes=1 << 30
    )
    ex = OpenCLExecutor(spirv, {"bsum": greedy})
    with pytest.raises(LaunchError, match="needs 1073741824 bytes of shared memory"):
        ex.launch("bsum", 1, 1, (np.zeros(1, np.int32), np.zeros(1, np.int32), 1))


def test_kernel_missing_from_the_binary(spirv: bytes) -> None:
    ghost = KernelSignature("ghost", (Param("x", "f32", "global"),))
    ex = OpenCLExecutor(spirv, {"ghost": ghost})
    with pytest.raises(LaunchError, match="kernel 'ghost' is not in the SPIR-V module"):
        ex.launch("ghost", 1, 1, (np.zeros(1, np.float32),))


def test_spirv_version_no_device_accepts(spirv: bytes) -> None:
    assert spirv_version(spirv) <= (1, 4)
    future = bytearray(spirv)
    struct.pack_into("<I", future, 4, 0x00010900)  # SPIR-V 1.9
    with pytest.raises(
        LaunchError, match="no OpenCL device accepts SPIR-V 1.9; found:"
    ):
        OpenCLExecutor(bytes(future), {})
    with pytest.raises(LaunchError, match="SPIR-V magic"):
        OpenCLExecutor(b"\0" * 64, {})


def test_device_choice_by_name(spirv: bytes) -> None:
    with pytest.raises(
        LaunchError, match="no OpenCL device whose name contains 'nope'"
    ):
        OpenCLExecutor(spirv, {}, device="nope")


@pytest.mark.skipif(intel_cpu_runtime() is None, reason="intel-opencl-rt not installed")
def test_intel_runtime_found_without_any_system_file(tmp_path: object) -> None:
    """A fresh process with no loader variables: gpuc writes the vendors
    directory itself and the Intel CPU device accepts SPIR-V."""
    script = textwrap.dedent(
        """
        import os
        from gpuc.runtime.opencl import describe, select_device
        device = select_device((1, 2))
        vendors = os.environ["OCL_ICD_VENDORS"]
        print(describe(device))
        for name in sorted(os.listdir(vendors)):
            print(open(os.path.join(vendors, name)).read())
        """
    )
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("OCL_ICD", "GPUC_"))
    }
    env["XDG_CACHE_HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Intel(R) OpenCL" in done.stdout
    assert str(intel_cpu_runtime()) in done.stdout


def test_concurrent_launches_from_python_threads(ex: OpenCLExecutor) -> None:
    import threading

    rng = np.random.default_rng(11)
    inputs = [rng.integers(-9, 9, 3000, dtype=np.int32) for _ in range(6)]
    outputs = [np.full(30, -1, np.int32) for _ in inputs]
    workers = [
        threading.Thread(target=ex.launch, args=("bsum", 30, 100, (x, out, 3000)))
        for x, out in zip(inputs, outputs, strict=True)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for x, out in zip(inputs, outputs, strict=True):
        np.testing.assert_array_equal(out, x.reshape(30, 100).sum(axis=1))


def test_without_pyopencl_a_launch_says_how_to_install_it() -> None:
    """The spirv executor without pyopencl: a LaunchError naming the packages,
    not an ImportError traceback."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import sys
        sys.modules["pyopencl"] = None  # as if it were not installed
        import numpy as np
        import gpuc
        src = '''gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {
          gpuc.return
        }'''
        mod = gpuc.compile(src, target="spirv")
        try:
            mod["k"][1, 1](np.zeros(1, np.float32))
        except gpuc.LaunchError as error:
            print("refused:", error)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "refused: the spirv executor needs pyopencl" in done.stdout
