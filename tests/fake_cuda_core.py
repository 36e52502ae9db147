"""A stand-in for `cuda.core` on machines without a GPU, so the ptx
executor's own logic runs in the tests: the classes and calls of cuda.core
that gpuc/runtime/cuda.py uses, each made of the driver calls cuda.core
makes, on tests/fake_cuda_driver.py (whose memory, streams, events, clock
and Python kernels it keeps). An error is raised as cuda.core raises one:
an exception whose message starts with the driver's error name.

`install(monkeypatch, driver)` puts it in place of cuda.core for the ptx
executor."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from fake_cuda_driver import OK, CUdevice_attribute, CUjit_option, FakeDriver


class CUDAError(RuntimeError):
    """What cuda.core raises for a failed driver call."""


def checked(result: tuple[Any, ...]) -> Any:
    status, *rest = result
    if status != OK:
        raise CUDAError(f"{status.name}: the stand-in driver refused")
    return rest[0] if len(rest) == 1 else (tuple(rest) or None)


@dataclass(frozen=True)
class LaunchConfig:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shmem_size: int = 0


@dataclass(frozen=True)
class EventOptions:
    timing_enabled: bool = False


@dataclass(frozen=True)
class LinkerOptions:
    arch: str


class FakeCore:
    """The `cuda.core` module as gpuc uses it, over `driver`."""

    def __init__(self, driver: FakeDriver) -> None:
        self.driver = driver
        core = self
        self.LaunchConfig = LaunchConfig
        self.EventOptions = EventOptions
        self.LinkerOptions = LinkerOptions
        self.links: list[list[tuple[str, Any]]] = []
        """What each Linker was given: ("ptx", text) or ("library", path)."""

        class Stream:
            def __init__(self, handle: int) -> None:
                self.handle = handle

            def sync(self) -> None:
                checked(driver.cuStreamSynchronize(self.handle))

            def close(self) -> None:
                checked(driver.cuStreamDestroy(self.handle))

            def record(self, event: Any) -> Any:
                checked(driver.cuEventRecord(event.handle, self.handle))
                return event

        class Event:
            def __init__(self, handle: int, timing: bool) -> None:
                self.handle, self.timing = handle, timing

            def sync(self) -> None:
                checked(driver.cuEventSynchronize(self.handle))

            def close(self) -> None:
                checked(driver.cuEventDestroy(self.handle))

            def __sub__(self, start: Any) -> float:
                if not (self.timing and start.timing):
                    raise CUDAError("CUDA_ERROR_INVALID_HANDLE: timing disabled")
                return float(
                    checked(driver.cuEventElapsedTime(start.handle, self.handle))
                )

        class Buffer:
            def __init__(self, handle: int, size: int, owned: bool) -> None:
                self.handle, self.size, self.owned = handle, size, owned

            @staticmethod
            def from_handle(handle: int, size: int) -> Buffer:
                return Buffer(int(handle), size, False)

            def copy_from(self, src: Buffer, *, stream: Stream) -> None:
                assert src.size == self.size
                device_dst = driver._inside(self.handle, self.size)
                device_src = driver._inside(src.handle, src.size)
                if device_dst and device_src:  # the driver's cuMemcpyDtoDAsync
                    dst, source, size = self.handle, src.handle, self.size

                    def copy_on_device() -> None:
                        ctypes.memmove(dst, source, size)
                        driver.clock += driver.kernel_ms  # as long as a kernel

                    driver._on(stream.handle, copy_on_device)
                    return
                assert device_dst or device_src, "host to host"
                if device_dst:
                    copy = driver.cuMemcpyHtoDAsync
                else:
                    copy = driver.cuMemcpyDtoHAsync
                checked(copy(self.handle, src.handle, self.size, stream.handle))

            def fill(self, value: np.ndarray[Any, Any], *, stream: Stream) -> None:
                width = value.nbytes
                memset = {
                    1: driver.cuMemsetD8Async,
                    2: driver.cuMemsetD16Async,
                    4: driver.cuMemsetD32Async,
                }[width]
                pattern = int(value.view(f"<u{width}")[0])
                checked(memset(self.handle, pattern, self.size // width, stream.handle))

            def close(self, stream: Stream | None = None) -> None:
                if self.owned:
                    checked(driver.cuMemFree(self.handle))
                    self.owned = False

        class Properties:
            def __getattr__(self, name: str) -> int:
                attribute = getattr(
                    CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name.upper()}"
                )
                return int(checked(driver.cuDeviceGetAttribute(attribute, 0)))

        class Device:
            def __init__(self, ordinal: int = 0) -> None:
                checked(driver.cuInit(0))
                if ordinal >= checked(driver.cuDeviceGetCount()):
                    raise CUDAError("CUDA_ERROR_INVALID_DEVICE: no such device")
                self.device_id = ordinal
                self.properties = Properties()

            @property
            def compute_capability(self) -> tuple[int, int]:
                a = CUdevice_attribute
                return (
                    checked(
                        driver.cuDeviceGetAttribute(
                            a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0
                        )
                    ),
                    checked(
                        driver.cuDeviceGetAttribute(
                            a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0
                        )
                    ),
                )

            def set_current(self) -> None:
                checked(driver.cuCtxSetCurrent("context"))

            def sync(self) -> None:
                checked(driver.cuCtxSynchronize())

            def allocate(self, size: int, *, stream: Stream) -> Buffer:
                return Buffer(checked(driver.cuMemAlloc(size)), size, True)

            def create_stream(self) -> Stream:
                return Stream(checked(driver.cuStreamCreate(0)))

            def create_event(self, options: EventOptions | None = None) -> Event:
                timing = bool(options and options.timing_enabled)
                return Event(checked(driver.cuEventCreate(0)), timing)

        class Kernel:
            def __init__(self, function: str) -> None:
                self.function = function

            @property
            def attributes(self) -> Any:
                function = self.function

                class Attributes:
                    @property
                    def max_threads_per_block(self) -> int:
                        return int(
                            checked(
                                driver.cuFuncGetAttribute(
                                    driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                    function,
                                )
                            )
                        )

                return Attributes()

        class ObjectCode:
            def __init__(self, kind: str, code: Any) -> None:
                self.kind, self.code = kind, code
                self._module: Any = None

            @staticmethod
            def from_ptx(text: bytes, name: str = "") -> ObjectCode:
                return ObjectCode("ptx", bytes(text))

            @staticmethod
            def from_library(path: str) -> ObjectCode:
                return ObjectCode("library", path)

            def get_kernel(self, name: str) -> Kernel:
                if self._module is None:  # loaded on first use, as cuda.core does
                    log = bytearray(64)
                    options = [CUjit_option.CU_JIT_ERROR_LOG_BUFFER]
                    image = self.code if self.kind == "cubin" else self.code + b"\0"
                    status, module = driver.cuModuleLoadDataEx(image, 1, options, [log])
                    if status != OK:
                        text = bytes(log).split(b"\0")[0].decode()
                        raise CUDAError(f"{status.name}: {text}")
                    self._module = module
                return Kernel(
                    checked(driver.cuModuleGetFunction(self._module, name.encode()))
                )

        class Linker:
            def __init__(self, *codes: ObjectCode, options: LinkerOptions) -> None:
                assert options.arch.startswith("sm_")
                self.codes = codes
                core.links.append([(c.kind, c.code) for c in codes])

            def link(self, target: str) -> ObjectCode:
                assert target == "cubin"
                kind = driver.CUjitInputType
                state = checked(driver.cuLinkCreate(0, [], []))
                for code in self.codes:
                    if code.kind == "ptx":
                        data = code.code + b"\0"
                        checked(
                            driver.cuLinkAddData(
                                state,
                                kind.CU_JIT_INPUT_PTX,
                                data,
                                len(data),
                                b"gpuc.ptx",
                                0,
                                [],
                                [],
                            )
                        )
                    else:
                        checked(
                            driver.cuLinkAddFile(
                                state,
                                kind.CU_JIT_INPUT_LIBRARY,
                                code.code.encode(),
                                0,
                                [],
                                [],
                            )
                        )
                image, _size = checked(driver.cuLinkComplete(state))
                return ObjectCode("cubin", image)

            def close(self) -> None:
                pass

        def launch(
            stream: Stream, config: LaunchConfig, kernel: Kernel, *args: Any
        ) -> None:
            boxes = [np.array([a]) for a in args]
            for box in boxes:
                assert box.dtype.kind in "iufb", f"unsupported argument {box.dtype}"
            pointers = np.array([b.ctypes.data for b in boxes], np.uint64)
            checked(
                driver.cuLaunchKernel(
                    kernel.function,
                    *config.grid,
                    *config.block,
                    config.shmem_size,
                    stream.handle,
                    pointers.ctypes.data if boxes else 0,
                    0,
                )
            )

        self.Stream = Stream
        self.Event = Event
        self.Buffer = Buffer
        self.Device = Device
        self.ObjectCode = ObjectCode
        self.Linker = Linker
        self.launch = launch
        self.LEGACY_DEFAULT_STREAM = Stream(0)


def install(monkeypatch: pytest.MonkeyPatch, driver: FakeDriver) -> FakeCore:
    """The ptx executor on `driver` through the stand-in cuda.core."""
    from gpuc.runtime import cuda

    core = FakeCore(driver)
    monkeypatch.setattr(cuda, "_core", lambda: core)
    return core
