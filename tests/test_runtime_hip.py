"""The amdgpu executor. Without an AMD GPU and ROCm only the diagnostics run
against the real binding; the executor's logic runs on
tests/fake_hip_runtime.py, which stands in for hip-python's `hip.hip`."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import fake_hip_runtime as f  # noqa: E402
from cases import EXAMPLES, run  # noqa: E402
from spirv_ir import SAXPY_SIG  # noqa: E402  (a kernel signature is target-neutral)

from gpuc.runtime import hip  # noqa: E402
from gpuc.runtime.args import KernelSignature, LaunchError, Param  # noqa: E402
from gpuc.runtime.arrays import SharedMemory  # noqa: E402


def runtime_missing() -> str | None:
    """Why no real HIP device can run here, or None when one can."""
    try:
        hip.start_runtime()
    except LaunchError as error:
        return str(error)
    return None


WHY_NOT = runtime_missing()


@pytest.mark.skipif(WHY_NOT is None, reason="a HIP device is present")
def test_without_a_runtime_the_executor_says_what_is_missing() -> None:
    with pytest.raises(LaunchError, match="hip-python|no HIP runtime|hipInit"):
        hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})


def test_without_hip_python_the_error_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "hip", None)  # import hip fails
    with pytest.raises(LaunchError, match=r"needs hip-python: pip install 'gpuc\[hip"):
        hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> f.FakeHip:
    """The amdgpu executor on tests/fake_hip_runtime.py instead of a GPU."""
    runtime = f.FakeHip({"saxpy": f.SAXPY})
    monkeypatch.setattr(hip, "_runtime", lambda: runtime)
    return runtime


def test_without_rocm_or_a_device_the_error_says_so(fake: f.FakeHip) -> None:
    fake.init_error = RuntimeError("failed to dlopen 'libamdhip64.so'")
    with pytest.raises(LaunchError, match="no HIP runtime on this machine .*dlopen"):
        hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    fake.init_error, fake.devices = None, 0
    with pytest.raises(
        LaunchError,
        match="hipInit .is there an AMD GPU.. failed: hipErrorNoDevice: no ROCm",
    ):
        hip.start_runtime()
    fake.devices = 1
    with pytest.raises(LaunchError, match="HIP device 3 requested, 1 present"):
        hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG}, device=3)


def test_saxpy_copies_in_and_out_and_frees(fake: f.FakeHip) -> None:
    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    example = EXAMPLES["saxpy"]
    for cfg in example.configs:
        run(example, cfg, ex.launch, np.random.default_rng(0))
    assert fake.memory == {}
    assert [launch[1:3] for launch in fake.launches][-1] == ((69, 1, 1), (1024, 1, 1))
    ex.close()
    assert fake.modules == {}
    assert hip.device_arch() == "gfx90a"


def test_every_parameter_type_is_passed_as_its_bytes(fake: f.FakeHip) -> None:
    """kernelParams points at each argument's own bytes: the runtime reads
    as many as the code object's metadata says, so each must be exactly the
    parameter's type, and a device pointer 8 bytes."""
    types = ("i1", "i8", "i16", "i32", "i64", "index", "f16", "f32", "f64")
    params = tuple(Param(t, t) for t in types) + (Param("p", "i32", "global"),)
    sig = KernelSignature("probe", params)
    seen: list[int] = []

    def body(grid: f.Dim3, block: f.Dim3, args: list[bytes]) -> f.hipError_t:
        seen.append(int(f.device_array(args[-1], np.int32, 1)[0]))  # copied in
        f.device_array(args[-1], np.int32, 1)[0] = 7
        return f.OK

    fake.kernels["probe"] = f.Kernel((1, 1, 2, 4, 8, 8, 2, 4, 8, 8), body)
    ex = hip.HipExecutor(f.code_object("probe"), {"probe": sig})
    p = np.array([41], np.int32)
    ex.launch("probe", 1, 1, (True, -1, 0xFFFF, -2, 2**63 - 1, -3, 1.5, 0.1, 0.2, p))
    *args, pointer = fake.launches[0][3]
    assert args == [
        b"\x01",
        b"\xff",
        b"\xff\xff",
        (-2).to_bytes(4, "little", signed=True),
        (2**63 - 1).to_bytes(8, "little"),
        (-3).to_bytes(8, "little", signed=True),
        np.float16(1.5).tobytes(),
        np.float32(0.1).tobytes(),
        np.float64(0.2).tobytes(),
    ]
    assert len(pointer) == 8 and seen == [41] and p[0] == 7  # in and back out


def test_an_array_passed_twice_is_one_buffer(fake: f.FakeHip) -> None:
    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    x = np.ones(4, np.float32)
    ex.launch("saxpy", 1, 4, (2.0, x, x, 4))
    _a, x_ptr, y_ptr, _n = fake.launches[0][3]
    assert x_ptr == y_ptr and list(x) == [3.0] * 4


def test_a_launch_from_another_thread_makes_the_device_current(
    fake: f.FakeHip,
) -> None:
    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    x = np.ones(2, np.float32)
    errors: list[BaseException] = []

    def launch() -> None:
        try:
            ex.launch("saxpy", 1, 2, (1.0, x, x, 2))
        except BaseException as error:  # reported by the test thread
            errors.append(error)

    thread = threading.Thread(target=launch)
    thread.start()
    thread.join()
    assert errors == [] and list(x) == [2.0, 2.0]


def test_kernels_are_looked_up_by_their_recorded_symbol(fake: f.FakeHip) -> None:
    """A materialized kernel job's dotted name is looked up as the symbol its
    record gives (by default the gpuc name itself)."""
    fake.kernels["double.kernel"] = fake.kernels["renamed"] = f.SAXPY
    dotted = KernelSignature("double.kernel", SAXPY_SIG.params)
    renamed = KernelSignature("scale.kernel", SAXPY_SIG.params, symbol="renamed")
    ex = hip.HipExecutor(
        f.code_object("double.kernel", "renamed"),
        {"double.kernel": dotted, "scale.kernel": renamed},
    )
    x = np.ones(2, np.float32)
    ex.launch("double.kernel", 1, 2, (1.0, x, x, 2))
    ex.launch("scale.kernel", 1, 2, (1.0, x, x, 2))
    assert [launch[0] for launch in fake.launches] == ["double.kernel", "renamed"]
    missing = KernelSignature("scale.kernel", SAXPY_SIG.params)
    ex = hip.HipExecutor(f.code_object("renamed"), {"scale.kernel": missing})
    with pytest.raises(
        LaunchError,
        match="finding kernel 'scale.kernel' in the code object "
        r"\(hipModuleGetFunction\) failed: hipErrorNotFound: named symbol not found",
    ):
        ex.launch("scale.kernel", 1, 2, (1.0, x, x, 2))


def test_limits_come_from_the_device_and_the_function(fake: f.FakeHip) -> None:
    fake.max_threads = 256  # a kernel whose registers allow fewer threads
    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    x = np.zeros(1, np.float32)
    with pytest.raises(LaunchError, match="runs at most 256 threads per block"):
        ex.launch("saxpy", 1, 512, (1.0, x, x, 1))
    with pytest.raises(LaunchError, match="grid.y = 65537 exceeds .* limit of 65536"):
        ex.launch("saxpy", (1, 65537), 1, (1.0, x, x, 1))
    assert fake.memory == {} and fake.launches == []


def test_failing_calls_name_the_call_and_hips_text(fake: f.FakeHip) -> None:
    with pytest.raises(
        LaunchError,
        match=r"loading gpuc's code object \(hipModuleLoadData\) failed: "
        "hipErrorInvalidImage: device kernel image is invalid",
    ):
        hip.HipExecutor(b"not a code object", {"saxpy": SAXPY_SIG})
    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    x = np.zeros(4, np.float32)
    fake.failing["hipMemcpy"] = f.hipError_t.hipErrorInvalidValue
    with pytest.raises(
        LaunchError,
        match="copying argument 'x' to the device failed: hipErrorInvalidValue: "
        "invalid argument",
    ):
        ex.launch("saxpy", 1, 4, (1.0, x, x, 4))
    assert fake.memory == {}
    del fake.failing["hipMemcpy"]
    fake.failing["hipMalloc"] = f.hipError_t.hipErrorOutOfMemory
    with pytest.raises(LaunchError, match="hipMalloc failed: hipErrorOutOfMemory"):
        ex.launch("saxpy", 1, 4, (1.0, x, x, 4))
    del fake.failing["hipMalloc"]
    fake.kernels["saxpy"] = f.Kernel(f.SAXPY.sizes, f.faulting)
    with pytest.raises(
        LaunchError,
        match="running kernel 'saxpy' failed: hipErrorIllegalAddress: an illegal "
        "memory access was encountered .*restart the process",
    ):
        ex.launch("saxpy", 1, 4, (1.0, x, x, 4))
    assert fake.memory == {}


def test_fake_runtime_runs_gpucs_code_object(fake: f.FakeHip) -> None:
    """gpuc's own .hsaco on the fake: the kernel is found by the symbol its
    record gives, in the real code object."""
    import gpuc

    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="amdgpu")
    assert isinstance(mod.artefact, bytes)
    symbol = mod.signatures["saxpy"].launch_symbol
    fake.kernels = {symbol: f.SAXPY}
    ex = hip.HipExecutor(mod.artefact, mod.signatures)
    example = EXAMPLES["saxpy"]
    for cfg in example.configs:
        run(example, cfg, ex.launch, np.random.default_rng(0))
    assert [launch[0] for launch in fake.launches] == [symbol] * len(example.configs)
    assert fake.memory == {}


def test_the_amdgpu_target_launches_through_this_executor(fake: f.FakeHip) -> None:
    import gpuc

    target = gpuc.targets.target_class("amdgpu")
    assert target.executor == "gpuc.runtime.hip:HipExecutor"
    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="amdgpu", device=0)
    fake.kernels = {mod.signatures["saxpy"].launch_symbol: f.SAXPY}
    x = np.ones(3, np.float32)
    mod.launch("saxpy", 1, 3, (2.0, x, x, 3))
    assert isinstance(mod.executor, hip.HipExecutor) and list(x) == [3.0] * 3


def test_device_arrays_streams_and_dynamic_shared(fake: f.FakeHip) -> None:
    import gc

    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    rng = np.random.default_rng()
    n = 777
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    stream = ex.stream()
    dx, dy = ex.to_device(x, stream), ex.to_device(y)
    start = stream.record()
    ex.launch("saxpy", 7, 128, (0.5, dx, dy, n), stream=stream, shared=256)
    end = stream.record()
    stream.synchronize()
    got = dy.copy_to_host(stream=stream)
    stream.synchronize()
    assert np.array_equal(got, np.float32(0.5) * x + y)
    assert end.elapsed_ms(start) == 1.0  # the fake's clock: one launch
    assert fake.launches[-1][1:3] == ((7, 1, 1), (128, 1, 1))
    with pytest.raises(LaunchError, match="dynamic shared memory and 0 static"):
        ex.launch("saxpy", 1, 1, (0.5, dx, dy, 1), shared=64 * 1024 + 1)
    # amdgpu does not map shared pointer parameters to the dynamic window.
    windowed = KernelSignature(
        "saxpy", (*SAXPY_SIG.params[:3], Param("n", "f32", "shared"))
    )
    ex.kernels["saxpy"] = windowed
    with pytest.raises(LaunchError, match="'n'.*here allocate it in the kernel"):
        ex.launch("saxpy", 1, 1, (0.5, dx, dy, SharedMemory(4)))
    del dx, dy, stream, start, end
    gc.collect()
    assert fake.memory == {} and fake.streams == [] and fake.events == {}


def test_device_array_views_and_dlpack_device(fake: f.FakeHip) -> None:
    """HIP device arrays: views at an offset, fill, DLPack's ROCm device; no
    __cuda_array_interface__ (not CUDA memory)."""
    ex = hip.HipExecutor(f.code_object("saxpy"), {"saxpy": SAXPY_SIG})
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    d = ex.to_device(x)
    assert np.array_equal(d[1:3].copy_to_host(), x[1:3])
    assert d[2].handle == d.handle + 2 * 16 * 4
    d[0].fill(-1)
    assert (d.copy_to_host()[0] == -1).all()
    assert d.__dlpack_device__() == (10, 0)
    assert not hasattr(d, "__cuda_array_interface__")
