"""The amdgpu executor: loads gpuc's HSA code object (`.hsaco`) with the HIP
runtime through `hip-python` (pip install 'gpuc[hip]'), copies arrays in,
launches, and copies them back.

Arguments go to `hipModuleLaunchKernel` as `kernelParams`, an array of
pointers to each argument's bytes, as the CUDA executor passes them: the HIP
runtime lays them out by the code object's kernel metadata, so gpuc never
restates AMDGPU's kernel-argument alignment.

Every HIP error becomes a `LaunchError` with the error's name and
`hipGetErrorString`'s text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gpuc.runtime.args import (
    KernelSignature,
    LaunchError,
    Limits,
    check_launch,
    find_kernel,
)


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


class HipExecutor:
    """Loads one HSA code object on one HIP device and launches its kernels."""

    code_field = "artefact"

    def __init__(
        self,
        code: bytes,
        kernels: Mapping[str, KernelSignature],
        *,
        device: int = 0,
    ) -> None:
        self.kernels = dict(kernels)
        self.hip = _runtime()
        self.device = start_runtime(device)
        self._image = bytes(code)  # alive as long as the module, to be safe
        self.module = check(
            self.hip.hipModuleLoadData(self._image),
            "loading gpuc's code object (hipModuleLoadData)",
        )
        self._functions: dict[str, Any] = {}
        self._limits: dict[str, Limits] = {}

    def function(self, name: str) -> Any:
        """The hipFunction_t of kernel `name`."""
        sig = find_kernel(self.kernels, name)
        if name not in self._functions:
            self.make_current()
            symbol = sig.launch_symbol.encode()
            self._functions[name] = check(
                self.hip.hipModuleGetFunction(self.module, symbol),
                f"finding kernel '{name}' in the code object (hipModuleGetFunction)",
            )
        return self._functions[name]

    def limits(self, name: str) -> Limits:
        if name not in self._limits:
            hip = self.hip
            attr = hip.hipDeviceAttribute_t
            get: Callable[[Any], int] = lambda a: int(  # noqa: E731
                check(hip.hipDeviceGetAttribute(a, self.device), str(a))
            )
            per_function = int(
                check(
                    hip.hipFuncGetAttribute(
                        hip.hipFunction_attribute.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                        self.function(name),
                    ),
                    "hipFuncGetAttribute",
                )
            )
            self._limits[name] = Limits(
                max_block_threads=min(
                    per_function, get(attr.hipDeviceAttributeMaxThreadsPerBlock)
                ),
                max_block=(
                    get(attr.hipDeviceAttributeMaxBlockDimX),
                    get(attr.hipDeviceAttributeMaxBlockDimY),
                    get(attr.hipDeviceAttributeMaxBlockDimZ),
                ),
                max_grid=(
                    get(attr.hipDeviceAttributeMaxGridDimX),
                    get(attr.hipDeviceAttributeMaxGridDimY),
                    get(attr.hipDeviceAttributeMaxGridDimZ),
                ),
                max_shared_bytes=get(attr.hipDeviceAttributeMaxSharedMemoryPerBlock),
            )
        return self._limits[name]

    def launch_raw(
        self,
        name: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        values: Sequence[Any],
        stream: Any = None,
    ) -> None:
        """Launch with already-checked values: numpy scalars, and device
        pointers as ints for pointer parameters. No copies, no synchronize."""
        boxes = [
            np.array([value], np.uint64)
            if isinstance(value, int)
            else np.array([value])
            for value in values
        ]
        pointers = np.array([box.ctypes.data for box in boxes], np.uint64)
        check(
            self.hip.hipModuleLaunchKernel(
                self.function(name),
                *grid,
                *block,
                0,
                stream,
                int(pointers.ctypes.data) if boxes else None,
                None,
            ),
            f"launching kernel '{name}' (hipModuleLaunchKernel)",
        )

    def make_current(self) -> None:
        """Make this executor's device current in the calling OS thread (HIP's
        current device is per thread; Python threads each need it)."""
        check(self.hip.hipSetDevice(self.device), "hipSetDevice")

    def alloc(self, nbytes: int) -> int:
        self.make_current()
        return int(check(self.hip.hipMalloc(max(1, nbytes)), "hipMalloc"))

    def free(self, pointer: int) -> None:
        check(self.hip.hipFree(pointer), "hipFree")

    def synchronize(self, what: str) -> None:
        try:
            check(self.hip.hipDeviceSynchronize(), what)
        except LaunchError as error:
            raise LaunchError(
                f"{error} (a fault inside a kernel may leave this process's HIP "
                "runtime unusable: restart the process)"
            ) from None

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        self.make_current()
        launch = check_launch(self.kernels, name, grid, block, args, self.limits)
        hip = self.hip
        kind = hip.hipMemcpyKind
        pointers: dict[int, int] = {}
        try:
            for param, array in launch.arrays():
                if id(array) in pointers:  # passed twice: one buffer, aliased
                    continue
                pointers[id(array)] = pointer = self.alloc(array.nbytes)
                if array.nbytes:
                    check(
                        hip.hipMemcpy(
                            pointer,
                            array.ctypes.data,
                            array.nbytes,
                            kind.hipMemcpyHostToDevice,
                        ),
                        f"copying argument '{param.name}' to the device",
                    )
            values = [pointers.get(id(v), v) for v in launch.values]
            self.launch_raw(name, launch.grid, launch.block, values)
            self.synchronize(f"running kernel '{name}'")
            for param, array in launch.arrays():
                if param.written and array.nbytes:
                    check(
                        hip.hipMemcpy(
                            array.ctypes.data,
                            pointers[id(array)],
                            array.nbytes,
                            kind.hipMemcpyDeviceToHost,
                        ),
                        f"copying argument '{param.name}' back from the device",
                    )
        finally:
            for pointer in pointers.values():
                hip.hipFree(pointer)

    def close(self) -> None:
        if self.module is not None:
            self.hip.hipModuleUnload(self.module)
            self.module = None
