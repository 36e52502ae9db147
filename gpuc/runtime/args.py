"""Launch checking shared by every executor: a kernel's host-visible signature,
its arguments (numpy or device arrays, scalars, dynamic shared memory; the
sizes of a memref kernel taken from its arrays' shapes) and its launch
geometry, each checked before anything runs.

A bad launch is a `LaunchError` naming the kernel and the argument (or grid,
block, shared memory) and saying what to pass instead: executors never hand
a device something that could hang it or crash the process.

This module needs numpy only (no xDSL): `bench/device_check.py` runs kernels
from saved PTX on machines where the compiler itself is not installed.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from gpuc.runtime.arrays import DeviceArray, SharedMemory
from gpuc.runtime.foreign import ForeignArrayError, host_view, is_foreign_array
from gpuc.runtime.launch_types import ArrayShape as ArrayShape
from gpuc.runtime.launch_types import LaunchError as LaunchError

Dim3 = tuple[int, int, int]
ParamKind = Literal["pointer", "int", "float"]


# Scalar types a host can pass, by the name the gpuc dialect prints them with.
SCALAR_DTYPES: dict[str, np.dtype[Any]] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
POINTEE_DTYPES: dict[str, np.dtype[Any]] = {
    **SCALAR_DTYPES,
    "bf16": np.dtype(np.uint16),
}
"""Types a host can point to: the scalars, and bf16, which has no numpy dtype:
its arrays are uint16 (or int16) arrays of the bit patterns. A bf16 scalar
parameter is refused (pass an f32 and truncate it in the kernel). A pointer
to `vector<NxT>` takes an array of T (N consecutive elements a vector)."""


def pointee_dtype(type_name: str) -> np.dtype[Any] | None:
    """The dtype of an array a pointer to `type_name` takes, if there is one."""
    if type_name.startswith("vector<") and type_name.endswith(">"):
        length, _, element = type_name[len("vector<") : -1].partition("x")
        if length.isdigit() and element != "i1":
            return POINTEE_DTYPES.get(element)
    return POINTEE_DTYPES.get(type_name)


@dataclass(frozen=True)
class Param:
    """One kernel parameter as the host sees it.

    `type_name` is the scalar's or the pointee's name (`f32`, `i32`, `index`);
    `space` is the pointer's address space, None for scalars.
    """

    name: str
    type_name: str
    space: str | None = None
    read_only: bool = False
    """The kernel never writes through this pointer (the compiler found only
    loads): a read-only array is accepted and nothing is copied back."""
    summed: bool = False
    """The kernel only adds into this pointer's buffer, with regrouped atomic
    adds (`gpuc.kernel_params.summed_params`): the native executor gives each
    OS thread of a launch but the first a zeroed copy of the buffer to add
    into, and adds the copies into it after the launch."""

    @property
    def kind(self) -> ParamKind:
        if self.space is not None:
            return "pointer"
        return "float" if self.type_name.startswith("f") else "int"

    @property
    def alignment(self) -> int:
        """The bytes a pointer argument's address must be a multiple of: its
        element's size, a vector's whole size up to 16 (what the lowering
        claims, gpuc/lowering/memory.py's MAX_ACCESS_ALIGNMENT)."""
        size = self.dtype.itemsize
        if self.type_name.startswith("vector<"):
            length = self.type_name[len("vector<") :].partition("x")[0]
            size *= int(length)
        return min(size, 16)

    @property
    def dtype(self) -> np.dtype[Any]:
        found = (
            pointee_dtype(self.type_name)
            if self.space is not None
            else SCALAR_DTYPES.get(self.type_name)
        )
        if found is None:
            raise KeyError(self.type_name)
        return found

    @property
    def written(self) -> bool:
        """Whether the kernel may write through this pointer: not a constant
        pointer, nor one the compiler found only loads through."""
        return (
            self.space is not None and self.space != "constant" and not self.read_only
        )

    @property
    def spelling(self) -> str:
        if self.space is None:
            return self.type_name
        return f"!gpuc.ptr<{self.type_name}, {self.space}>"

    def to_json(self) -> dict[str, str | bool | None]:
        return {
            "name": self.name,
            "type": self.type_name,
            "space": self.space,
            "read_only": self.read_only,
            "summed": self.summed,
        }

    @staticmethod
    def from_json(data: Mapping[str, str | bool | None]) -> Param:
        space = data.get("space")
        return Param(
            str(data["name"]),
            str(data["type"]),
            str(space) if space is not None else None,
            bool(data.get("read_only", False)),
            bool(data.get("summed", False)),
        )


@dataclass(frozen=True)
class KernelSignature:
    """What an executor needs to know about a kernel, independent of xDSL."""

    name: str
    params: tuple[Param, ...]
    uses_barrier: bool = False
    static_shared_bytes: int = 0
    symbol: str = ""
    """What the kernel is launched by in the artefact (its target's record);
    empty: `name`."""
    block_size: tuple[int, ...] | None = None
    """The block the kernel is known to run with (`gpu.known_block_size`):
    any other is refused, since the compiler may have relied on it."""
    shapes: tuple[ArrayShape, ...] = ()
    """The pointer parameters imported from memrefs, with their sizes."""
    asserts: tuple[tuple[int, str], ...] = ()
    """The asserts a kernel that takes the error record as hidden parameter 0
    can report there (ptx, spirv, amdgpu: gpuc/runtime/error_record.py), as
    (id, message) from its finalization record's `errors`; empty for every
    other kernel."""
    prints: bool = False
    """The module prints (gpuc.printf): the executor flushes the runtime's
    output after a launch."""
    uses_fragments: bool = False
    """The kernel uses warp matrix fragments: an executor whose fragments are
    spread over sub-groups (`Limits.fragment_block_x`) needs its block's x
    size to be a multiple of them."""

    @property
    def launch_symbol(self) -> str:
        return self.symbol or self.name

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": [p.to_json() for p in self.params],
            "uses_barrier": self.uses_barrier,
            "static_shared_bytes": self.static_shared_bytes,
            "symbol": self.launch_symbol,
            "block_size": list(self.block_size) if self.block_size else None,
            "shapes": [shape.to_json() for shape in self.shapes],
            "asserts": [[id_, message] for id_, message in self.asserts],
            "prints": self.prints,
            "uses_fragments": self.uses_fragments,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> KernelSignature:
        return KernelSignature(
            str(data["name"]),
            tuple(Param.from_json(p) for p in data["params"]),
            bool(data["uses_barrier"]),
            int(data["static_shared_bytes"]),
            str(data.get("symbol", "")),
            tuple(data["block_size"]) if data.get("block_size") else None,
            tuple(ArrayShape.from_json(s) for s in data.get("shapes", ())),
            tuple((int(i), str(m)) for i, m in data.get("asserts", ())),
            bool(data.get("prints", False)),
            bool(data.get("uses_fragments", False)),
        )


@dataclass(frozen=True)
class Limits:
    """What one executor's device accepts in a launch."""

    max_block_threads: int
    max_block: Dim3
    max_grid: Dim3
    max_shared_bytes: int
    fragment_block_x: int = 1
    """What the x size of a block of a kernel using matrix fragments must be a
    multiple of (spirv: 32, the sub-groups a fragment is spread over; Intel's
    runtime forms sub-groups along x only)."""


# CUDA's limits (compute capability 5.0 and later, static shared memory), used
# by the native executor too so that a launch that runs there runs on a GPU.
CUDA_LIMITS = Limits(1024, (1024, 1024, 64), (2**31 - 1, 65535, 65535), 48 * 1024)


def find_kernel(kernels: Mapping[str, KernelSignature], name: str) -> KernelSignature:
    """The signature of kernel `name`, or a LaunchError listing the kernels."""
    try:
        return kernels[name]
    except KeyError:
        known = ", ".join(sorted(kernels)) or "none"
        raise LaunchError(
            f"no kernel named '{name}' in this module (kernels: {known})"
        ) from None


def _where(kernel: str, param: Param, position: int) -> str:
    return f"kernel '{kernel}': argument {position} ('{param.name}': {param.spelling})"


def dim3(value: object, what: str, kernel: str) -> Dim3:
    """`value` (an int or a sequence of 1-3 ints) as (x, y, z), each at least 1."""
    items: Sequence[object]
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        items = value
    elif isinstance(value, np.ndarray) and value.ndim == 1:
        items = list(value)
    else:
        items = (value,)
    if not 1 <= len(items) <= 3:
        raise LaunchError(
            f"kernel '{kernel}': {what} must be an int or 1 to 3 ints, got {value!r}"
        )
    dims: list[int] = []
    for axis, item in zip("xyz", items, strict=False):
        if isinstance(item, bool | np.bool_):
            raise LaunchError(f"kernel '{kernel}': {what}.{axis} is a bool, not a size")
        try:
            size = operator.index(item)  # type: ignore[arg-type]
        except TypeError:
            raise LaunchError(
                f"kernel '{kernel}': {what}.{axis} must be an int, "
                f"got {type(item).__name__} {item!r}"
            ) from None
        if size < 1:
            raise LaunchError(
                f"kernel '{kernel}': {what}.{axis} is {size}; every {what} "
                "dimension must be at least 1"
            )
        dims.append(size)
    dims += [1] * (3 - len(dims))
    return (dims[0], dims[1], dims[2])


def shared_bytes(value: object, kernel: str) -> int:
    """A launch's dynamic shared-memory size in bytes (an int, at least 0)."""
    if isinstance(value, bool | np.bool_):
        raise LaunchError(f"kernel '{kernel}': shared is a bool, not a byte count")
    try:
        size = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise LaunchError(
            f"kernel '{kernel}': shared (dynamic shared memory) must be a number "
            f"of bytes, got {type(value).__name__} {value!r}"
        ) from None
    if size < 0:
        raise LaunchError(f"kernel '{kernel}': shared is {size} bytes; at least 0")
    return size


def check_geometry(
    sig: KernelSignature,
    grid: object,
    block: object,
    limits: Limits,
    shared: object = 0,
) -> tuple[Dim3, Dim3]:
    """Normalized (grid, block) for `sig` with `shared` bytes of dynamic shared
    memory, or a LaunchError saying what is too big."""
    dynamic = shared_bytes(shared, sig.name)
    g = dim3(grid, "grid", sig.name)
    b = dim3(block, "block", sig.name)
    for what, dims, top in (
        ("grid", g, limits.max_grid),
        ("block", b, limits.max_block),
    ):
        for axis, size, most in zip("xyz", dims, top, strict=True):
            if size > most:
                raise LaunchError(
                    f"kernel '{sig.name}': {what}.{axis} = {size} exceeds this "
                    f"executor's limit of {most}"
                )
    if sig.block_size is not None and b != tuple(sig.block_size):
        raise LaunchError(
            f"kernel '{sig.name}' is compiled for block {tuple(sig.block_size)} "
            f"(its gpu.known_block_size) and cannot run with block {b}; launch "
            "it with that block, or drop the attribute"
        )
    if sig.uses_fragments and b[0] % limits.fragment_block_x:
        raise LaunchError(
            f"kernel '{sig.name}' uses matrix fragments, which this executor "
            f"spreads over sub-groups of {limits.fragment_block_x} threads along "
            f"x, but block {b} has an x size of {b[0]}; launch it with a block "
            f"whose x size is a multiple of {limits.fragment_block_x}"
        )
    threads = b[0] * b[1] * b[2]
    if threads > limits.max_block_threads:
        raise LaunchError(
            f"kernel '{sig.name}': block {b} has {threads} threads; this executor "
            f"runs at most {limits.max_block_threads} threads per block"
        )
    if sig.static_shared_bytes > limits.max_shared_bytes:
        raise LaunchError(
            f"kernel '{sig.name}' needs {sig.static_shared_bytes} bytes of shared "
            f"memory per block; this executor provides at most "
            f"{limits.max_shared_bytes} bytes: allocate less with gpuc.shared_alloc"
        )
    if sig.static_shared_bytes + dynamic > limits.max_shared_bytes:
        raise LaunchError(
            f"kernel '{sig.name}': {dynamic} bytes of dynamic shared memory and "
            f"{sig.static_shared_bytes} static exceed the {limits.max_shared_bytes} "
            "bytes per block this executor provides"
        )
    return g, b


HOST_UNREACHABLE_SPACES = {
    "shared": "shared memory (a kernel allocates it with gpuc.shared_alloc)",
    "local": "a thread's private memory",
}
"""Address spaces a launch argument cannot point into, and what they are."""


def _check_passable(kernel: str, param: Param, position: int) -> None:
    """A LaunchError unless the host has a value for `param`: a numpy dtype
    for a scalar or a pointee, memory it can point into for a pointer."""
    known = (
        pointee_dtype(param.type_name)
        if param.space is not None
        else SCALAR_DTYPES.get(param.type_name)
    )
    if param.space not in HOST_UNREACHABLE_SPACES and known is not None:
        return
    where = _where(kernel, param, position)
    if param.space in HOST_UNREACHABLE_SPACES:
        raise LaunchError(
            f"{where} is a {param.space} pointer, which the host cannot pass: "
            f"it points into {HOST_UNREACHABLE_SPACES[param.space]}; make the "
            "parameter a global or constant pointer"
        )
    if param.type_name == "bf16" and param.space is None:
        raise LaunchError(
            f"{where} is of type bf16, which has no numpy dtype, so the host "
            "cannot pass it: make it an f32 parameter and arith.truncf it to bf16 "
            "in the kernel (bf16 arrays go through a !gpuc.ptr<bf16> as uint16 "
            "arrays of the bit patterns)"
        )
    if known is None:
        what = "points to" if param.space is not None else "is of type"
        raise LaunchError(
            f"{where} {what} {param.type_name}, which has no numpy dtype, so the "
            f"host cannot pass it: use one of {', '.join(SCALAR_DTYPES)} in the "
            "kernel's signature"
        )


def _pointer_arg(
    kernel: str, param: Param, position: int, value: object, strided: bool = False
) -> Any:
    """`value` checked for pointer parameter `param`; `strided`: a strided
    memref's, which takes any view whose strides are whole elements."""
    if not isinstance(value, np.ndarray | DeviceArray) and is_foreign_array(value):
        value = _foreign_arg(kernel, param, position, value)
    if isinstance(value, DeviceArray):
        if _dtype_matches(value.dtype, param):
            return value
    elif (
        isinstance(value, np.ndarray)
        and _dtype_matches(value.dtype, param)
        and (value.flags.c_contiguous or strided and _element_strides(value))
        and (value.flags.writeable or not param.written)
        and _aligned(value, param)
    ):
        return value
    where = _where(kernel, param, position)
    if isinstance(value, DeviceArray):
        if not _dtype_matches(value.dtype, param):
            raise LaunchError(
                f"{where} must be an array of {param.dtype}, got a device array "
                f"of {value.dtype}"
            )
        return value
    if not isinstance(value, np.ndarray):
        raise LaunchError(
            f"{where} must be an array of {param.dtype} (numpy, a device array, "
            "or one offering DLPack, __array_interface__ or the buffer protocol), "
            f"got {type(value).__name__}"
        )
    if not _dtype_matches(value.dtype, param):
        raise LaunchError(
            f"{where} must be a numpy array of {param.dtype}, got one of "
            f"{value.dtype}: convert it with .astype(np.{param.dtype})"
        )
    if strided and not _element_strides(value):
        raise LaunchError(
            f"{where} comes from a strided memref, which takes views whose "
            f"strides are non-negative multiples of the element size; the "
            f"array's strides are {value.strides} bytes: pass a copy, a.copy()"
        )
    if not value.flags.c_contiguous and not strided:
        raise LaunchError(
            f"{where} is not contiguous (the kernel indexes it linearly): "
            "pass np.ascontiguousarray(...)"
        )
    if param.written and not value.flags.writeable:
        raise LaunchError(
            f"{where} is read-only, but the kernel may write through this "
            f"{param.space} pointer: pass a writeable copy"
        )
    if not _aligned(value, param):
        raise LaunchError(
            f"{where} starts at an address that is not a multiple of "
            f"{param.alignment} bytes, which a pointer to {param.type_name} needs "
            "(a slice such as a[1:] can start anywhere): pass a copy, a.copy()"
        )
    return value


def _foreign_arg(
    kernel: str, param: Param, position: int, value: object
) -> np.ndarray[Any, Any]:
    """Another library's array as a numpy view of its memory (foreign.py)."""
    try:
        return host_view(value, param.written)
    except ForeignArrayError as error:
        raise LaunchError(f"{_where(kernel, param, position)} is {error}") from None


def _element_strides(value: np.ndarray[Any, Any]) -> tuple[int, ...] | None:
    """`value`'s strides in elements, if all are non-negative whole elements."""
    size = value.itemsize
    if any(s < 0 or s % size for s in value.strides):
        return None
    return tuple(s // size for s in value.strides)


def _span(value: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The memory a view with non-negative strides covers, from its first
    element to its last, as a 1-D C-contiguous array over the same memory:
    what a strided memref's pointer is passed as (executors copy or map it)."""
    if value.flags.c_contiguous:
        return value.reshape(-1)
    extent = (
        0
        if value.size == 0
        else 1
        + sum((n - 1) * s for n, s in zip(value.shape, value.strides, strict=True))
        // value.itemsize
    )
    return np.lib.stride_tricks.as_strided(
        value, (extent,), (value.itemsize,), writeable=value.flags.writeable
    )


def _view_offset(value: np.ndarray[Any, Any]) -> int:
    """Elements from the start of the array `value` views to its first element."""
    base = value
    while isinstance(base.base, np.ndarray):
        base = base.base
    start = int(value.__array_interface__["data"][0])
    return (start - int(base.__array_interface__["data"][0])) // value.itemsize


def _aligned(value: np.ndarray[Any, Any], param: Param) -> bool:
    if not value.flags.aligned:
        return False
    if param.alignment <= value.dtype.itemsize or value.size == 0:
        return True
    return int(value.__array_interface__["data"][0]) % param.alignment == 0


def _dtype_matches(dtype: np.dtype[Any], param: Param) -> bool:
    """An array's dtype against a pointee type; gpuc's integers are signless,
    so intN arrays and uintN arrays both match iN (and bf16's uint16)."""
    want = param.dtype
    if dtype == want:
        return True
    return want.kind in "iu" and dtype.kind in "iu" and dtype.itemsize == want.itemsize


def _int_arg(kernel: str, param: Param, position: int, value: object) -> Any:
    if type(value) is param.dtype.type:  # already the parameter's type
        return value
    where = _where(kernel, param, position)
    if param.type_name == "i1":
        if isinstance(value, bool | np.bool_ | int | np.integer) and value in (0, 1):
            return np.bool_(bool(value))
        raise LaunchError(f"{where} must be a bool, got {value!r}")
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise LaunchError(
            f"{where} must be an int, got {type(value).__name__} {value!r}"
        )
    bits = param.dtype.itemsize * 8
    as_int = int(value)
    # Signless: accept the signed and the unsigned range, pass the bit pattern.
    lowest = -(2 ** (bits - 1)) if param.type_name != "index" else -(2**63)
    highest = 2**bits - 1 if param.type_name != "index" else 2**63 - 1
    if not lowest <= as_int <= highest:
        raise LaunchError(
            f"{where} = {as_int} does not fit in {bits} bits "
            f"(accepted: {lowest} to {highest})"
        )
    wrapped = as_int - 2**bits if as_int >= 2 ** (bits - 1) else as_int
    return param.dtype.type(wrapped)


def _float_arg(kernel: str, param: Param, position: int, value: object) -> Any:
    if type(value) is param.dtype.type:  # already the parameter's type
        return value
    where = _where(kernel, param, position)
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise LaunchError(
            f"{where} must be a real number, got {type(value).__name__} {value!r}"
        )
    try:
        with np.errstate(over="ignore"):
            converted = param.dtype.type(value)
    except OverflowError:  # an int beyond every float
        converted = None
    # inf and nan pass as they are; a finite value must not become one.
    if converted is not None and (np.isfinite(converted) or not math.isfinite(value)):
        return converted
    digits = len(str(value))
    shown = value if digits <= 40 else f"an int of {digits} digits"
    raise LaunchError(
        f"{where} = {shown} is beyond the range of {param.type_name} (largest "
        f"finite value: {np.finfo(param.dtype).max!s}); pass a value within it, or inf"
    )


_FROM_SHAPE = object()
"""Stands for a size parameter the launch fills from its array's shape."""


def _with_implicit_sizes(sig: KernelSignature, values: list[object]) -> list[object]:
    """`values` with a placeholder for each size parameter a memref import
    added, when the caller passed the arrays alone."""
    implicit = {p for shape in sig.shapes for p in shape.implicit_params}
    if not implicit or len(values) != len(sig.params) - len(implicit):
        return values
    given = iter(values)
    return [
        _FROM_SHAPE if i in implicit else next(given) for i in range(len(sig.params))
    ]


def _fill_sizes(sig: KernelSignature, checked: list[Any]) -> None:
    """Each memref parameter's sizes from its array's shape, or the sizes
    passed checked against it: a wrong size would let the kernel overrun."""
    for shape in sig.shapes:
        array = checked[shape.pointer]
        param = sig.params[shape.pointer]
        where = _where(sig.name, param, shape.pointer)
        dims = shape.dims
        spelled = "x".join("?" if d is None else str(d) for d in dims)
        positions = iter(shape.size_params)
        passed = {d: next(positions) for d, size in enumerate(dims) if size is None}
        implicit = any(checked[p] is _FROM_SHAPE for p in passed.values())
        if array.ndim != len(dims):
            if implicit or shape.strides is not None:
                raise LaunchError(
                    f"{where} comes from a memref<{spelled}>: pass an array of "
                    f"rank {len(dims)} (its shape gives the sizes), got shape "
                    f"{array.shape}"
                )
            # A flat array with the sizes passed: the element counts must agree.
            count = math.prod(
                int(checked[passed[d]]) if size is None else size
                for d, size in enumerate(dims)
            )
            if array.size != count:
                raise LaunchError(
                    f"{where} comes from a memref<{spelled}> of {count} elements "
                    f"with the sizes passed; the array has {array.size}"
                )
            continue
        for d, size in enumerate(dims):
            actual = int(array.shape[d])
            if size is not None:
                if actual != size:
                    raise LaunchError(
                        f"{where} comes from a memref<{spelled}>, so its dimension "
                        f"{d} is {size}; the array's shape is {array.shape}"
                    )
                continue
            _fill(sig, checked, passed[d], actual, shape, "shape", array.shape)
        if shape.strides is not None:
            _fill_layout(sig, shape, checked)


def _fill(
    sig: KernelSignature,
    checked: list[Any],
    position: int,
    actual: int,
    shape: ArrayShape,
    what: str,
    seen: object,
) -> None:
    """Fill parameter `position` with `actual`, or check what was passed."""
    value = checked[position]
    if value is _FROM_SHAPE:
        checked[position] = np.int64(actual)
    elif int(value) != actual:
        param = sig.params[shape.pointer]
        raise LaunchError(
            f"{_where(sig.name, sig.params[position], position)} = "
            f"{int(value)} disagrees with argument {shape.pointer} "
            f"('{param.name}'), an array of {what} {seen}: pass "
            f"{actual}, or leave it out and gpuc takes it from the array"
        )


def _fill_layout(sig: KernelSignature, shape: ArrayShape, checked: list[Any]) -> None:
    """A strided memref's dynamic strides and offset from its array (a view
    of any non-negative strides; a device array is C-contiguous), its static
    strides checked, and the array replaced by the memory it spans."""
    assert shape.strides is not None
    array = checked[shape.pointer]
    param = sig.params[shape.pointer]
    if isinstance(array, np.ndarray):
        strides = _element_strides(array)
        assert strides is not None  # _pointer_arg checked it
        offset = _view_offset(array)
    else:  # a device array: C-contiguous
        strides = tuple(math.prod(array.shape[d + 1 :]) for d in range(array.ndim))
        offset = 0
    seen = f"strides {strides} (elements)"
    positions = iter(shape.stride_params)
    for d, (size, stride) in enumerate(zip(array.shape, shape.strides, strict=True)):
        if stride is None:
            _fill(sig, checked, next(positions), strides[d], shape, "strides", seen)
        elif size > 1 and strides[d] != stride:
            spelled = ", ".join("?" if s is None else str(s) for s in shape.strides)
            raise LaunchError(
                f"{_where(sig.name, param, shape.pointer)} comes from a memref "
                f"with layout strided<[{spelled}]>, so its dimension {d} has "
                f"stride {stride}; the array's {seen}: pass a view with "
                "those strides"
            )
    if shape.offset is None:
        position = shape.implicit_params.stop - 1
        if checked[position] is _FROM_SHAPE:
            checked[position] = np.int64(offset)
    if isinstance(array, np.ndarray):
        checked[shape.pointer] = _span(array)


def _shared_arg(
    kernel: str, param: Param, position: int, value: object, takes: bool
) -> SharedMemory:
    """The dynamic shared memory a launch allocates for a shared pointer
    parameter, where the executor can pass it (`takes`)."""
    where = _where(kernel, param, position)
    if not isinstance(value, SharedMemory):
        raise LaunchError(
            f"{where} is a shared pointer, which the host cannot point into: pass "
            f"gpuc.SharedMemory(count), and the launch allocates count "
            f"{param.type_name} per block, got {type(value).__name__}"
        )
    if not takes:
        raise LaunchError(
            f"{where} is a shared pointer, which the host cannot pass to this "
            "executor: the native, spirv and ptx executors give shared pointer "
            "parameters dynamic shared memory; here allocate it in the kernel "
            "with gpuc.shared_alloc"
        )
    return value


def check_args(
    sig: KernelSignature, args: Iterable[object], shared_params: bool = False
) -> list[Any]:
    """The arguments converted for `sig` (arrays unchanged, scalars as numpy
    scalars of the parameter's type), or a LaunchError naming the first bad one.
    A kernel imported from memrefs also takes its arrays without their sizes.
    `shared_params`: the executor passes `SharedMemory` for shared pointers."""
    if not isinstance(args, Iterable) or isinstance(args, str | bytes | Mapping):
        raise LaunchError(
            f"kernel '{sig.name}': pass its arguments as a tuple or list, "
            f"got {type(args).__name__} {args!r}"
        )
    values = _with_implicit_sizes(sig, list(args))
    if len(values) != len(sig.params):
        spelled = ", ".join(f"{p.name}: {p.spelling}" for p in sig.params)
        short = ""
        if sig.shapes:
            sizes = sum(len(shape.implicit_params) for shape in sig.shapes)
            short = f" (or {len(sig.params) - sizes} without the memrefs' sizes)"
        raise LaunchError(
            f"kernel '{sig.name}' takes {len(sig.params)} arguments{short} "
            f"({spelled}), got {len(values)}"
        )
    checked: list[Any] = []
    strided_params = {s.pointer for s in sig.shapes if s.strides is not None}
    for position, (param, value) in enumerate(zip(sig.params, values, strict=True)):
        if param.space == "shared" and param.type_name in SCALAR_DTYPES:
            checked.append(_shared_arg(sig.name, param, position, value, shared_params))
            continue
        _check_passable(sig.name, param, position)
        if value is _FROM_SHAPE:
            checked.append(value)
        elif param.kind == "pointer":
            strided = position in strided_params
            checked.append(_pointer_arg(sig.name, param, position, value, strided))
        elif param.kind == "int":
            checked.append(_int_arg(sig.name, param, position, value))
        else:
            checked.append(_float_arg(sig.name, param, position, value))
    if sig.shapes:
        _fill_sizes(sig, checked)
    return checked


@dataclass(frozen=True)
class Launch:
    """A checked launch: the kernel, its normalized geometry, its arguments."""

    sig: KernelSignature
    grid: Dim3
    block: Dim3
    values: list[Any]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    shared: int = 0
    """Dynamic shared-memory bytes per block (the launch's, and those of its
    `SharedMemory` arguments)."""

    def arrays(self) -> Iterator[tuple[Param, np.ndarray[Any, Any]]]:
        """The numpy array arguments (pointer parameters) with their
        parameters: what an executor with its own memory copies."""
        for param, value in zip(self.sig.params, self.values, strict=True):
            if isinstance(value, np.ndarray):
                yield param, value

    def device_arrays(self) -> Iterator[tuple[Param, DeviceArray]]:
        """The device array arguments with their parameters."""
        for param, value in zip(self.sig.params, self.values, strict=True):
            if isinstance(value, DeviceArray):
                yield param, value


def check_launch(
    kernels: Mapping[str, KernelSignature],
    name: str,
    grid: object,
    block: object,
    args: Iterable[object],
    limits: Callable[[str], Limits],
    shared: object = 0,
    shared_params: bool = False,
) -> Launch:
    """Everything an executor checks before a launch, in one call: `shared`
    is the launch's dynamic shared memory in bytes; `shared_params`, whether
    the executor passes `SharedMemory` for shared pointer parameters (their
    bytes count against the same limit)."""
    sig = find_kernel(kernels, name)
    values = check_args(sig, args, shared_params)
    _offsets, windows = shared_windows(sig, values)
    dynamic = shared_bytes(shared, name) + windows
    g, b = remembered_geometry(sig, grid, block, limits(name), dynamic)
    return Launch(sig, g, b, values, dynamic)


def shared_windows(
    sig: KernelSignature, values: Sequence[Any]
) -> tuple[list[int | None], int]:
    """Each argument's byte offset in the launch's dynamic shared memory
    (None where it is no `SharedMemory`), the windows in parameter order, and
    the bytes they take together; any `shared=` bytes come after them."""
    offsets: list[int | None] = []
    end = 0
    for param, value in zip(sig.params, values, strict=True):
        if isinstance(value, SharedMemory):
            # Here, not at the top: this module needs numpy only (device_check).
            from gpuc.targets.launch_abi import SHARED_WINDOW_ALIGN

            offsets.append(end)
            size = value.count * param.dtype.itemsize
            end += -(-size // SHARED_WINDOW_ALIGN) * SHARED_WINDOW_ALIGN
        else:
            offsets.append(None)
    return offsets, end


def with_shared_offsets(launch: Launch) -> list[Any]:
    """`launch`'s values with each `SharedMemory` replaced by its window's
    byte offset (`np.uint64`), what a kernel's shared pointer parameter
    receives where one window holds them all: the kernel adds it to the
    window's address (ptx: `__gpuc_dynamic_shared`, native: the block's
    shared memory past its static part)."""
    offsets, _end = shared_windows(launch.sig, launch.values)
    return [
        value if offset is None else np.uint64(offset)
        for value, offset in zip(launch.values, offsets, strict=True)
    ]


_GEOMETRIES: dict[tuple[Any, ...], tuple[Dim3, Dim3]] = {}
_GEOMETRY_MEMO = 4096


def remembered_geometry(
    sig: KernelSignature, grid: object, block: object, limits: Limits, shared: int
) -> tuple[Dim3, Dim3]:
    """`check_geometry`, remembered for launches that repeat one (a loop of
    small launches then pays one dict lookup): only plain ints and tuples of
    ints are remembered, and only geometries that passed."""
    if not (_plain(grid) and _plain(block)):
        return check_geometry(sig, grid, block, limits, shared)
    key = (sig, grid, block, limits, shared)
    found = _GEOMETRIES.get(key)
    if found is None:
        found = check_geometry(sig, grid, block, limits, shared)
        if len(_GEOMETRIES) >= _GEOMETRY_MEMO:
            _GEOMETRIES.clear()
        _GEOMETRIES[key] = found
    return found


def _plain(dims: object) -> bool:
    if type(dims) is int:
        return True
    return type(dims) is tuple and all(type(d) is int for d in dims)
