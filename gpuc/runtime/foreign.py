"""Arrays of other libraries as launch arguments: an object that offers
DLPack (`__dlpack__`), numpy's array interface (`__array_interface__`,
`__array__`) or the buffer protocol (`memoryview`, `array.array`) becomes a
numpy array over the same memory, which every executor takes as it takes
numpy's (native runs on it in place; spirv, ptx and amdgpu copy it in and the
written results back into it).

Only a view is taken: an object whose memory numpy cannot see without a copy
is refused where the kernel may write through it, since the results would
land in the copy and never reach the caller. Memory on a device (DLPack's
CUDA, ROCm, OpenCL... devices, `__cuda_array_interface__`) is refused with
what to do instead. docs/arrays.md.

This module needs numpy only, like `gpuc.runtime.args`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

DLPACK_DEVICES = {
    1: "CPU",
    2: "CUDA",
    3: "CUDA host (pinned)",
    4: "OpenCL",
    7: "Vulkan",
    8: "Metal",
    10: "ROCm",
    11: "ROCm host (pinned)",
    13: "CUDA managed",
    14: "oneAPI",
    15: "WebGPU",
}
"""DLPack's device types (`DLDeviceType`) by number, for diagnostics."""
DLPACK_CPU = 1


class ForeignArrayError(ValueError):
    """An object offered as an array that gpuc cannot take; the message says
    why and what to pass instead (args.py words it as a LaunchError)."""


def is_foreign_array(value: object) -> bool:
    """Whether `value` offers one of the array protocols gpuc takes."""
    if isinstance(value, np.generic):
        return False
    return (
        hasattr(value, "__dlpack__")
        or hasattr(value, "__array_interface__")
        or hasattr(value, "__array__")
        or hasattr(value, "__cuda_array_interface__")
        or _has_buffer(value)
    )


def _has_buffer(value: object) -> bool:
    if isinstance(value, str | np.generic):
        return False  # a numpy scalar's buffer is a copy of the value
    try:
        memoryview(value)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def host_view(value: object, written: bool) -> np.ndarray[Any, Any]:
    """A numpy array over `value`'s memory, or a ForeignArrayError. `written`:
    the kernel may write through it, so a copy is not good enough."""
    try:
        return _host_view(value, written)
    except ForeignArrayError:
        raise
    except Exception as error:  # the other library's own protocol failed
        raise ForeignArrayError(
            f"a {type(value).__name__} that numpy could not view "
            f"({type(error).__name__}: {error})"
        ) from None


def _host_view(value: object, written: bool) -> np.ndarray[Any, Any]:
    kind = type(value).__name__
    if hasattr(value, "__dlpack_device__") and hasattr(value, "__dlpack__"):
        return _from_dlpack(value, kind, written)
    if hasattr(value, "__cuda_array_interface__"):
        raise ForeignArrayError(
            f"a {kind} in CUDA device memory (__cuda_array_interface__), which "
            "this executor cannot read: launch it on the ptx executor, or copy it "
            "to the host first"
        )
    if hasattr(value, "__array_interface__"):
        array = np.asarray(value)  # a view by construction: the interface's pointer
        return _writeable(array, kind, written, "its __array_interface__")
    if _has_buffer(value):
        array = np.asarray(memoryview(value))  # type: ignore[arg-type]
        return _writeable(array, kind, written, "its buffer")
    if hasattr(value, "__array__"):
        return _from_array_method(value, kind, written)
    raise ForeignArrayError(f"a {kind} is not an array")


def _from_dlpack(value: Any, kind: str, written: bool) -> np.ndarray[Any, Any]:
    device_type, device_id = value.__dlpack_device__()
    if int(device_type) != DLPACK_CPU:
        where = DLPACK_DEVICES.get(int(device_type), f"device type {device_type}")
        raise ForeignArrayError(
            f"a {kind} on DLPack device {where} {device_id}, whose memory this "
            "executor cannot read: copy it to the host first (e.g. torch's "
            ".cpu(), jax.device_get), or launch on the executor of its device"
        )
    try:
        array = np.from_dlpack(value)
    except (BufferError, TypeError, ValueError) as error:
        raise ForeignArrayError(
            f"a {kind} whose DLPack export numpy cannot take ({error}): do what "
            "that says, or pass a numpy array"
        ) from None
    if written and not array.flags.writeable and hasattr(value, "__array_interface__"):
        # numpy marks an unversioned DLPack capsule (Warp's) read-only, since
        # it cannot say otherwise; the array interface says (its data flag).
        return _writeable(np.asarray(value), kind, True, "its __array_interface__")
    return _writeable(array, kind, written, "DLPack")


def _from_array_method(value: Any, kind: str, written: bool) -> np.ndarray[Any, Any]:
    """`__array__`, which may hand out a copy: a written parameter takes it
    only if numpy is told it is no copy (`copy=False`), or, for an
    `__array__` without the `copy` keyword, if two calls give the same memory."""
    if not written:
        return np.asarray(value)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            array = np.asarray(value, copy=False)
    except ValueError:  # numpy: "unable to avoid copy"
        pass
    except (DeprecationWarning, TypeError):  # no copy keyword (or numpy 1.x)
        first, second = np.asarray(value.__array__()), np.asarray(value.__array__())
        if first.size == 0 or np.may_share_memory(first, second):
            return _writeable(first, kind, True, "__array__")
    else:
        return _writeable(array, kind, True, "__array__")
    raise ForeignArrayError(
        f"a {kind} whose __array__ gives a copy, so what the kernel writes would "
        "never reach it: pass an object that exports its memory (DLPack, "
        "__array_interface__, the buffer protocol), or a numpy array and read "
        "the results from that"
    )


def _writeable(
    array: np.ndarray[Any, Any], kind: str, written: bool, how: str
) -> np.ndarray[Any, Any]:
    if written and not array.flags.writeable:
        raise ForeignArrayError(
            f"a {kind} exported read-only through {how}, but the kernel may "
            "write through this pointer: pass a writeable array"
        )
    return array
