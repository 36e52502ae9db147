"""Device arrays, streams and events: what keeps data on a device between
launches and orders work on it. docs/arrays.md is the user's view.

Each executor makes its own: the spirv executor's arrays are OpenCL buffers
and its streams command queues, the ptx and amdgpu executors' arrays are
device allocations and their streams the runtime's streams. The native
executor runs on host memory, so its device array is a numpy array
(`HostArray`, a subclass: every check and the executor's argument packing
take it as they take numpy) and its stream is synchronous (`HostStream`).

This module needs numpy only, like `gpuc.runtime.args`.
"""

from __future__ import annotations

import math
import operator
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np


def _shape(shape: object) -> tuple[int, ...]:
    items = shape if isinstance(shape, Sequence) else (shape,)
    try:
        dims = tuple(operator.index(d) for d in items)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"a shape is an int or a tuple of ints, got {shape!r}"
        ) from None
    if any(d < 0 for d in dims):
        raise ValueError(f"a shape has no negative sizes, got {shape!r}")
    return dims


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides: list[int] = []
    step = itemsize
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def basic_view(
    shape: tuple[int, ...], dtype: np.dtype[Any], index: object
) -> tuple[int, tuple[int, ...]]:
    """(byte offset, shape) of `index` (ints, slices, None, ...) into a
    C-contiguous array of `shape` and `dtype`, where that part is itself
    C-contiguous; an IndexError otherwise. Worked out by numpy on a stand-in
    of the same shape and strides over one element, never read."""
    items = index if isinstance(index, tuple) else (index,)
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, slice):
            continue
        if isinstance(item, bool | np.bool_) or not hasattr(item, "__index__"):
            raise IndexError(
                f"a device array takes basic indexing only (ints, slices, None, "
                f"...), got {type(item).__name__} {item!r}: copy_to_host() and "
                "index the numpy array"
            )
    if not any(item is Ellipsis for item in items):
        items = (*items, Ellipsis)  # an int index then gives a 0-d view
    stand_in = np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype),
        shape=shape,
        strides=_c_strides(shape, dtype.itemsize),
        writeable=False,
    )
    view = stand_in[items]
    if not view.flags.c_contiguous:
        raise IndexError(
            f"[{index!r}] of a device array of shape {shape} is not contiguous "
            f"(strides {view.strides}), and a device array is: take whole rows "
            "(slices of the leading dimensions, step 1), or copy_to_host() and "
            "slice the numpy array"
        )
    start = int(stand_in.__array_interface__["data"][0])
    offset = int(view.__array_interface__["data"][0]) - start if view.size else 0
    return offset, tuple(int(d) for d in view.shape)


class DeviceArray(ABC):
    """A C-contiguous array in one executor's memory: `shape`, `dtype`, and
    its buffer (`handle`: an OpenCL buffer, or a device address as an int).

    Launches pass it by reference and copy nothing; `copy_to_host()` reads it
    back. It belongs to the executor (device, context) that made it, and only
    that executor's launches take it. `d[i]`, `d[i:j]` and other basic
    indexing that leaves a contiguous part are views (`base`: the array
    viewed) where the runtime can address one.
    """

    def __init__(self, owner: Any, handle: Any, shape: object, dtype: object) -> None:
        self.owner = owner
        self.handle = handle
        self.shape = _shape(shape)
        self.dtype: np.dtype[Any] = np.dtype(dtype)  # type: ignore[call-overload]
        self.base: DeviceArray | None = None
        """The array this one is a view of (kept alive with it), or None."""

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes between neighbours along each dimension, as numpy's (C order)."""
        return _c_strides(self.shape, self.dtype.itemsize)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __getitem__(self, index: object) -> DeviceArray:
        offset, shape = basic_view(self.shape, self.dtype, index)
        view = self._view(offset, shape)
        view.base = self.base if self.base is not None else self
        return view

    def _view(self, offset: int, shape: tuple[int, ...]) -> DeviceArray:
        """A device array of `shape` over this one's memory from byte `offset`."""
        raise IndexError(f"{type(self).__name__} cannot be viewed in part")

    def fill(self, value: object, *, stream: Stream | None = None) -> None:
        """Set every element to `value` (converted to the array's dtype)."""
        self.copy_from_host(np.full(self.shape, value, self.dtype), stream=stream)

    def __array__(self, dtype: object = None, copy: object = None) -> Any:
        raise TypeError(
            f"{self!r} is in device memory, which numpy cannot read in place: "
            "d.copy_to_host() copies it into a numpy array"
        )

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @abstractmethod
    def copy_to_host(
        self, out: np.ndarray[Any, Any] | None = None, *, stream: Stream | None = None
    ) -> np.ndarray[Any, Any]:
        """The array's contents in `out` (or a new numpy array). Without a
        stream the copy is finished on return; on a stream it is queued there
        (synchronize the stream before reading `out`)."""

    @abstractmethod
    def copy_from_host(
        self, host: np.ndarray[Any, Any], *, stream: Stream | None = None
    ) -> None:
        """Overwrite the array with `host` (same shape and dtype); finished on
        return without a stream, queued on one (keep `host` alive until then)."""

    def check_host(self, host: object, what: str) -> np.ndarray[Any, Any]:
        """`host` if it can be copied to or from this array, else a ValueError."""
        if not isinstance(host, np.ndarray):
            raise ValueError(
                f"{what}: expected a numpy array, got {type(host).__name__}"
            )
        if host.shape != self.shape or host.dtype != self.dtype:
            raise ValueError(
                f"{what}: the device array is {self.shape} {self.dtype}, the host "
                f"array {host.shape} {host.dtype}"
            )
        if not host.flags.c_contiguous:
            raise ValueError(f"{what}: the host array is not contiguous")
        return host

    def __repr__(self) -> str:
        return f"<gpuc device array {self.shape} {self.dtype}>"


class SharedMemory:
    """The argument of a `!gpuc.ptr<T, shared>` kernel parameter: `count`
    elements of T of dynamic shared memory, allocated per block by the
    launch (an OpenCL local-memory argument on spirv)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(
                f"SharedMemory(count): count is an int >= 1, got {count!r}"
            )
        self.count = count

    def __repr__(self) -> str:
        return f"SharedMemory({self.count})"


class Event(ABC):
    """A point in a stream's work: `synchronize()` waits for it, and
    `end.elapsed_ms(start)` is the device time between two of them."""

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def elapsed_ms(self, start: Event) -> float:
        """Milliseconds from `start` to this event, both finished (waited for)."""


class Stream(ABC):
    """An in-order queue of launches and copies on one device; work on it runs
    asynchronously to the host where the runtime does."""

    @abstractmethod
    def synchronize(self) -> None:
        """Wait until everything queued on the stream has finished."""

    @abstractmethod
    def record(self) -> Event:
        """An event that completes when the work queued so far has."""


class HostArray(np.ndarray[Any, Any]):
    """The native executor's device array: host memory, a numpy array (the
    executor packs its address as it packs any array's; nothing is copied)."""

    def copy_to_host(
        self, out: np.ndarray[Any, Any] | None = None, *, stream: Stream | None = None
    ) -> np.ndarray[Any, Any]:
        if out is None:
            return np.array(self, copy=True).view(np.ndarray)
        self._same(out, "copy_to_host")[...] = self
        return out

    def copy_from_host(
        self, host: np.ndarray[Any, Any], *, stream: Stream | None = None
    ) -> None:
        self[...] = self._same(host, "copy_from_host")

    def _same(self, host: object, what: str) -> np.ndarray[Any, Any]:
        """`host` if it has this array's shape and dtype (what every other
        executor's device arrays require: no broadcasting, no casting)."""
        if not isinstance(host, np.ndarray):
            raise ValueError(
                f"{what}: expected a numpy array, got {type(host).__name__}"
            )
        if host.shape != self.shape or host.dtype != self.dtype:
            raise ValueError(
                f"{what}: the device array is {self.shape} {self.dtype}, the host "
                f"array {host.shape} {host.dtype}"
            )
        return host


class HostEvent(Event):
    """A host stream's event: the time it was recorded at (its stream's work
    has finished by then, since a host stream runs everything at once)."""

    def __init__(self) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def elapsed_ms(self, start: Event) -> float:
        if not isinstance(start, HostEvent):
            raise ValueError("elapsed_ms: both events must come from host streams")
        return (self.at - start.at) * 1000.0


class HostStream(Stream):
    """The stream of an executor that runs each launch to completion before
    returning (native): recording and synchronizing are immediate."""

    def synchronize(self) -> None:
        pass

    def record(self) -> HostEvent:
        return HostEvent()


class HostArrays:
    """Device arrays, streams and events for an executor that takes numpy
    arrays and has none of its own (the native executor): host arrays and
    synchronous streams."""

    def to_device(
        self, host: np.ndarray[Any, Any], stream: Stream | None = None
    ) -> HostArray:
        return np.array(host, copy=True, order="C").view(HostArray)

    def empty(self, shape: object, dtype: object) -> HostArray:
        return np.empty(_shape(shape), dtype).view(HostArray)  # type: ignore[call-overload, no-any-return]

    def stream(self) -> HostStream:
        return HostStream()

    def synchronize(self) -> None:
        pass
