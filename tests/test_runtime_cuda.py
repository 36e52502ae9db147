"""The ptx executor. Without an NVIDIA GPU and driver only the diagnostics run
(and the GPU tests skip, saying why); with one, PTX made by llvmlite from
hand-written LLVM IR runs and is checked against numpy."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from cases import EXAMPLES, assert_within, fma_bound, run  # noqa: E402

from gpuc.runtime.args import KernelSignature, LaunchError, Param  # noqa: E402

SAXPY_NVPTX = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
define ptx_kernel void @saxpy(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y,
                              i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bd = mul i32 %b, %d
  %i32 = add i32 %bd, %t
  %i = zext i32 %i32 to i64
  %nn = sext i32 %n to i64
  %c = icmp ult i64 %i, %nn
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr float, ptr addrspace(1) %x, i64 %i
  %py = getelementptr float, ptr addrspace(1) %y, i64 %i
  %xv = load float, ptr addrspace(1) %px
  %yv = load float, ptr addrspace(1) %py
  %m = fmul float %a, %xv
  %s = fadd float %m, %yv
  store float %s, ptr addrspace(1) %py
  br label %exit
exit:
  ret void
}
"""

SAXPY_SIG = KernelSignature(
    "saxpy",
    (
        Param("a", "f32"),
        Param("x", "f32", "global"),
        Param("y", "f32", "global"),
        Param("n", "i32"),
    ),
)


def saxpy_ptx() -> str:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(SAXPY_NVPTX)
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    return str(target.create_target_machine(cpu="sm_75").emit_assembly(module))


def gpu_missing() -> str | None:
    """Why the GPU tests cannot run here, or None when they can."""
    try:
        from gpuc.runtime.cuda import start_driver

        start_driver()
    except LaunchError as error:
        return str(error)
    return None


WHY_NOT = gpu_missing()
needs_gpu = pytest.mark.skipif(WHY_NOT is not None, reason=f"no GPU: {WHY_NOT}")


@pytest.mark.skipif(WHY_NOT is None, reason="a CUDA GPU is present")
def test_without_a_gpu_the_executor_says_what_is_missing() -> None:
    from gpuc.runtime.cuda import CudaExecutor

    with pytest.raises(LaunchError, match="cuda-core|an NVIDIA GPU and its driver"):
        CudaExecutor(saxpy_ptx(), {"saxpy": SAXPY_SIG})


@pytest.mark.skipif(WHY_NOT is None, reason="a CUDA GPU is present")
def test_a_ptx_launch_without_a_gpu_says_what_runs_here() -> None:
    """gpuc.compile's default target is ptx: launching its kernel on a
    machine without a GPU names the targets that run here."""
    import gpuc

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir")
    x = np.zeros(4, np.float32)
    with pytest.raises(
        LaunchError, match=r"target='native' \(this CPU\) or target='spirv'"
    ):
        mod["saxpy"][1, 4](1.0, x, x, 4)


def test_emitted_ptx_names_the_kernel() -> None:
    assert ".visible .entry saxpy(" in saxpy_ptx()


def test_kernel_names_map_to_ptx_symbols() -> None:
    """Materialized kernel jobs have '.' in their names, which PTX spells
    `_$_`; the kernel's record says so, and the executor looks it up by that
    symbol (checked on real output)."""
    import gpuc
    from gpuc.runtime.cuda import DEVICE_RUNTIME_SYMBOLS

    mod = gpuc.compile(ROOT / "examples" / "child_launch.mlir", target="ptx")
    assert isinstance(mod.artefact, str)
    symbols = {name: sig.launch_symbol for name, sig in mod.signatures.items()}
    assert any("." in name for name in symbols)
    for name, symbol in symbols.items():
        assert symbol == name.replace(".", "_$_")
        assert f".visible .entry {symbol}(" in mod.artefact
    assert any(s in mod.artefact for s in DEVICE_RUNTIME_SYMBOLS)


@needs_gpu
@pytest.mark.parametrize(("n", "block"), [(1, 1), (1000, 128), (100_001, 256)])
def test_saxpy_on_the_gpu(n: int, block: int) -> None:
    from gpuc.runtime.cuda import CudaExecutor

    ex = CudaExecutor(saxpy_ptx(), {"saxpy": SAXPY_SIG})
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    product = np.float32(0.5) * x
    expected = product + y
    ex.launch("saxpy", -(-n // block), block, (0.5, x, y, n))
    # ptxas may contract a*x+y into an fma: cases.fma_bound says how far.
    assert_within(y, expected, fma_bound(product, expected, y), "saxpy")


@needs_gpu
def test_gpu_launch_checks() -> None:
    from gpuc.runtime.cuda import CudaExecutor

    ex = CudaExecutor(saxpy_ptx(), {"saxpy": SAXPY_SIG})
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="argument 1 \\('x'.*got one of int32"):
        ex.launch("saxpy", 1, 4, (1.0, x.view(np.int32), x, 4))
    with pytest.raises(LaunchError, match="block.x = 2048 exceeds"):
        ex.launch("saxpy", 1, 2048, (1.0, x, x, 4))


def test_device_check_saves_and_loads_every_example(tmp_path: Path) -> None:
    """bench/device_check.py --save / --load: what a GPU machine without the
    compiler runs. The saved signatures and PTX must round-trip."""
    sys.path.insert(0, str(ROOT / "bench"))
    import device_check

    compiled, failures = device_check.compile_examples(90)
    assert not failures
    device_check.save(compiled, tmp_path, 90)
    loaded, sm = device_check.load(tmp_path)
    assert sm == 90 and loaded == compiled
    assert ".entry saxpy(" in loaded["saxpy"][0]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ptx executor on tests/fake_cuda_driver.py instead of a GPU."""
    pytest.importorskip("cuda.bindings")
    import fake_cuda_core
    import fake_cuda_driver as f

    driver = f.FakeDriver(
        {
            "saxpy": f.saxpy,
            "child_launch": f.child_launch,
            "double_$_kernel": f.child_launch,
        }
    )
    fake_cuda_core.install(monkeypatch, driver)
    return driver


def test_fake_driver_runs_gpucs_saxpy(fake: Any) -> None:
    """Parameters packed as the driver reads them, copies in and out, every
    allocation freed; on gpuc's real PTX."""
    import gpuc
    from gpuc.runtime.cuda import CudaExecutor

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="ptx")
    ex = CudaExecutor(mod.artefact, mod.signatures)
    example = EXAMPLES["saxpy"]
    for cfg in example.configs:
        run(example, cfg, ex.launch, np.random.default_rng(0))
    assert fake.memory == {}
    fake.max_threads = 768  # a kernel whose registers allow fewer threads
    ex = CudaExecutor(mod.artefact, mod.signatures)
    x = np.zeros(1, np.float32)
    with pytest.raises(LaunchError, match="runs at most 768 threads per block"):
        ex.launch("saxpy", 1, 1000, (1.0, x, x, 1))


def test_fake_driver_links_device_launches_with_cudadevrt(fake: Any) -> None:
    import gpuc
    from gpuc.runtime.cuda import CudaExecutor, device_runtime_library

    if device_runtime_library() is None:
        pytest.skip("no libcudadevrt.a on this machine")
    mod = gpuc.compile(ROOT / "examples" / "child_launch.mlir", target="ptx")
    ex = CudaExecutor(mod.artefact, mod.signatures)
    kinds = [kind.name for kind, _ in fake.links[0]]
    assert kinds == ["CU_JIT_INPUT_PTX", "CU_JIT_INPUT_LIBRARY"]
    run(
        EXAMPLES["child_launch"],
        {"n": 1000, "block": 1},
        ex.launch,
        np.random.default_rng(1),
    )
    ex.function("double.kernel")  # the child, by its gpuc name


def test_fake_driver_errors(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import fake_cuda_driver as f

    import gpuc
    from gpuc.runtime import cuda

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="ptx")
    fake.kernels["saxpy"] = f.faulting
    ex = cuda.CudaExecutor(mod.artefact, mod.signatures)
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="CUDA_ERROR_ILLEGAL_ADDRESS.*unusable"):
        ex.launch("saxpy", 1, 4, (1.0, x, x, 4))
    assert fake.memory == {}

    child = gpuc.compile(ROOT / "examples" / "child_launch.mlir", target="ptx")
    monkeypatch.setattr(cuda, "device_runtime_library", lambda: None)
    with pytest.raises(LaunchError, match="needs the CUDA device runtime"):
        cuda.CudaExecutor(child.artefact, child.signatures)
    monkeypatch.setattr(cuda, "DEVICE_RUNTIME_SYMBOLS", ("no such call",))
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_PTX: unresolved"):
        cuda.CudaExecutor(child.artefact, child.signatures)


def test_fake_driver_device_arrays_streams_and_events(fake: Any) -> None:
    """Device arrays stay on the device; a launch taking only those is queued
    on its stream and returns before the kernel runs (the fake runs stream
    work only when waited for); events time it; arrays free themselves."""
    import gc

    import gpuc

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="ptx")
    rng = np.random.default_rng()
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    a = np.float32(rng.uniform(0.5, 2))
    stream = mod.stream()
    dx = mod.to_device(x, stream=stream)
    dy = mod.to_device(y, stream=stream)
    start = stream.record()
    mod["saxpy"][gpuc.blocks(n, 128), 128, stream, 1024](a, dx, dy, n)
    end = stream.record()
    out = np.full(n, np.nan, np.float32)
    dy.copy_to_host(out, stream=stream)
    assert fake.streams[stream.handle.handle], "the launch was not queued on the stream"
    assert np.isnan(out).all()  # nothing ran yet: the launch was asynchronous
    # A host array made for the copy (not contiguous: copied first) must live
    # until the queued copy has run.
    reversed_x = mod.to_device(x[::-1], stream=stream)
    stream.synchronize()
    product = a * x
    want = product + y
    assert_within(out, want, fma_bound(product, want, out), "saxpy on a stream")
    assert np.array_equal(reversed_x.copy_to_host(), x[::-1])
    assert end.elapsed_ms(start) == fake.kernel_ms
    assert fake.launches[-1] == ("saxpy", 1024, stream.handle.handle)
    # On the null stream, copy_to_host waits for the launch.
    mod["saxpy"].over(n, block=256)(-a, dx, dy, n)
    bound = (np.abs(product) + np.abs(y)) * 2**-22
    assert_within(dy.copy_to_host(), y, bound, "saxpy undone")
    # A numpy argument is copied in and back, and the launch waits for it.
    y2 = y.copy()
    mod["saxpy"].over(n, block=256, stream=stream)(a, dx, y2, n)
    assert_within(y2, want, fma_bound(product, want, y2), "saxpy mixed")
    with pytest.raises(LaunchError, match="1048576 bytes of dynamic shared memory"):
        mod["saxpy"][1, 1, None, 1 << 20](a, dx, dy, 1)
    with pytest.raises(LaunchError, match="not a stream of this executor's device"):
        mod["saxpy"][1, 1, object()](a, dx, dy, 1)
    del dx, dy, reversed_x, stream, start, end
    gc.collect()
    assert fake.memory == {} and fake.streams == {} and fake.events == {}


def test_fake_driver_device_array_views_fill_and_exports(fake: Any) -> None:
    """Shape, strides, views at an offset (launched on in place), fill, and
    the exports other libraries read: DLPack (the capsule's tensor) and
    __cuda_array_interface__; numpy refuses to read device memory."""
    import gc

    import gpuc
    from gpuc.runtime import dlpack

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="ptx")
    rng = np.random.default_rng()
    x = rng.standard_normal((4, 256), dtype=np.float32)
    d = mod.to_device(x)
    assert (d.shape, d.strides, d.size, d.ndim, len(d)) == (
        (4, 256),
        (1024, 4),
        1024,
        2,
        4,
    )
    row = d[2]
    assert row.shape == (256,) and row.handle == d.handle + 2 * 1024
    assert np.array_equal(d[1:3].copy_to_host(), x[1:3])
    # saxpy on row 2 only: y = 2 * 1 + y; the other rows stay as they were.
    ones = mod.to_device(np.ones(256, np.float32))
    mod["saxpy"].over(256, block=64)(np.float32(2), ones, row, 256)
    want = x.copy()
    want[2] += np.float32(2)
    assert np.array_equal(d.copy_to_host(), want)
    d[3].fill(7)
    assert (d.copy_to_host()[3] == 7).all()
    assert fake.memsets[-1] == (4, 256)  # a memset, not a host copy
    for dtype, value, memset in (
        (np.int8, -3, (1, 5)),
        (np.float16, 1.5, (2, 5)),
        (np.float64, 0.0, (4, 10)),  # equal 32-bit halves: a 32-bit memset
    ):
        small = mod.to_device(np.ones(5, dtype))
        small.fill(value)
        assert fake.memsets[-1] == memset
        assert (small.copy_to_host() == np.asarray(value, dtype)).all()
    wide = mod.to_device(np.zeros(3, np.float64))
    wide.fill(2.5)  # halves differ: copied from the host
    assert fake.memsets[-1] == (4, 10) and (wide.copy_to_host() == 2.5).all()
    del small, wide
    with pytest.raises(IndexError, match="not contiguous"):
        d[:, 1:]
    with pytest.raises(IndexError, match="basic indexing only"):
        d[[0, 1]]
    with pytest.raises(TypeError, match="in device memory.*copy_to_host"):
        np.asarray(d)
    interface = d.__cuda_array_interface__
    assert interface["data"] == (d.handle, False)
    assert (interface["shape"], interface["typestr"]) == ((4, 256), "<f4")
    assert d.__dlpack_device__() == (2, 0)
    capsule = row.__dlpack__()
    tensor = dlpack.tensor_of(capsule).dl_tensor
    assert tensor.data == row.handle
    assert (tensor.device.device_type, tensor.ndim) == (2, 1)
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.shape[0]) == (2, 32, 256)
    held = dlpack.exported()
    del d, row, ones
    gc.collect()
    assert len(fake.memory) == 1  # the capsule holds the view, the view d
    del capsule  # an unconsumed capsule frees its tensor
    gc.collect()
    assert dlpack.exported() == held - 1
    assert fake.memory == {}


class CudaInterface:
    """Another library's CUDA array, by numba's interface alone."""

    def __init__(self, interface: dict[str, Any]) -> None:
        self.__cuda_array_interface__ = interface


class CudaDLPack:
    """Another library's CUDA array, by DLPack alone."""

    def __init__(self, exported: Any) -> None:
        self.exported = exported

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.exported.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.exported.__dlpack_device__()  # type: ignore[no-any-return]


def test_fake_driver_takes_other_libraries_cuda_arrays(fake: Any) -> None:
    """`__cuda_array_interface__` and CUDA DLPack arrays are launched on in
    place (the kernel writes the other library's memory); a DLPack tensor is
    handed back (its deleter) when gpuc's view of it goes."""
    import gc

    import gpuc
    from gpuc.runtime import dlpack

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="ptx")
    n = 300
    rng = np.random.default_rng()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    dx, dy = mod.to_device(x), mod.to_device(y)
    held = dlpack.exported()
    mod["saxpy"].over(n, block=64)(
        np.float32(2), CudaDLPack(dx), CudaInterface(dy.__cuda_array_interface__), n
    )
    product = np.float32(2) * x
    want = product + y
    got = dy.copy_to_host()
    assert_within(got, want, fma_bound(product, want, got), "saxpy, foreign arrays")
    gc.collect()
    assert dlpack.exported() == held  # consumed, then released
    strided = {**dy.__cuda_array_interface__, "shape": (150,), "strides": (8,)}
    with pytest.raises(LaunchError, match="strided or masked CUDA array"):
        mod["saxpy"].over(n)(np.float32(2), dx, CudaInterface(strided), n)
    elsewhere = CudaDLPack(dx)
    elsewhere.__dlpack_device__ = lambda: (2, 1)  # type: ignore[method-assign]
    with pytest.raises(LaunchError, match="on device 1.*compile with device=1"):
        mod["saxpy"].over(n)(np.float32(2), elsewhere, dy, n)
    native = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="native")
    with pytest.raises(LaunchError, match="'x'.*CUDA 0, whose memory"):
        native["saxpy"].over(n)(np.float32(2), CudaDLPack(dx), y, n)
    with pytest.raises(LaunchError, match="'x'.*__cuda_array_interface__"):
        native["saxpy"].over(n)(np.float32(2), CudaInterface({}), y, n)


def test_device_check_of_device_arrays_on_the_fake_driver(fake: Any) -> None:
    """bench/device_check.py's device-array checks, run here on the stand-in
    driver (on a GPU machine they run on the GPU)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import device_check

    compiled, failures = device_check.compile_examples(90)
    assert device_check.check_device_arrays(compiled, 1) == []


def test_device_check_bandwidth_on_the_fake_driver(
    fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench/device_check.py's bandwidth run, through cuda.core's streams,
    events, fills and copies (the stand-in's clock: each kernel 1.5 ms)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import device_check

    compiled, _failures = device_check.compile_examples(90)
    assert device_check.bandwidth(compiled, 10, 3) is None
    out = capsys.readouterr().out
    assert "saxpy 2^10 f32, block 256: 1.500 ms median of 3" in out
    assert "device copy 0 MiB" in out
    assert fake.memory == {}


def test_dynamic_shared_memory_on_ptx(fake: Any) -> None:
    """gpuc.SharedMemory(count) for a shared pointer parameter, as on native
    and spirv: ptxas accepts the kernel, which addresses the window from the
    `.extern .shared` array; the launch asks the driver for the windows'
    bytes (each at a multiple of 16) and passes each parameter its offset.
    The fake kernel runs the mirror with those offsets into one window."""
    import ctypes

    import fake_cuda_driver as f
    from test_device_arrays import WINDOWS, windows_want

    import gpuc
    from gpuc.runtime.args import shared_windows
    from gpuc.targets.launch_abi import DYNAMIC_SHARED

    mod = gpuc.compile(WINDOWS, target="ptx", validate=True)
    assert isinstance(mod.artefact, str)
    assert f".extern .shared .align 16 .b8 {DYNAMIC_SHARED}[];" in mod.artefact
    seen: list[tuple[int, int]] = []

    def windows(
        grid: tuple[int, int, int], block: tuple[int, int, int], args: list[int]
    ) -> Any:
        x_at, out_at = (f.read(args[i], ctypes.c_uint64) for i in (0, 1))
        a_at, b_at = (f.read(args[i], ctypes.c_uint64) for i in (2, 3))
        seen.append((a_at, b_at))
        n = grid[0] * block[0]
        x = f.device_array(x_at, np.float32, n).reshape(grid[0], block[0])
        out = f.device_array(out_at, np.float32, n).reshape(grid[0], block[0])
        for blk in range(grid[0]):
            window = np.zeros(fake.launches[-1][1], np.uint8)
            a = window[a_at : a_at + 4 * block[0]].view(np.float32)
            b = window[b_at : b_at + 4 * block[0]].view(np.int32)
            a[:] = x[blk]
            b[:] = np.arange(block[0])
            out[blk] = a[::-1] + b[::-1].astype(np.float32) + np.float32(blk)
        return f.OK

    windows.arity = 4  # type: ignore[attr-defined]
    fake.kernels["windows"] = windows
    grid, block = 5, 33
    x = np.random.default_rng([27, 6]).standard_normal(grid * block, np.float32)
    out = np.full(grid * block, np.nan, np.float32)
    mod["windows"][grid, block](
        x, out, gpuc.SharedMemory(block), gpuc.SharedMemory(block)
    )
    # 33 f32 take 132 bytes, rounded to 144: b's window starts there.
    assert seen[-1] == (0, 144)
    assert fake.launches[-1][:2] == ("windows", 288)
    assert np.array_equal(out, windows_want(x, grid, block))
    dx, dout = mod.to_device(x), mod.empty(grid * block, np.float32)
    shared = gpuc.SharedMemory(block)
    mod["windows"][grid, block, None, 64](dx, dout, shared, shared)
    assert fake.launches[-1][:2] == ("windows", 288 + 64)  # shared= comes after
    assert np.array_equal(dout.copy_to_host(), windows_want(x, grid, block))
    small = mod.signatures["windows"]
    assert shared_windows(small, [x, x, gpuc.SharedMemory(3), shared]) == (
        [None, None, 0, 16],
        16 + 144,
    )
    with pytest.raises(LaunchError, match="bytes of dynamic shared memory"):
        mod["windows"][1, 1](x, out, gpuc.SharedMemory(1 << 20), shared)
