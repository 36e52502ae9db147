"""What the GPU executors (CUDA, HIP) share: checking a launch, copying
arrays in and back, device arrays, streams and events, packing kernel
parameters, caching function handles and limits. Each subclass supplies only
its runtime's calls, through the hooks below, and so words its own errors.
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gpuc.runtime.args import (
    KernelSignature,
    Launch,
    LaunchError,
    Limits,
    check_launch,
    find_kernel,
    with_shared_offsets,
)
from gpuc.runtime.arrays import DeviceArray, Event, Stream


def _quietly(release: Callable[[Any], None], handle: Any) -> None:
    """Release a runtime object when its Python object goes; at exit the
    runtime may already be gone, and nothing can be reported then."""
    with suppress(Exception):
        release(handle)


@dataclass(frozen=True)
class LimitAttributes:
    """A runtime's device attributes for each field of `Limits`."""

    max_block_threads: Any
    max_block: tuple[Any, Any, Any]
    max_grid: tuple[Any, Any, Any]
    max_shared_bytes: Any


class DeviceExecutor(ABC):
    """Loads one module on one GPU and launches its kernels, copying numpy
    arrays to device buffers and the written ones back (and waiting), or
    queueing the launch on a stream when every array is a device array."""

    code_field = "artefact"
    # What a fault inside a kernel leaves behind, added to a failed synchronize.
    fault_note: ClassVar[str]
    dlpack_device_type: ClassVar[int]
    """DLPack's `DLDeviceType` of this runtime's memory (CUDA 2, ROCm 10)."""
    cuda_array_interface: ClassVar[bool] = False
    """Device arrays offer `__cuda_array_interface__` (numba, CuPy)."""
    shared_windows: ClassVar[bool] = False
    """The target maps shared pointer parameters to the launch's dynamic
    shared memory (`Target.shared_parameter`): the launch takes
    `gpuc.SharedMemory(count)` for them and passes each its window's offset."""

    def __init__(self, kernels: Mapping[str, KernelSignature]) -> None:
        self.kernels = dict(kernels)
        self._functions: dict[str, Any] = {}
        self._limits: dict[str, Limits] = {}

    @abstractmethod
    def make_current(self) -> None:
        """Make this executor's device current in the calling OS thread."""

    @abstractmethod
    def free(self, pointer: int) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _alloc(self, nbytes: int) -> int:
        """A device buffer of `nbytes` (at least 1), `self` current."""

    @abstractmethod
    def _synchronize(self, what: str) -> None:
        """Wait for the device; `what` names what a failure interrupted."""

    @abstractmethod
    def _find_function(self, name: str, symbol: bytes) -> Any:
        """The runtime's handle of kernel `name`, loaded under `symbol`."""

    @abstractmethod
    def _function_max_threads(self, function: Any) -> int:
        """The most threads a block of `function` may have."""

    @abstractmethod
    def _limit_attributes(self) -> LimitAttributes: ...

    @abstractmethod
    def _device_attribute(self, attribute: Any) -> int: ...

    @abstractmethod
    def _copy_to_device(self, pointer: int, host: int, nbytes: int, what: str) -> None:
        """Copy `nbytes` from host address `host` to device buffer `pointer`."""

    @abstractmethod
    def _copy_from_device(
        self, host: int, pointer: int, nbytes: int, what: str
    ) -> None: ...

    def _launch_kernel(
        self,
        name: str,
        dims: tuple[int, ...],
        stream: Any,
        params: int | None,
        shared: int = 0,
    ) -> None:
        """Launch kernel `name` on `dims` (grid, then block) with `params`, the
        address of an array of pointers to each argument's bytes (None when it
        takes none), on `stream` (None: the null stream) with `shared` bytes
        of dynamic shared memory: what `_launch_values` calls, for a runtime
        that takes the driver's parameter array (HIP)."""
        raise NotImplementedError(
            f"{type(self).__name__} defines neither _launch_kernel nor _launch_values"
        )

    @property
    @abstractmethod
    def owner(self) -> Any:
        """What device arrays and streams belong to (runtime and device):
        every executor on one device takes the same ones."""

    @abstractmethod
    def _copy_async(
        self, to_device: bool, dst: int, src: int, nbytes: int, stream: Any
    ) -> None:
        """Queue a copy between host and device memory on `stream`."""

    @abstractmethod
    def _stream_create(self) -> Any: ...

    @abstractmethod
    def _stream_destroy(self, stream: Any) -> None: ...

    @abstractmethod
    def _stream_synchronize(self, stream: Any, what: str) -> None: ...

    @abstractmethod
    def _event_create(self) -> Any: ...

    @abstractmethod
    def _event_destroy(self, event: Any) -> None: ...

    @abstractmethod
    def _event_record(self, event: Any, stream: Any) -> None: ...

    @abstractmethod
    def _event_synchronize(self, event: Any) -> None: ...

    @abstractmethod
    def _event_elapsed_ms(self, start: Any, end: Any) -> float: ...

    def _memset(self, pointer: int, pattern: int, width: int, count: int) -> bool:
        """Set `count` elements of `width` bytes (1, 2, 4) at `pointer` to the
        bit pattern `pattern` on the null stream; False where this runtime's
        memset is not wired (the caller copies from the host instead)."""
        return False

    def alloc(self, nbytes: int) -> int:
        self.make_current()
        return self._alloc(max(1, nbytes))

    def function(self, name: str) -> Any:
        """The runtime's function handle of kernel `name`."""
        sig = find_kernel(self.kernels, name)
        if name not in self._functions:
            self._functions[name] = self._find_function(
                name, sig.launch_symbol.encode()
            )
        return self._functions[name]

    def limits(self, name: str) -> Limits:
        if name not in self._limits:
            per_function = self._function_max_threads(self.function(name))
            names = self._limit_attributes()
            get = self._device_attribute
            block, grid = names.max_block, names.max_grid
            self._limits[name] = Limits(
                max_block_threads=min(per_function, get(names.max_block_threads)),
                max_block=(get(block[0]), get(block[1]), get(block[2])),
                max_grid=(get(grid[0]), get(grid[1]), get(grid[2])),
                max_shared_bytes=get(names.max_shared_bytes),
            )
        return self._limits[name]

    def launch_raw(
        self,
        name: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        values: Sequence[Any],
        stream: Any = None,
        shared: int = 0,
    ) -> None:
        """Launch with already-checked values: numpy scalars, and device
        pointers as ints for pointer parameters. No copies, no synchronize."""
        self._launch_values(name, grid, block, values, stream, shared)

    def _launch_values(
        self,
        name: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        values: Sequence[Any],
        stream: Any,
        shared: int,
    ) -> None:
        """The launch itself: by default the values packed as the driver's
        parameter array for `_launch_kernel`."""
        boxes = [
            np.array([value], np.uint64)
            if isinstance(value, int)
            else np.array([value])
            for value in values
        ]
        pointers = np.array([box.ctypes.data for box in boxes], np.uint64)
        params = int(pointers.ctypes.data) if boxes else None
        self._launch_kernel(name, (*grid, *block), stream, params, shared)

    def stream(self) -> GpuStream:
        """A new stream on this executor's device."""
        self.make_current()
        return GpuStream(self, self._stream_create())

    def _stream_handle(self, stream: object) -> Any:
        if stream is None:
            return None
        if isinstance(stream, GpuStream) and stream.owner == self.owner:
            return stream.handle
        raise LaunchError(
            f"stream={stream!r} is not a stream of this executor's device: make "
            "one with mod.stream()"
        )

    def synchronize(self, what: str = "waiting for the device") -> None:
        """Wait for everything queued on the device."""
        self.make_current()
        try:
            self._synchronize(what)
        except LaunchError as error:
            raise LaunchError(f"{error} ({self.fault_note})") from None

    def empty(self, shape: object, dtype: object) -> GpuArray:
        """An uninitialized device array."""
        array = GpuArray(self, 0, shape, dtype)
        array.handle = self.alloc(array.nbytes)
        weakref.finalize(array, _quietly, self._release, array.handle)
        return array

    def _release(self, pointer: int) -> None:
        self.make_current()
        self.free(pointer)

    def to_device(
        self, host: np.ndarray[Any, Any], stream: Stream | None = None
    ) -> GpuArray:
        """A device array holding a copy of `host`."""
        host = np.ascontiguousarray(host)
        array = self.empty(host.shape, host.dtype)
        array.copy_from_host(host, stream=stream)
        return array

    def copy(
        self,
        array: GpuArray,
        host: np.ndarray[Any, Any],
        to_device: bool,
        stream: Stream | None,
    ) -> None:
        """Copy between `array` and `host`: finished on return without a
        stream, queued on `stream` otherwise."""
        if not array.nbytes:
            return
        self.make_current()
        handle = self._stream_handle(stream)
        what = "copying to the device" if to_device else "copying from the device"
        if handle is None:
            if to_device:
                self._copy_to_device(array.handle, host.ctypes.data, array.nbytes, what)
            else:
                self._copy_from_device(
                    host.ctypes.data, array.handle, array.nbytes, what
                )
        else:
            assert isinstance(stream, GpuStream)
            stream.keep.append(host)  # alive until the copy has run
            if to_device:
                self._copy_async(
                    True, array.handle, host.ctypes.data, array.nbytes, handle
                )
            else:
                self._copy_async(
                    False, host.ctypes.data, array.handle, array.nbytes, handle
                )

    def launch(
        self,
        name: str,
        grid: object,
        block: object,
        args: Sequence[object],
        *,
        stream: Stream | None = None,
        shared: int = 0,
    ) -> None:
        """Launch `name`; with numpy arrays among `args`, copy them in, run,
        copy the written ones back and wait; with device arrays only, queue
        the launch on `stream` (None: the null stream) and return."""
        self.make_current()
        handle = self._stream_handle(stream)
        launch = check_launch(
            self.kernels,
            name,
            grid,
            block,
            [self.adopt(a, name, i) for i, a in enumerate(args)],
            self.limits,
            shared,
            self.shared_windows,
        )
        for param, array in launch.device_arrays():
            if not isinstance(array, GpuArray) or array.owner != self.owner:
                raise LaunchError(
                    f"kernel '{name}': argument '{param.name}' is a device array "
                    "of another device or executor; copy it to the host, or make "
                    "it with this module's to_device"
                )
        if any(True for _ in launch.arrays()):
            self._launch_copying(launch, handle)
            return
        values = [
            v.handle if isinstance(v, GpuArray) else v
            for v in with_shared_offsets(launch)
        ]
        self.launch_raw(name, launch.grid, launch.block, values, handle, launch.shared)

    def adopt(self, value: object, kernel: str = "", position: int = 0) -> Any:
        """`value` as a device array of this executor if it is another
        library's array in this device's memory (`__cuda_array_interface__`
        on CUDA, DLPack on this runtime's device type): a view of its
        memory, nothing copied; anything else unchanged."""
        if isinstance(value, np.ndarray | DeviceArray):
            return value
        where = f"kernel '{kernel}': argument {position} ({type(value).__name__})"
        if self.cuda_array_interface and hasattr(value, "__cuda_array_interface__"):
            return self._from_interface(value, where)
        device = getattr(value, "__dlpack_device__", None)
        if device is None or not hasattr(value, "__dlpack__"):
            return value
        kind, ordinal = device()
        if int(kind) != self.dlpack_device_type:
            return value  # not this runtime's memory: foreign.py words it
        if int(ordinal) != self.owner[1]:
            raise LaunchError(
                f"{where} is on device {ordinal}, and this module runs on device "
                f"{self.owner[1]}: compile with device={ordinal}"
            )
        return self._from_dlpack(value, where)

    def _from_interface(self, value: Any, where: str) -> GpuArray:
        info = value.__cuda_array_interface__
        shape = tuple(int(d) for d in info["shape"])
        dtype = np.dtype(info["typestr"])
        view = GpuArray(self, int(info["data"][0]), shape, dtype)
        strides = info.get("strides")
        if info.get("mask") is not None or (
            strides is not None and tuple(strides) != view.strides and view.size > 1
        ):
            raise LaunchError(
                f"{where} is a strided or masked CUDA array (strides {strides}): "
                "pass a contiguous one (e.g. cupy.ascontiguousarray)"
            )
        stream = info.get("stream")
        if stream is not None and stream != 1:  # its work is on another stream
            self.synchronize("waiting for a CUDA array's stream")
        view.source = value
        return view

    def _from_dlpack(self, value: Any, where: str) -> GpuArray:
        from gpuc.runtime import dlpack

        try:
            imported = dlpack.consume(value.__dlpack__(stream=1))
        except (BufferError, TypeError) as error:
            raise LaunchError(f"{where}: its DLPack export failed ({error})") from None
        view = GpuArray(self, imported.address, imported.shape, imported.dtype)
        weakref.finalize(view, _quietly, lambda _: imported.release(), None)
        if not imported.contiguous:
            raise LaunchError(
                f"{where} is strided (DLPack strides): pass a contiguous array"
            )
        view.source = value
        return view

    def _launch_copying(self, launch: Launch, stream: Any) -> None:
        name = launch.sig.name
        pointers: dict[int, int] = {}
        try:
            for param, array in launch.arrays():
                if id(array) in pointers:  # passed twice: one buffer, aliased
                    continue
                pointers[id(array)] = pointer = self.alloc(array.nbytes)
                if array.nbytes:
                    self._copy_to_device(
                        pointer,
                        array.ctypes.data,
                        array.nbytes,
                        f"copying argument '{param.name}' to the device",
                    )
            values = [
                v.handle if isinstance(v, GpuArray) else pointers.get(id(v), v)
                for v in with_shared_offsets(launch)
            ]
            self.launch_raw(
                name, launch.grid, launch.block, values, stream, launch.shared
            )
            what = f"running kernel '{name}'"
            if stream is None:
                self.synchronize(what)
            else:
                try:
                    self._stream_synchronize(stream, what)
                except LaunchError as error:
                    raise LaunchError(f"{error} ({self.fault_note})") from None
            for param, array in launch.arrays():
                if param.written and array.nbytes:
                    self._copy_from_device(
                        array.ctypes.data,
                        pointers[id(array)],
                        array.nbytes,
                        f"copying argument '{param.name}' back from the device",
                    )
        finally:
            for pointer in pointers.values():
                # A failed free must not hide the error that ended the launch.
                with suppress(LaunchError):
                    self.free(pointer)


class GpuArray(DeviceArray):
    """A CUDA or HIP executor's device array: `handle` is the device address.
    Its memory is freed when the array is no longer referenced."""

    def __init__(
        self, executor: DeviceExecutor, pointer: int, shape: object, dtype: object
    ) -> None:
        super().__init__(executor.owner, pointer, shape, dtype)
        self.executor = executor
        self.source: object = None
        """Another library's array whose memory this one is (kept alive)."""

    def copy_to_host(
        self, out: np.ndarray[Any, Any] | None = None, *, stream: Stream | None = None
    ) -> np.ndarray[Any, Any]:
        if out is None:
            out = np.empty(self.shape, self.dtype)
        self.executor.copy(self, self.check_host(out, "copy_to_host"), False, stream)
        return out

    def copy_from_host(
        self, host: np.ndarray[Any, Any], *, stream: Stream | None = None
    ) -> None:
        self.executor.copy(self, self.check_host(host, "copy_from_host"), True, stream)

    def fill(self, value: object, *, stream: Stream | None = None) -> None:
        """Set every element to `value`: a memset where the runtime has one
        for the element's width (finished on return), else a host copy."""
        pattern = np.full(1, value, self.dtype)
        width = self.dtype.itemsize
        if width == 8 and pattern.view(np.uint32)[0] == pattern.view(np.uint32)[1]:
            pattern, width = pattern.view(np.uint32), 4  # two equal halves
        count = self.nbytes // width
        if stream is None and width in (1, 2, 4) and count:
            bits = int(pattern.view(f"u{width}")[0])
            self.executor.make_current()
            if self.executor._memset(self.handle, bits, width, count):
                self.executor.synchronize("filling a device array")
                return
        super().fill(value, stream=stream)

    def _view(self, offset: int, shape: tuple[int, ...]) -> GpuArray:
        return GpuArray(self.executor, self.handle + offset, shape, self.dtype)

    @property
    def device_ordinal(self) -> int:
        return int(self.owner[1])

    def __dlpack_device__(self) -> tuple[int, int]:
        return (self.executor.dlpack_device_type, self.device_ordinal)

    def __dlpack__(
        self,
        *,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A DLPack capsule of this array's memory (no copy). The device is
        synchronized first unless the consumer's `stream` is -1, so that
        what was queued on any stream is there for it."""
        from gpuc.runtime import dlpack

        if copy:
            raise BufferError("a gpuc device array is exported without a copy")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(
                f"the array is on DLPack device {self.__dlpack_device__()}, "
                f"not {tuple(dl_device)}: copy_to_host() for the CPU"
            )
        if stream != -1:
            self.executor.synchronize("exporting a device array through DLPack")
        return dlpack.export(
            self, self.handle, self.shape, self.dtype, self.__dlpack_device__()
        )

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """Numba's CUDA array interface (version 3) of this array, on CUDA.
        Its work is on the legacy default stream (1) unless queued elsewhere:
        synchronize that stream before another library reads it."""
        if not self.executor.cuda_array_interface:
            raise AttributeError("__cuda_array_interface__ (not a CUDA array)")
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.handle, False),
            "strides": None,
            "version": 3,
            "stream": 1,
        }


class GpuEvent(Event):
    """A CUDA or HIP event, recorded on a stream."""

    def __init__(self, executor: DeviceExecutor, handle: Any) -> None:
        self.executor = executor
        self.handle = handle
        weakref.finalize(self, _quietly, executor._event_destroy, handle)

    def synchronize(self) -> None:
        self.executor._event_synchronize(self.handle)

    def elapsed_ms(self, start: Event) -> float:
        if not isinstance(start, GpuEvent) or start.executor.owner != (
            self.executor.owner
        ):
            raise LaunchError("elapsed_ms: both events must come from one device")
        self.synchronize()
        return self.executor._event_elapsed_ms(start.handle, self.handle)


class GpuStream(Stream):
    """A CUDA or HIP stream; destroyed when no longer referenced."""

    def __init__(self, executor: DeviceExecutor, handle: Any) -> None:
        self.executor = executor
        self.owner = executor.owner
        self.handle = handle
        self.keep: list[np.ndarray[Any, Any]] = []
        """Host arrays of queued copies, alive until the stream is waited for."""
        weakref.finalize(self, _quietly, executor._stream_destroy, handle)

    def synchronize(self) -> None:
        self.executor.make_current()
        try:
            self.executor._stream_synchronize(self.handle, "synchronizing a stream")
        except LaunchError as error:
            raise LaunchError(f"{error} ({self.executor.fault_note})") from None
        self.keep.clear()

    def record(self) -> GpuEvent:
        self.executor.make_current()
        event = GpuEvent(self.executor, self.executor._event_create())
        self.executor._event_record(event.handle, self.handle)
        return event
