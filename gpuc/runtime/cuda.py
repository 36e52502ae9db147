"""The ptx executor: loads gpuc's PTX with the CUDA driver API through
`cuda-bindings` (pip install 'gpuc[cuda]'), copies numpy arrays in, launches,
and copies them back; device arrays are `cuMemAlloc` memory, streams and
events the driver's (gpuc/runtime/device.py).

PTX that launches kernels from the device (`cudaLaunchDeviceV2`) is
relocatable: the executor links it with the CUDA device runtime
(`libcudadevrt.a`, from $GPUC_CUDADEVRT, the CUDA toolkit or the
nvidia-cuda-runtime wheel) through the driver's JIT linker.

Every driver error becomes a `LaunchError` with the driver's error name. A
fault inside a kernel (an illegal address) leaves a CUDA context unusable:
the error says so. A failing `cf.assert` is no fault: the kernel writes its
error record and returns, and the launch raises a `LaunchError` naming the
assert's location and message (`RecordingExecutor`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpuc.runtime.args import KernelSignature, LaunchError
from gpuc.runtime.device import LimitAttributes
from gpuc.runtime.error_record import RecordingExecutor

# What PTX that launches kernels from the device calls: cudaLaunchDeviceV2 and
# cudaGetParameterBufferV2, named __cudaCDP2... since CUDA 12.
DEVICE_RUNTIME_SYMBOLS = ("LaunchDeviceV2", "GetParameterBufferV2")
LOG_BYTES = 16 * 1024


def without_a_gpu() -> str:
    """What to do on a machine without an NVIDIA GPU, added to each error
    that says one is missing."""
    from gpuc.targets import HOST_TARGET

    return (
        f"; to run here without one, compile with target='{HOST_TARGET}' (this "
        "CPU) or target='spirv' (an OpenCL device: pip install 'gpuc[opencl]' "
        "gives Intel's CPU runtime)"
    )


def _driver() -> Any:
    try:
        from cuda.bindings import driver
    except ImportError:
        raise LaunchError(
            "the ptx executor needs cuda-bindings: pip install 'gpuc[cuda]'"
            + without_a_gpu()
        ) from None
    return driver


def check(result: tuple[Any, ...] | Any, what: str) -> Any:
    """The values a cuda-bindings call returned after its status, or a LaunchError."""
    driver = _driver()
    values = result if isinstance(result, tuple) else (result,)
    status, rest = values[0], values[1:]
    if status != driver.CUresult.CUDA_SUCCESS:
        name_status, name = driver.cuGetErrorName(status)
        spelled = name.decode() if name_status == 0 and name else str(status)
        raise LaunchError(f"CUDA driver: {what} failed: {spelled}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def device_runtime_library() -> Path | None:
    """libcudadevrt.a: $GPUC_CUDADEVRT, then the CUDA toolkit, then the wheel."""
    candidates: list[Path] = []
    if env := os.environ.get("GPUC_CUDADEVRT"):
        candidates.append(Path(env))
    for home in (
        os.environ.get("CUDA_HOME"),
        os.environ.get("CUDA_PATH"),
        "/usr/local/cuda",
    ):
        if home:
            for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
                candidates.append(Path(home) / sub / "libcudadevrt.a")
    try:
        import nvidia

        for root in nvidia.__path__:
            candidates += sorted(Path(root).glob("*/lib/libcudadevrt.a"))
    except ImportError:
        pass
    return next((path for path in candidates if path.is_file()), None)


def start_driver(ordinal: int = 0) -> tuple[Any, Any]:
    """Initialize the driver and make device `ordinal`'s primary context
    current; returns (device, context), or a LaunchError saying what is missing."""
    driver = _driver()
    try:
        status = driver.cuInit(0)
    except Exception as error:  # cuda-bindings raises when libcuda.so is absent
        raise LaunchError(
            f"no CUDA driver on this machine ({error}); the ptx executor needs an "
            "NVIDIA GPU and its driver" + without_a_gpu()
        ) from None
    try:
        check(status, "cuInit (is there an NVIDIA GPU?)")
    except LaunchError as error:
        raise LaunchError(f"{error}{without_a_gpu()}") from None
    count = check(driver.cuDeviceGetCount(), "cuDeviceGetCount")
    if ordinal >= count:
        hint = without_a_gpu() if count == 0 else ""
        raise LaunchError(f"CUDA device {ordinal} requested, {count} present{hint}")
    device = check(driver.cuDeviceGet(ordinal), "cuDeviceGet")
    context = check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    return device, context


def device_sm(ordinal: int = 0) -> int:
    """The compute capability of CUDA device `ordinal` as gpuc's `sm` option
    (90 for 9.0), to compile PTX that this device loads."""
    driver = _driver()
    device, _context = start_driver(ordinal)
    attr = driver.CUdevice_attribute
    major = check(
        driver.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device
        ),
        "reading the compute capability",
    )
    minor = check(
        driver.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device
        ),
        "reading the compute capability",
    )
    return int(major) * 10 + int(minor)


class CudaExecutor(RecordingExecutor):
    """Loads one PTX module on one CUDA device and launches its kernels."""

    dlpack_device_type = 2
    cuda_array_interface = True
    shared_windows = True
    fault_note = (
        "a fault inside a kernel leaves this process's CUDA context unusable: "
        "restart the process"
    )

    def __init__(
        self,
        ptx: str | bytes,
        kernels: Mapping[str, KernelSignature],
        *,
        device: int = 0,
    ) -> None:
        super().__init__(kernels)
        self.driver = _driver()
        self.device, self.context = start_driver(device)
        text = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
        image: bytes | int
        if any(symbol.encode() in text for symbol in DEVICE_RUNTIME_SYMBOLS):
            image, self._link_state = self._link_with_device_runtime(text)
        else:
            image, self._link_state = text + b"\0", None
        self.module = self._load(image)

    def _jit_options(self, log: bytearray) -> tuple[list[Any], list[Any]]:
        option = self.driver.CUjit_option
        return (
            [option.CU_JIT_ERROR_LOG_BUFFER, option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES],
            [log, len(log)],
        )

    @staticmethod
    def _log_text(log: bytearray) -> str:
        return bytes(log).split(b"\0", 1)[0].decode(errors="replace").strip()

    def _load(self, image: bytes | int) -> Any:
        log = bytearray(LOG_BYTES)
        options, values = self._jit_options(log)
        result = self.driver.cuModuleLoadDataEx(image, len(options), options, values)
        try:
            return check(result, "loading gpuc's PTX (cuModuleLoadDataEx)")
        except LaunchError as error:
            raise LaunchError(f"{error}\n{self._log_text(log)}".rstrip()) from None

    def _link_with_device_runtime(self, ptx: bytes) -> tuple[int, Any]:
        library = device_runtime_library()
        if library is None:
            raise LaunchError(
                "this PTX launches kernels from the device, which needs the CUDA "
                "device runtime (libcudadevrt.a): install the CUDA toolkit or "
                "nvidia-cuda-runtime, or set GPUC_CUDADEVRT to the file"
            )
        driver = self.driver
        log = bytearray(LOG_BYTES)
        options, values = self._jit_options(log)
        state = check(
            driver.cuLinkCreate(len(options), options, values), "cuLinkCreate"
        )
        input_type = driver.CUjitInputType
        try:
            check(
                driver.cuLinkAddData(
                    state,
                    input_type.CU_JIT_INPUT_PTX,
                    ptx + b"\0",
                    len(ptx) + 1,
                    b"gpuc.ptx",
                    0,
                    [],
                    [],
                ),
                "adding gpuc's PTX to the link (cuLinkAddData)",
            )
            check(
                driver.cuLinkAddFile(
                    state,
                    input_type.CU_JIT_INPUT_LIBRARY,
                    str(library).encode(),
                    0,
                    [],
                    [],
                ),
                f"adding {library} to the link (cuLinkAddFile)",
            )
            cubin, _size = check(driver.cuLinkComplete(state), "cuLinkComplete")
        except LaunchError as error:
            driver.cuLinkDestroy(state)
            raise LaunchError(f"{error}\n{self._log_text(log)}".rstrip()) from None
        return int(cubin), state

    def _find_function(self, name: str, symbol: bytes) -> Any:
        return check(
            self.driver.cuModuleGetFunction(self.module, symbol),
            f"finding kernel '{name}' in the PTX (cuModuleGetFunction)",
        )

    def _function_max_threads(self, function: Any) -> int:
        return int(
            check(
                self.driver.cuFuncGetAttribute(
                    self.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                    function,
                ),
                "cuFuncGetAttribute",
            )
        )

    def _limit_attributes(self) -> LimitAttributes:
        attr = self.driver.CUdevice_attribute
        return LimitAttributes(
            max_block_threads=attr.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            max_block=(
                attr.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                attr.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                attr.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
            ),
            max_grid=(
                attr.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                attr.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                attr.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
            ),
            max_shared_bytes=attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        )

    def _device_attribute(self, attribute: Any) -> int:
        return int(
            check(
                self.driver.cuDeviceGetAttribute(attribute, self.device),
                str(attribute),
            )
        )

    def _copy_to_device(self, pointer: int, host: int, nbytes: int, what: str) -> None:
        check(self.driver.cuMemcpyHtoD(pointer, host, nbytes), what)

    def _copy_from_device(
        self, host: int, pointer: int, nbytes: int, what: str
    ) -> None:
        check(self.driver.cuMemcpyDtoH(host, pointer, nbytes), what)

    def _launch_kernel(
        self,
        name: str,
        dims: tuple[int, ...],
        stream: Any,
        params: int | None,
        shared: int = 0,
    ) -> None:
        check(
            self.driver.cuLaunchKernel(
                self.function(name),
                *dims,
                shared,
                0 if stream is None else stream,  # 0: the null stream
                0 if params is None else params,
                0,
            ),
            f"launching kernel '{name}' (cuLaunchKernel)",
        )

    @property
    def owner(self) -> Any:
        return ("cuda", int(self.device))

    def _memset(self, pointer: int, pattern: int, width: int, count: int) -> bool:
        memset = {
            1: self.driver.cuMemsetD8Async,
            2: self.driver.cuMemsetD16Async,
            4: self.driver.cuMemsetD32Async,
        }[width]
        check(
            memset(pointer, pattern, count, 0), f"filling memory (cuMemsetD{8 * width})"
        )
        return True

    def _copy_async(
        self, to_device: bool, dst: int, src: int, nbytes: int, stream: Any
    ) -> None:
        if to_device:
            check(
                self.driver.cuMemcpyHtoDAsync(dst, src, nbytes, stream),
                "copying to the device (cuMemcpyHtoDAsync)",
            )
        else:
            check(
                self.driver.cuMemcpyDtoHAsync(dst, src, nbytes, stream),
                "copying from the device (cuMemcpyDtoHAsync)",
            )

    def _stream_create(self) -> Any:
        flags = self.driver.CUstream_flags.CU_STREAM_DEFAULT
        return check(self.driver.cuStreamCreate(flags), "cuStreamCreate")

    def _stream_destroy(self, stream: Any) -> None:
        check(self.driver.cuStreamDestroy(stream), "cuStreamDestroy")

    def _stream_synchronize(self, stream: Any, what: str) -> None:
        check(self.driver.cuStreamSynchronize(stream), what)

    def _event_create(self) -> Any:
        flags = self.driver.CUevent_flags.CU_EVENT_DEFAULT
        return check(self.driver.cuEventCreate(flags), "cuEventCreate")

    def _event_destroy(self, event: Any) -> None:
        check(self.driver.cuEventDestroy(event), "cuEventDestroy")

    def _event_record(self, event: Any, stream: Any) -> None:
        check(self.driver.cuEventRecord(event, stream), "cuEventRecord")

    def _event_synchronize(self, event: Any) -> None:
        check(self.driver.cuEventSynchronize(event), "waiting for an event")

    def _event_elapsed_ms(self, start: Any, end: Any) -> float:
        return float(
            check(self.driver.cuEventElapsedTime(start, end), "cuEventElapsedTime")
        )

    def make_current(self) -> None:
        """Make this executor's context current in the calling OS thread (a
        CUDA context is current per thread; Python threads each need it)."""
        check(self.driver.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    def _alloc(self, nbytes: int) -> int:
        return int(check(self.driver.cuMemAlloc(nbytes), "cuMemAlloc"))

    def free(self, pointer: int) -> None:
        check(self.driver.cuMemFree(pointer), "cuMemFree")

    def _synchronize(self, what: str) -> None:
        check(self.driver.cuCtxSynchronize(), what)

    def close(self) -> None:
        if self._link_state is not None:
            self.driver.cuLinkDestroy(self._link_state)
            self._link_state = None
