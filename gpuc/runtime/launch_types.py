"""What the compiler reports and raises about launches, without numpy:
`LaunchError` and `ArrayShape`. The Python API, the driver and the kernels
compiled from Python name them without importing the executors' launch
checking (gpuc/runtime/args.py, which needs numpy and re-exports both), so a
compile that launches nothing loads no numpy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class LaunchError(ValueError):
    """A kernel launch gpuc refused or a device failed; the message says why."""


@dataclass(frozen=True)
class ArrayShape:
    """A pointer parameter that the import made from a memref: the memref's
    dimensions (None where dynamic) and, for a `strided` layout, its strides
    and offset in elements (None where dynamic). Each dynamic size is an
    `index` parameter right after the pointer, in dimension order, then each
    dynamic stride, then a dynamic offset; a launch fills them from the
    array's shape and strides (or checks them against it when passed)."""

    pointer: int
    """The pointer parameter's position."""
    dims: tuple[int | None, ...]
    strides: tuple[int | None, ...] | None = None
    """The layout's strides; None: the identity layout (a C-contiguous array)."""
    offset: int | None = 0
    """The layout's offset (of a strided layout): the launch passes a pointer
    to the view's first element, so a static offset is not checked."""

    @property
    def size_params(self) -> range:
        """The positions of the size parameters."""
        dynamic = sum(1 for d in self.dims if d is None)
        return range(self.pointer + 1, self.pointer + 1 + dynamic)

    @property
    def stride_params(self) -> range:
        """The positions of the dynamic stride parameters."""
        dynamic = sum(1 for s in self.strides or () if s is None)
        start = self.size_params.stop
        return range(start, start + dynamic)

    @property
    def implicit_params(self) -> range:
        """Every parameter a launch fills from the array: sizes, strides, offset."""
        end = self.stride_params.stop
        if self.strides is not None and self.offset is None:
            end += 1
        return range(self.pointer + 1, end)

    def to_json(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "dims": list(self.dims),
            "strides": list(self.strides) if self.strides is not None else None,
            "offset": self.offset,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ArrayShape:
        strides = data.get("strides")
        return ArrayShape(
            int(data["pointer"]),
            tuple(data["dims"]),
            tuple(strides) if strides is not None else None,
            data.get("offset", 0),
        )
