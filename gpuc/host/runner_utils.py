"""The functions MLIR's runner libraries give host code, in their output format.

MLIR's integration tests print results with `printMemrefF32` and friends
(`libmlir_runner_utils`) and `vector.print` (`libmlir_c_runner_utils`), fill
buffers with the Vulkan and SPIR-V runners' `fillResource*` / `fill*Buffer*`,
and ask the ROCm runtime for a registered buffer's device view
(`mgpuMemGetDeviceMemRef1d*`). Their CHECK lines match the text these print,
so the text here is the same: the header `Unranked Memref base@ = 0x... rank =
R offset = 0 sizes = [...] strides = [...] data = `, then the elements nested
in brackets, a row per line, each element as C++'s `ostream` writes it (`%g`
for floats); `vector.print` writes `( 1, 2 )` and scalars as C's printf does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

PRINTERS: dict[str, str] = {
    "printMemrefF16": "f16",
    "printMemrefF32": "f32",
    "printMemrefF64": "f64",
    "printMemrefI8": "i8",
    "printMemrefI16": "i16",
    "printMemrefI32": "i32",
    "printMemrefI64": "i64",
    "printMemrefInd": "index",
}
"""Each memref printer and the element type it prints (what it reads the
buffer as; MLIR's would reinterpret a memref of another type)."""

FILLERS = tuple(
    f"fillResource{rank}D{kind}"
    for rank in (1, 2, 3)
    for kind in ("Float", "Int", "Int8")
) + (
    "fillF32Buffer1D",
    "fillF32Buffer2D",
    "fillF32Buffer3D",
    "fillI32Buffer",
)
"""The Vulkan and SPIR-V CPU runners' `fill(buffer, value)` functions."""

DEVICE_VIEWS = tuple(
    f"mgpuMemGetDeviceMemRef1d{kind}" for kind in ("Float", "Int32", "Int64")
)
"""ROCm's device view of a registered host buffer: here, the buffer itself."""


def format_element(value: Any, dtype: np.dtype[Any]) -> str:
    """One element as `std::ostream <<` writes it (6 significant digits for
    floats, `%g`-style; integers in full; unsigned for index)."""
    if dtype.kind == "f":
        return _c_float(float(value))
    if dtype.kind == "b":
        return str(int(value))
    return str(int(value))


def _c_float(value: float) -> str:
    if value != value:  # glibc prints a NaN with its sign bit as -nan
        return "-nan" if np.signbit(value) else "nan"
    return f"{value:g}"


def format_memref(array: np.ndarray[Any, Any]) -> str:
    """The text `printMemref*` writes for `array` (a C-contiguous buffer)."""
    itemsize = array.dtype.itemsize
    strides = [s // itemsize for s in array.strides]
    sizes = ", ".join(str(s) for s in array.shape)
    header = (
        f"Unranked Memref base@ = {hex(array.ctypes.data)} rank = {array.ndim} "
        f"offset = 0 sizes = [{sizes}] strides = "
        f"[{', '.join(str(s) for s in strides)}] data = \n"
    )
    if array.ndim == 0:
        return header + f"[{format_element(array[()], array.dtype)}]\n"
    return header + _nested(array, array.ndim) + "\n"


def _nested(array: np.ndarray[Any, Any], rank: int) -> str:
    """The elements of `array` (one dimension of a rank-`rank` memref) in
    brackets: inner rows after a comma and a newline, each indented by one
    space more than the nesting above it, as MLIR's MemRefDataPrinter does."""
    if array.ndim == 0:
        return format_element(array[()], array.dtype)
    count = array.shape[0]
    if count == 0:
        return "[]"
    inner = [_nested(array[i], rank) for i in range(count)]
    indent = " " * (rank - array.ndim + 1)
    separator = ", \n" if array.ndim > 1 else ", "
    text = "[" + inner[0]
    for element in inner[1:]:
        text += separator + indent + element
    return text + "]"


def format_vector(value: Any, dtype: np.dtype[Any]) -> str:
    """What `vector.print` writes for a value (a scalar or a 1-D vector),
    with its newline: `( 1, 2 )` for vectors."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return "( " + ", ".join(_c_scalar(v, dtype) for v in value) + " )\n"
    return _c_scalar(value, dtype) + "\n"


def _c_scalar(value: Any, dtype: np.dtype[Any]) -> str:
    """A scalar as vector.print's runtime calls print it (printF32/F64: %g;
    printI64: the value sign-extended; printU64 for i1)."""
    if dtype.kind == "f":
        return _c_float(float(value))
    return str(int(value))


def fill(array: np.ndarray[Any, Any], value: Any) -> None:
    """What every fill function does: set each element to `value`."""
    array[...] = value
