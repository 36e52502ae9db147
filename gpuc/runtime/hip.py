"""The amdgpu executor: loads gpuc's HSA code object (`.hsaco`) with the HIP
runtime through `hip-python` (pip install 'gpuc[hip]'), copies numpy arrays
in, launches, and copies them back; device arrays are `hipMalloc` memory,
streams and events HIP's (gpuc/runtime/device.py).

Arguments go to `hipModuleLaunchKernel` as `kernelParams`, an array of
pointers to each argument's bytes, as the CUDA executor passes them: the HIP
runtime lays them out by the code object's kernel metadata, so gpuc never
restates AMDGPU's kernel-argument alignment.

Every HIP error becomes a `LaunchError` with the error's name and
`hipGetErrorString`'s text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuc.runtime.args import KernelSignature, LaunchError
from gpuc.runtime.device import LimitAttributes
from gpuc.runtime.error_record import RecordingExecutor


def _runtime() -> Any:
    try:
        from hip import hip
    except ImportError:
        raise LaunchError(
            "the amdgpu executor needs hip-python: pip install 'gpuc[hip]'"
        ) from None
    return hip


def check(result: tuple[Any, ...], what: str) -> Any:
    """The values a hip-python call returned after its status, or a LaunchError."""
    hip = _runtime()
    status, rest = result[0], result[1:]
    if status != hip.hipError_t.hipSuccess:
        _ok, text = hip.hipGetErrorString(status)
        spelled = text.decode() if isinstance(text, bytes) else str(text or "")
        name = getattr(status, "name", str(status))
        raise LaunchError(f"HIP runtime: {what} failed: {name}: {spelled}".rstrip())
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def start_runtime(ordinal: int = 0) -> int:
    """Initialize the HIP runtime and make device `ordinal` current; returns
    the ordinal, or a LaunchError saying what is missing."""
    hip = _runtime()
    try:
        status = hip.hipInit(0)
    except Exception as error:  # hip-python raises when libamdhip64.so is absent
        raise LaunchError(
            f"no HIP runtime on this machine ({error}); the amdgpu executor needs "
            "an AMD GPU and ROCm"
        ) from None
    check(status, "hipInit (is there an AMD GPU?)")
    count = check(hip.hipGetDeviceCount(), "hipGetDeviceCount")
    if ordinal >= count:
        raise LaunchError(f"HIP device {ordinal} requested, {count} present")
    check(hip.hipSetDevice(ordinal), "hipSetDevice")
    return ordinal


def device_arch(ordinal: int = 0) -> str:
    """The architecture of HIP device `ordinal` as the amdgpu target's `arch`
    option (gfx90a), to compile code objects that this device loads."""
    hip = _runtime()
    start_runtime(ordinal)
    props = hip.hipDeviceProp_t()
    check(hip.hipGetDeviceProperties(props, ordinal), "hipGetDeviceProperties")
    name = props.gcnArchName
    text = name.decode() if isinstance(name, bytes) else str(name)
    return text.split(":", 1)[0]  # gfx90a:sramecc+:xnack- names target features


class HipExecutor(RecordingExecutor):
    """Loads one HSA code object on one HIP device and launches its kernels."""

    dlpack_device_type = 10
    fault_note = (
        "a fault inside a kernel may leave this process's HIP runtime unusable: "
        "restart the process"
    )

    def __init__(
        self,
        code: bytes,
        kernels: Mapping[str, KernelSignature],
        *,
        device: int = 0,
    ) -> None:
        super().__init__(kernels)
        self.hip = _runtime()
        self.device = start_runtime(device)
        self._image = bytes(code)  # alive as long as the module, to be safe
        self.module = check(
            self.hip.hipModuleLoadData(self._image),
            "loading gpuc's code object (hipModuleLoadData)",
        )

    def _find_function(self, name: str, symbol: bytes) -> Any:
        self.make_current()
        return check(
            self.hip.hipModuleGetFunction(self.module, symbol),
            f"finding kernel '{name}' in the code object (hipModuleGetFunction)",
        )

    def _function_max_threads(self, function: Any) -> int:
        hip = self.hip
        return int(
            check(
                hip.hipFuncGetAttribute(
                    hip.hipFunction_attribute.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                    function,
                ),
                "hipFuncGetAttribute",
            )
        )

    def _limit_attributes(self) -> LimitAttributes:
        attr = self.hip.hipDeviceAttribute_t
        return LimitAttributes(
            max_block_threads=attr.hipDeviceAttributeMaxThreadsPerBlock,
            max_block=(
                attr.hipDeviceAttributeMaxBlockDimX,
                attr.hipDeviceAttributeMaxBlockDimY,
                attr.hipDeviceAttributeMaxBlockDimZ,
            ),
            max_grid=(
                attr.hipDeviceAttributeMaxGridDimX,
                attr.hipDeviceAttributeMaxGridDimY,
                attr.hipDeviceAttributeMaxGridDimZ,
            ),
            max_shared_bytes=attr.hipDeviceAttributeMaxSharedMemoryPerBlock,
        )

    def _device_attribute(self, attribute: Any) -> int:
        return int(
            check(
                self.hip.hipDeviceGetAttribute(attribute, self.device), str(attribute)
            )
        )

    def _copy_to_device(self, pointer: int, host: int, nbytes: int, what: str) -> None:
        kind = self.hip.hipMemcpyKind.hipMemcpyHostToDevice
        check(self.hip.hipMemcpy(pointer, host, nbytes, kind), what)

    def _copy_from_device(
        self, host: int, pointer: int, nbytes: int, what: str
    ) -> None:
        kind = self.hip.hipMemcpyKind.hipMemcpyDeviceToHost
        check(self.hip.hipMemcpy(host, pointer, nbytes, kind), what)

    def _launch_kernel(
        self,
        name: str,
        dims: tuple[int, ...],
        stream: Any,
        params: int | None,
        shared: int = 0,
    ) -> None:
        check(
            self.hip.hipModuleLaunchKernel(
                self.function(name), *dims, shared, stream, params, None
            ),
            f"launching kernel '{name}' (hipModuleLaunchKernel)",
        )

    @property
    def owner(self) -> Any:
        return ("hip", self.device)

    def _copy_async(
        self, to_device: bool, dst: int, src: int, nbytes: int, stream: Any
    ) -> None:
        kinds = self.hip.hipMemcpyKind
        kind = kinds.hipMemcpyHostToDevice if to_device else kinds.hipMemcpyDeviceToHost
        check(self.hip.hipMemcpyAsync(dst, src, nbytes, kind, stream), "hipMemcpyAsync")

    def _stream_create(self) -> Any:
        return check(self.hip.hipStreamCreate(), "hipStreamCreate")

    def _stream_destroy(self, stream: Any) -> None:
        check(self.hip.hipStreamDestroy(stream), "hipStreamDestroy")

    def _stream_synchronize(self, stream: Any, what: str) -> None:
        check(self.hip.hipStreamSynchronize(stream), what)

    def _event_create(self) -> Any:
        return check(self.hip.hipEventCreate(), "hipEventCreate")

    def _event_destroy(self, event: Any) -> None:
        check(self.hip.hipEventDestroy(event), "hipEventDestroy")

    def _event_record(self, event: Any, stream: Any) -> None:
        check(self.hip.hipEventRecord(event, stream), "hipEventRecord")

    def _event_synchronize(self, event: Any) -> None:
        check(self.hip.hipEventSynchronize(event), "waiting for an event")

    def _event_elapsed_ms(self, start: Any, end: Any) -> float:
        return float(
            check(self.hip.hipEventElapsedTime(start, end), "hipEventElapsedTime")
        )

    def make_current(self) -> None:
        """Make this executor's device current in the calling OS thread (HIP's
        current device is per thread; Python threads each need it)."""
        check(self.hip.hipSetDevice(self.device), "hipSetDevice")

    def _alloc(self, nbytes: int) -> int:
        return int(check(self.hip.hipMalloc(nbytes), "hipMalloc"))

    def free(self, pointer: int) -> None:
        check(self.hip.hipFree(pointer), "hipFree")

    def _synchronize(self, what: str) -> None:
        check(self.hip.hipDeviceSynchronize(), what)

    def close(self) -> None:
        if self.module is not None:
            self.hip.hipModuleUnload(self.module)
            self.module = None
