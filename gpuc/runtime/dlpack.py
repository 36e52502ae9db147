"""DLPack export of gpuc's GPU device arrays (`d.__dlpack__()`), so that
torch, CuPy or JAX take them without a copy: a `DLManagedTensor` in a
"dltensor" capsule, the unversioned form every DLPack consumer reads.

The capsule keeps the array (and its memory) alive until the consumer calls
the tensor's deleter, or until the capsule is dropped unconsumed. Only the
C structs of dlpack.h are written here (with ctypes); no library is needed.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

DLPACK_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}
"""numpy dtype kinds -> DLPack's `DLDataTypeCode` (Int, UInt, Float, Bool)."""


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
    ]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", Deleter),
]

CAPSULE_NAME = b"dltensor"
_alive: dict[int, tuple[Any, ...]] = {}
"""Each exported tensor's address -> what must live as long as it: the
array, the struct, its shape."""
_alive_lock = threading.Lock()


def _delete(tensor: Any) -> None:
    with _alive_lock:
        _alive.pop(ctypes.cast(tensor, ctypes.c_void_p).value or 0, None)


_delete_c = Deleter(_delete)


# The capsule's destructor sees a capsule being destroyed: as a bare address,
# never as a Python object (a new reference to it would revive it).
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_new_capsule = ctypes.pythonapi["PyCapsule_New"]
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor]
_is_valid = ctypes.pythonapi["PyCapsule_IsValid"]
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_get_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


def _drop_capsule(capsule: int) -> None:
    """A capsule that no consumer took (still named "dltensor") frees its
    tensor; a consumed one was renamed, and its consumer calls the deleter."""
    if _is_valid(capsule, CAPSULE_NAME):
        address = _get_pointer(capsule, CAPSULE_NAME)
        with _alive_lock:
            _alive.pop(address, None)


_drop_capsule_c = _CapsuleDestructor(_drop_capsule)


_set_name = ctypes.pythonapi["PyCapsule_SetName"]
_set_name.restype = ctypes.c_int
_set_name.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
USED_NAME = b"used_dltensor"


def tensor_of(capsule: object) -> DLManagedTensor:
    """The tensor in an unconsumed "dltensor" capsule (what a consumer reads)."""
    if not _is_valid(id(capsule), CAPSULE_NAME):
        raise BufferError('not an unconsumed DLPack capsule ("dltensor")')
    address = _get_pointer(id(capsule), CAPSULE_NAME)
    return DLManagedTensor.from_address(address)


NUMPY_KINDS = {code: kind for kind, code in DLPACK_TYPE_CODES.items()}


@dataclass(frozen=True)
class Imported:
    """A tensor taken from another library's capsule: where it is, what it
    holds; `release()` hands it back (its deleter), once."""

    address: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    device: tuple[int, int]
    contiguous: bool
    managed: int
    """The DLManagedTensor's address, for its deleter."""

    def release(self) -> None:
        tensor = DLManagedTensor.from_address(self.managed)
        if tensor.deleter:
            tensor.deleter(ctypes.cast(self.managed, ctypes.POINTER(DLManagedTensor)))


def consume(capsule: object) -> Imported:
    """Take the tensor of a "dltensor" capsule (renamed "used_dltensor", as
    DLPack asks of a consumer: the caller must `release()` it)."""
    tensor = tensor_of(capsule)
    dl = tensor.dl_tensor
    shape = tuple(int(dl.shape[i]) for i in range(dl.ndim))
    kind = NUMPY_KINDS.get(dl.dtype.code)
    if kind is None or dl.dtype.lanes != 1 or dl.dtype.bits % 8:
        raise BufferError(
            f"DLPack type code {dl.dtype.code} of {dl.dtype.bits} bits and "
            f"{dl.dtype.lanes} lanes has no numpy dtype"
        )
    dtype = np.dtype(f"{kind}{dl.dtype.bits // 8}" if kind != "b" else "?")
    contiguous = True
    if dl.strides:
        step = 1
        for i in reversed(range(dl.ndim)):
            if shape[i] != 1 and int(dl.strides[i]) != step:
                contiguous = False
            step *= shape[i]
    imported = Imported(
        int(dl.data or 0) + int(dl.byte_offset),
        shape,
        dtype,
        (int(dl.device.device_type), int(dl.device.device_id)),
        contiguous,
        ctypes.addressof(tensor),
    )
    _set_name(id(capsule), USED_NAME)
    return imported


def dlpack_dtype(dtype: np.dtype[Any]) -> DLDataType:
    code = DLPACK_TYPE_CODES.get(dtype.kind)
    if code is None:
        raise BufferError(f"DLPack has no type for numpy's {dtype}")
    return DLDataType(code, dtype.itemsize * 8, 1)


def export(
    owner: object,
    address: int,
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    device: tuple[int, int],
) -> Any:
    """A "dltensor" capsule of the C-contiguous memory at device `address`
    (`device`: DLPack's device type and id), keeping `owner` alive while a
    consumer holds it."""
    dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    managed = DLManagedTensor()
    managed.dl_tensor = DLTensor(
        address or None,
        DLDevice(*device),
        len(shape),
        dlpack_dtype(dtype),
        ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64)),
        None,  # NULL strides: C-contiguous
        0,
    )
    managed.deleter = _delete_c
    pointer = ctypes.addressof(managed)
    with _alive_lock:
        _alive[pointer] = (owner, managed, dims)
    return _new_capsule(pointer, CAPSULE_NAME, _drop_capsule_c)


def exported() -> int:
    """How many exported tensors are still held (for tests)."""
    return len(_alive)
