"""A stand-in for `cuda.bindings.driver` on machines without a GPU, so the
ptx executor's own logic (parameter packing, copies, limits, linking, error
handling) runs in the tests. It uses cuda-bindings' real enums and return
conventions; "device memory" is host memory, and a kernel is a Python
function that reads its parameters from the `kernelParams` array exactly as
the driver does (an array of pointers to each argument's bytes).

Streams are asynchronous as on a GPU: work queued on a stream runs only when
something waits for it (cuStreamSynchronize, cuEventSynchronize,
cuCtxSynchronize, or a synchronous copy or launch on the legacy null stream,
which waits for every stream first), so reading results too early shows. Each
kernel advances a fake clock by `kernel_ms`, which events record."""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from cuda.bindings import driver as real

CUresult = real.CUresult
CUjit_option = real.CUjit_option
CUjitInputType = real.CUjitInputType
CUdevice_attribute = real.CUdevice_attribute
CUfunction_attribute = real.CUfunction_attribute
CUstream_flags = real.CUstream_flags
CUevent_flags = real.CUevent_flags
OK = CUresult.CUDA_SUCCESS

Kernel = Callable[[tuple[int, int, int], tuple[int, int, int], list[int]], CUresult]
"""kernel(grid, block, addresses of the argument bytes) -> status."""


class FakeDriver:
    def __init__(self, kernels: dict[str, Kernel], max_threads: int = 1024) -> None:
        self.kernels = kernels
        self.max_threads = max_threads
        self.memory: dict[int, np.ndarray[Any, Any]] = {}
        self.images: dict[int, bytes] = {}
        self.links: list[list[tuple[Any, bytes]]] = []
        self.pending: CUresult = OK
        self.current: object = None
        for name in ("CUresult", "CUjit_option", "CUjitInputType"):
            setattr(self, name, globals()[name])
        self.CUdevice_attribute = CUdevice_attribute
        self.CUfunction_attribute = CUfunction_attribute
        self.CUstream_flags = CUstream_flags
        self.CUevent_flags = CUevent_flags
        self.streams: dict[int, list[Callable[[], None]]] = {}
        self.events: dict[int, float | None] = {}
        self.clock = 0.0
        self.kernel_ms = 1.5
        self.launches: list[tuple[str, int, int]] = []
        self.memsets: list[tuple[int, int]] = []  # (element bytes, count)
        """(function, dynamic shared bytes, stream) per launch."""

    def cuGetErrorName(self, status: CUresult) -> tuple[CUresult, bytes]:
        return OK, status.name.encode()

    def cuInit(self, flags: int) -> tuple[CUresult]:
        return (OK,)

    def cuDeviceGetCount(self) -> tuple[CUresult, int]:
        return OK, 1

    def cuDeviceGet(self, ordinal: int) -> tuple[CUresult, int]:
        return OK, ordinal

    def cuDevicePrimaryCtxRetain(self, device: int) -> tuple[CUresult, str]:
        return OK, "context"

    def cuCtxSetCurrent(self, context: object) -> tuple[CUresult]:
        self.current = context
        return (OK,)

    def cuDeviceGetAttribute(self, attr: Any, device: int) -> tuple[CUresult, int]:
        a = CUdevice_attribute
        values = {
            a.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
            a.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: 1024,
            a.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: 1024,
            a.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: 64,
            a.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: 2**31 - 1,
            a.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: 65535,
            a.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: 65535,
            a.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 48 * 1024,
            a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 9,
            a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: 0,
        }
        return OK, values[attr]

    def _entries(self, text: bytes) -> list[str]:
        return re.findall(r"\.entry\s+([\w$]+)\s*\(", text.decode())

    def cuModuleLoadDataEx(
        self, image: bytes | int, count: int, options: list[Any], values: list[Any]
    ) -> tuple[CUresult, Any]:
        assert count == len(options) == len(values)
        if isinstance(image, int):
            text = self.images[image]
        else:
            assert image.endswith(b"\0"), "PTX must be NUL-terminated"
            text = image[:-1]
        externs = re.findall(rb"\.extern\s+\.func\s*(?:\([^)]*\))?\s*([\w$]+)", text)
        # The driver itself provides vprintf (what nvcc's printf calls); other
        # device-runtime calls need libcudadevrt linked.
        if any(name != b"vprintf" for name in externs):
            log = values[options.index(CUjit_option.CU_JIT_ERROR_LOG_BUFFER)]
            log[:11] = b"unresolved\0"
            return CUresult.CUDA_ERROR_INVALID_PTX, None
        return OK, {"entries": self._entries(text)}

    def cuLinkCreate(self, count: int, options: list[Any], values: list[Any]) -> Any:
        self.links.append([])
        return OK, len(self.links) - 1

    def cuLinkAddData(
        self, state: int, kind: Any, data: bytes, size: int, *rest: Any
    ) -> Any:
        assert len(data) == size and data.endswith(b"\0")
        self.links[state].append((kind, data[:-1]))
        return (OK,)

    def cuLinkAddFile(self, state: int, kind: Any, path: bytes, *rest: Any) -> Any:
        self.links[state].append((kind, path))
        return (OK,)

    def cuLinkComplete(self, state: int) -> tuple[CUresult, int, int]:
        kinds = [kind for kind, _ in self.links[state]]
        assert CUjitInputType.CU_JIT_INPUT_LIBRARY in kinds, "not linked with cudadevrt"
        ptx = next(
            d for k, d in self.links[state] if k == CUjitInputType.CU_JIT_INPUT_PTX
        )
        linked = re.sub(rb"\.extern \.func[^;]*;", b"", ptx)
        address = 0x1000 + state
        self.images[address] = linked
        return OK, address, len(linked)

    def cuLinkDestroy(self, state: int) -> tuple[CUresult]:
        return (OK,)

    def cuModuleGetFunction(self, module: Any, name: bytes) -> tuple[CUresult, Any]:
        if name.decode() not in module["entries"]:
            return CUresult.CUDA_ERROR_NOT_FOUND, None
        return OK, name.decode()

    def cuFuncGetAttribute(self, attr: Any, function: str) -> tuple[CUresult, int]:
        assert attr == CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        return OK, self.max_threads

    def cuMemAlloc(self, nbytes: int) -> tuple[CUresult, int]:
        assert nbytes > 0, "cuMemAlloc(0) is an error on the real driver"
        buffer = np.full(nbytes, 0xAB, np.uint8)  # device memory is not cleared
        self.memory[buffer.ctypes.data] = buffer
        return OK, buffer.ctypes.data

    def _inside(self, pointer: int, nbytes: int) -> bool:
        """Whether `nbytes` from `pointer` lie in one allocation (a device
        array's view starts inside one)."""
        return any(
            start <= pointer and pointer + nbytes <= start + buffer.nbytes
            for start, buffer in self.memory.items()
        )

    def cuMemFree(self, pointer: int) -> tuple[CUresult]:
        del self.memory[pointer]
        return (OK,)

    def _drain(self) -> None:
        """Run everything queued on every stream (what the null stream waits for)."""
        for handle in list(self.streams):
            self._run(handle)

    def _run(self, handle: int) -> None:
        queued, self.streams[handle] = self.streams[handle], []
        for work in queued:
            work()

    def _on(self, stream: Any, work: Callable[[], None]) -> None:
        handle = int(stream)
        if handle == 0:
            self._drain()
            work()
        else:
            assert handle in self.streams, "not a live stream"
            self.streams[handle].append(work)

    def cuMemcpyHtoD(self, device: int, host: int, nbytes: int) -> tuple[CUresult]:
        assert self._inside(device, nbytes)
        self._drain()
        ctypes.memmove(device, host, nbytes)
        return (OK,)

    def cuMemcpyDtoH(self, host: int, device: int, nbytes: int) -> tuple[CUresult]:
        assert self._inside(device, nbytes)
        self._drain()
        ctypes.memmove(host, device, nbytes)
        return (OK,)

    def cuMemcpyHtoDAsync(
        self, device: int, host: int, nbytes: int, stream: Any
    ) -> tuple[CUresult]:
        assert self._inside(device, nbytes)
        self._on(stream, lambda: ctypes.memmove(device, host, nbytes))
        return (OK,)

    def cuMemcpyDtoHAsync(
        self, host: int, device: int, nbytes: int, stream: Any
    ) -> tuple[CUresult]:
        assert self._inside(device, nbytes)
        self._on(stream, lambda: ctypes.memmove(host, device, nbytes))
        return (OK,)

    def _memset(
        self, width: int, device: int, pattern: int, count: int, stream: Any
    ) -> tuple[CUresult]:
        assert self._inside(device, count * width)
        self.memsets.append((width, count))
        bytes_ = np.array([pattern], f"<u{width}").tobytes() * count
        self._on(stream, lambda: ctypes.memmove(device, bytes_, len(bytes_)))
        return (OK,)

    def cuMemsetD8Async(self, *args: Any) -> tuple[CUresult]:
        return self._memset(1, *args)

    def cuMemsetD16Async(self, *args: Any) -> tuple[CUresult]:
        return self._memset(2, *args)

    def cuMemsetD32Async(self, *args: Any) -> tuple[CUresult]:
        return self._memset(4, *args)

    def cuStreamCreate(self, flags: Any) -> tuple[CUresult, int]:
        handle = 0x5000 + len(self.streams) + 1
        while handle in self.streams:
            handle += 1
        self.streams[handle] = []
        return OK, handle

    def cuStreamDestroy(self, stream: int) -> tuple[CUresult]:
        self._run(stream)  # the driver lets queued work finish
        del self.streams[stream]
        return (OK,)

    def cuStreamSynchronize(self, stream: Any) -> tuple[CUresult]:
        if int(stream) == 0:
            self._drain()
        else:
            self._run(int(stream))
        status, self.pending = self.pending, OK
        return (status,)

    def cuEventCreate(self, flags: Any) -> tuple[CUresult, int]:
        handle = 0x9000 + len(self.events) + 1
        while handle in self.events:
            handle += 1
        self.events[handle] = None
        return OK, handle

    def cuEventDestroy(self, event: int) -> tuple[CUresult]:
        del self.events[event]
        return (OK,)

    def cuEventRecord(self, event: int, stream: Any) -> tuple[CUresult]:
        self.events[event] = None

        def reached() -> None:
            self.events[event] = self.clock

        self._on(0 if stream is None else stream, reached)
        return (OK,)

    def cuEventSynchronize(self, event: int) -> tuple[CUresult]:
        self._drain()
        return (OK,)

    def cuEventElapsedTime(self, start: int, end: int) -> tuple[CUresult, float]:
        begin, finish = self.events[start], self.events[end]
        if begin is None or finish is None:
            return CUresult.CUDA_ERROR_NOT_READY, 0.0
        return OK, finish - begin

    def cuLaunchKernel(
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
        params: int,
        extra: int,
    ) -> tuple[CUresult]:
        assert self.current is not None, "no current context in this thread"
        kernel = self.kernels[function]
        addresses = ctypes.cast(params, ctypes.POINTER(ctypes.c_uint64))
        arity: int = getattr(kernel, "arity")  # noqa: B009
        # The driver copies the parameters at launch; the caller may free them.
        args = [
            np.frombuffer(ctypes.string_at(addresses[i], 8), np.uint8).copy()
            for i in range(arity)
        ]
        self.launches.append((function, shared, int(stream)))

        def run() -> None:
            status = kernel((gx, gy, gz), (bx, by, bz), [a.ctypes.data for a in args])
            self.clock += self.kernel_ms
            if self.pending == OK:
                self.pending = status

        self._on(stream, run)
        return (OK,)

    def cuCtxSynchronize(self) -> tuple[CUresult]:
        self._drain()
        status, self.pending = self.pending, OK
        return (status,)


def read(address: int, ctype: Any) -> Any:
    return ctype.from_address(address).value


def device_array(pointer: int, dtype: Any, count: int) -> np.ndarray[Any, Any]:
    buffer = (ctypes.c_uint8 * (count * np.dtype(dtype).itemsize)).from_address(pointer)
    return np.frombuffer(buffer, dtype)


def saxpy(
    grid: tuple[int, int, int], block: tuple[int, int, int], args: list[int]
) -> CUresult:
    """saxpy(a: f32, x: ptr, y: ptr, n: i32) as the PTX would run it."""
    a = read(args[0], ctypes.c_float)
    x_ptr, y_ptr = read(args[1], ctypes.c_uint64), read(args[2], ctypes.c_uint64)
    n = read(args[3], ctypes.c_int32)
    threads = min(n, grid[0] * block[0])
    x, y = (
        device_array(x_ptr, np.float32, threads),
        device_array(y_ptr, np.float32, threads),
    )
    y[:] = np.float32(a) * x + y
    return OK


saxpy.arity = 4  # type: ignore[attr-defined]


def child_launch(grid: Any, block: Any, args: list[int]) -> CUresult:
    """child_launch(x: ptr, n: i32): the child doubles x[0:n]."""
    x = device_array(
        read(args[0], ctypes.c_uint64), np.float32, read(args[1], ctypes.c_int32)
    )
    x *= 2
    return OK


child_launch.arity = 2  # type: ignore[attr-defined]


def faulting(grid: Any, block: Any, args: list[int]) -> CUresult:
    return CUresult.CUDA_ERROR_ILLEGAL_ADDRESS


faulting.arity = 4  # type: ignore[attr-defined]
