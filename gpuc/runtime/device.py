"""What the GPU executors (CUDA, HIP) share: checking a launch, copying
arrays in and back, packing kernel parameters, caching function handles and
limits. Each subclass supplies only its runtime's calls, through the hooks
below, and so words its own errors.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gpuc.runtime.args import (
    KernelSignature,
    LaunchError,
    Limits,
    check_launch,
    find_kernel,
)


@dataclass(frozen=True)
class LimitAttributes:
    """A runtime's device attributes for each field of `Limits`."""

    max_block_threads: Any
    max_block: tuple[Any, Any, Any]
    max_grid: tuple[Any, Any, Any]
    max_shared_bytes: Any


class DeviceExecutor(ABC):
    """Loads one module on one GPU and launches its kernels, copying numpy
    arrays to device buffers and the written ones back."""

    code_field = "artefact"
    # What a fault inside a kernel leaves behind, added to a failed synchronize.
    fault_note: ClassVar[str]

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

    @abstractmethod
    def _launch_kernel(
        self, name: str, dims: tuple[int, ...], stream: Any, params: int | None
    ) -> None:
        """Launch kernel `name` on `dims` (grid, then block) with `params`, the
        address of an array of pointers to each argument's bytes (None when it
        takes none)."""

    def alloc(self, nbytes: int) -> int:
        self.make_current()
        return self._alloc(max(1, nbytes))

    def synchronize(self, what: str) -> None:
        try:
            self._synchronize(what)
        except LaunchError as error:
            raise LaunchError(f"{error} ({self.fault_note})") from None

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
        params = int(pointers.ctypes.data) if boxes else None
        self._launch_kernel(name, (*grid, *block), stream, params)

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        self.make_current()
        launch = check_launch(self.kernels, name, grid, block, args, self.limits)
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
            values = [pointers.get(id(v), v) for v in launch.values]
            self.launch_raw(name, launch.grid, launch.block, values)
            self.synchronize(f"running kernel '{name}'")
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
