"""A stand-in for hip-python's `hip.hip` on machines without an AMD GPU, so
the amdgpu executor's own logic (argument packing, copies, limits, error
handling) runs in the tests. It has hip-python's return conventions (a tuple
whose first item is a `hipError_t`) and enum names; "device memory" is host
memory, and a kernel is a Python function that gets each argument's bytes
as the runtime reads them from `kernelParams` (an array of pointers to each
argument's bytes, sized by the code object's kernel metadata)."""

from __future__ import annotations

import ctypes
import enum
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Dim3 = tuple[int, int, int]


class hipError_t(enum.IntEnum):
    hipSuccess = 0
    hipErrorInvalidValue = 1
    hipErrorOutOfMemory = 2
    hipErrorNoDevice = 100
    hipErrorInvalidDevice = 101
    hipErrorInvalidImage = 200
    hipErrorNotFound = 500
    hipErrorIllegalAddress = 700


ERROR_STRINGS = {
    hipError_t.hipSuccess: b"no error",
    hipError_t.hipErrorInvalidValue: b"invalid argument",
    hipError_t.hipErrorOutOfMemory: b"out of memory",
    hipError_t.hipErrorNoDevice: b"no ROCm-capable device is detected",
    hipError_t.hipErrorInvalidDevice: b"invalid device ordinal",
    hipError_t.hipErrorInvalidImage: b"device kernel image is invalid",
    hipError_t.hipErrorNotFound: b"named symbol not found",
    hipError_t.hipErrorIllegalAddress: b"an illegal memory access was encountered",
}
OK = hipError_t.hipSuccess

hipDeviceAttribute_t = enum.IntEnum(
    "hipDeviceAttribute_t",
    [
        f"hipDeviceAttribute{name}"
        for name in (
            "MaxThreadsPerBlock",
            "MaxBlockDimX",
            "MaxBlockDimY",
            "MaxBlockDimZ",
            "MaxGridDimX",
            "MaxGridDimY",
            "MaxGridDimZ",
            "MaxSharedMemoryPerBlock",
        )
    ],
)


class hipFunction_attribute(enum.IntEnum):
    HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1


class hipMemcpyKind(enum.IntEnum):
    hipMemcpyHostToDevice = 1
    hipMemcpyDeviceToHost = 2


class hipDeviceProp_t:
    gcnArchName = b"gfx90a:sramecc+:xnack-"


@dataclass(frozen=True)
class Kernel:
    """A kernel as the fake runs it: its parameters' sizes in bytes (what the
    code object's metadata tells the runtime) and a Python body."""

    sizes: tuple[int, ...]
    body: Callable[[Dim3, Dim3, list[bytes]], hipError_t]


def code_object(*symbols: str) -> bytes:
    """Bytes the fake loads like an HSA code object defining `symbols`: an
    ELF magic and each kernel descriptor's name (`<symbol>.kd`), as in a
    real code object's string table."""
    return b"\x7fELF\0" + b"".join(f"{s}.kd\0".encode() for s in symbols)


class FakeHip:
    hipError_t = hipError_t
    hipDeviceAttribute_t = hipDeviceAttribute_t
    hipFunction_attribute = hipFunction_attribute
    hipMemcpyKind = hipMemcpyKind
    hipDeviceProp_t = hipDeviceProp_t

    def __init__(self, kernels: dict[str, Kernel], devices: int = 1) -> None:
        self.kernels = kernels
        self.devices = devices
        self.max_threads = 1024
        self.init_error: Exception | None = None
        self.failing: dict[str, hipError_t] = {}
        """Calls made to fail, by name, with the status they return."""
        self.memory: dict[int, np.ndarray[Any, Any]] = {}
        self.modules: dict[int, list[str]] = {}
        self.launches: list[tuple[str, Dim3, Dim3, list[bytes]]] = []
        self.pending = OK
        self.thread = threading.local()
        self.streams: list[int] = []
        self.events: dict[int, float] = {}

    def _failure(self, call: str) -> hipError_t | None:
        return self.failing.get(call)

    def hipGetErrorString(self, status: hipError_t) -> tuple[hipError_t, bytes]:
        return OK, ERROR_STRINGS[status]

    def hipInit(self, flags: int) -> tuple[hipError_t]:
        if self.init_error is not None:
            raise self.init_error
        return (OK if self.devices else hipError_t.hipErrorNoDevice,)

    def hipGetDeviceCount(self) -> tuple[hipError_t, int]:
        return OK, self.devices

    def hipSetDevice(self, ordinal: int) -> tuple[hipError_t]:
        if not 0 <= ordinal < self.devices:
            return (hipError_t.hipErrorInvalidDevice,)
        self.thread.device = ordinal
        return (OK,)

    def hipGetDeviceProperties(
        self, props: hipDeviceProp_t, ordinal: int
    ) -> tuple[hipError_t]:
        return (OK,)

    def hipDeviceGetAttribute(self, attr: Any, ordinal: int) -> tuple[hipError_t, int]:
        a = hipDeviceAttribute_t
        values = {
            a.hipDeviceAttributeMaxThreadsPerBlock: 1024,
            a.hipDeviceAttributeMaxBlockDimX: 1024,
            a.hipDeviceAttributeMaxBlockDimY: 1024,
            a.hipDeviceAttributeMaxBlockDimZ: 1024,
            a.hipDeviceAttributeMaxGridDimX: 2**31 - 1,
            a.hipDeviceAttributeMaxGridDimY: 65536,
            a.hipDeviceAttributeMaxGridDimZ: 65536,
            a.hipDeviceAttributeMaxSharedMemoryPerBlock: 64 * 1024,
        }
        return OK, values[attr]

    def hipModuleLoadData(self, image: bytes) -> tuple[hipError_t, int | None]:
        if not image.startswith(b"\x7fELF"):
            return hipError_t.hipErrorInvalidImage, None
        handle = 0x1000 + len(self.modules)
        found = re.findall(rb"(?<=\0)([^\0]+)\.kd(?=\0)", image)
        self.modules[handle] = [symbol.decode() for symbol in found]
        return OK, handle

    def hipModuleUnload(self, module: int) -> tuple[hipError_t]:
        del self.modules[module]
        return (OK,)

    def hipModuleGetFunction(
        self, module: int, name: bytes
    ) -> tuple[hipError_t, str | None]:
        if name.decode() not in self.modules[module]:
            return hipError_t.hipErrorNotFound, None
        return OK, name.decode()

    def hipFuncGetAttribute(self, attr: Any, function: str) -> tuple[hipError_t, int]:
        assert attr == hipFunction_attribute.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        return OK, self.max_threads

    def hipMalloc(self, nbytes: int) -> tuple[hipError_t, int | None]:
        if status := self._failure("hipMalloc"):
            return status, None
        assert nbytes > 0, "hipMalloc(0) gives a null pointer"
        buffer = np.full(nbytes, 0xAB, np.uint8)  # device memory is not cleared
        self.memory[buffer.ctypes.data] = buffer
        return OK, buffer.ctypes.data

    def hipFree(self, pointer: int) -> tuple[hipError_t]:
        if self.memory.pop(pointer, None) is None:
            return (hipError_t.hipErrorInvalidValue,)
        return (OK,)

    def hipMemcpy(
        self, dst: int, src: int, nbytes: int, kind: hipMemcpyKind
    ) -> tuple[hipError_t]:
        if status := self._failure("hipMemcpy"):
            return (status,)
        device = dst if kind == hipMemcpyKind.hipMemcpyHostToDevice else src
        assert any(  # inside one allocation (a device array's view starts inside)
            start <= device and device + nbytes <= start + buffer.nbytes
            for start, buffer in self.memory.items()
        )
        ctypes.memmove(dst, src, nbytes)
        return (OK,)

    def hipModuleLaunchKernel(
        self,
        function: str,
        gx: int,
        gy: int,
        gz: int,
        bx: int,
        by: int,
        bz: int,
        shared: int,
        stream: Any,
        kernelParams: int | None,
        extra: Any,
    ) -> tuple[hipError_t]:
        assert getattr(self.thread, "device", None) is not None, (
            "no current device in this thread"
        )
        assert extra is None, "arguments are passed as kernelParams"
        kernel = self.kernels[function]
        addresses = ctypes.cast(kernelParams or 0, ctypes.POINTER(ctypes.c_uint64))
        args = [
            ctypes.string_at(addresses[i], size) for i, size in enumerate(kernel.sizes)
        ]
        self.launches.append((function, (gx, gy, gz), (bx, by, bz), args))
        self.pending = kernel.body((gx, gy, gz), (bx, by, bz), args)
        return (OK,)

    # Streams run their work at once here (tests/fake_cuda_driver.py models
    # asynchrony); events read a clock each launch advances by 1 ms.
    def hipMemcpyAsync(
        self, dst: int, src: int, nbytes: int, kind: hipMemcpyKind, stream: Any
    ) -> tuple[hipError_t]:
        assert stream in self.streams, "not a live stream"
        return self.hipMemcpy(dst, src, nbytes, kind)

    def hipStreamCreate(self) -> tuple[hipError_t, int]:
        self.streams.append(0x5000 + len(self.streams))
        return OK, self.streams[-1]

    def hipStreamDestroy(self, stream: int) -> tuple[hipError_t]:
        self.streams.remove(stream)
        return (OK,)

    def hipStreamSynchronize(self, stream: int) -> tuple[hipError_t]:
        return self.hipDeviceSynchronize()

    def hipEventCreate(self) -> tuple[hipError_t, int]:
        handle = 0x9000 + len(self.events)
        self.events[handle] = 0.0
        return OK, handle

    def hipEventDestroy(self, event: int) -> tuple[hipError_t]:
        del self.events[event]
        return (OK,)

    def hipEventRecord(self, event: int, stream: Any) -> tuple[hipError_t]:
        self.events[event] = float(len(self.launches))
        return (OK,)

    def hipEventSynchronize(self, event: int) -> tuple[hipError_t]:
        return (OK,)

    def hipEventElapsedTime(self, start: int, end: int) -> tuple[hipError_t, float]:
        return OK, self.events[end] - self.events[start]

    def hipDeviceSynchronize(self) -> tuple[hipError_t]:
        status, self.pending = self.pending, OK
        return (status,)


def scalar(data: bytes, dtype: Any) -> Any:
    return np.frombuffer(data, dtype)[0]


def device_array(pointer: bytes, dtype: Any, count: int) -> np.ndarray[Any, Any]:
    """The `count` elements at the device pointer passed as `pointer`."""
    address = int.from_bytes(pointer, "little")
    buffer = (ctypes.c_uint8 * (count * np.dtype(dtype).itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype)


def saxpy_body(grid: Dim3, block: Dim3, args: list[bytes]) -> hipError_t:
    """saxpy(a: f32, x: ptr, y: ptr, n: i32) as the code object would run it."""
    a, n = scalar(args[0], np.float32), int(scalar(args[3], np.int32))
    threads = min(n, grid[0] * block[0])
    x = device_array(args[1], np.float32, threads)
    y = device_array(args[2], np.float32, threads)
    y[:] = a * x + y
    return OK


SAXPY = Kernel((4, 8, 8, 4), saxpy_body)


def faulting(grid: Dim3, block: Dim3, args: list[bytes]) -> hipError_t:
    return hipError_t.hipErrorIllegalAddress
