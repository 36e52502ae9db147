"""Launch checking shared by every executor: a kernel's host-visible signature,
its arguments and its launch geometry, each checked before anything runs.

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

Dim3 = tuple[int, int, int]
ParamKind = Literal["pointer", "int", "float"]


class LaunchError(ValueError):
    """A kernel launch gpuc refused or a device failed; the message says why."""


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


@dataclass(frozen=True)
class Param:
    """One kernel parameter as the host sees it.

    `type_name` is the scalar's or the pointee's name (`f32`, `i32`, `index`);
    `space` is the pointer's address space, None for scalars.
    """

    name: str
    type_name: str
    space: str | None = None

    @property
    def kind(self) -> ParamKind:
        if self.space is not None:
            return "pointer"
        return "float" if self.type_name.startswith("f") else "int"

    @property
    def dtype(self) -> np.dtype[Any]:
        return SCALAR_DTYPES[self.type_name]

    @property
    def written(self) -> bool:
        """Whether the kernel may write through this pointer (all but constant)."""
        return self.space is not None and self.space != "constant"

    @property
    def spelling(self) -> str:
        if self.space is None:
            return self.type_name
        return f"!gpuc.ptr<{self.type_name}, {self.space}>"

    def to_json(self) -> dict[str, str | None]:
        return {"name": self.name, "type": self.type_name, "space": self.space}

    @staticmethod
    def from_json(data: Mapping[str, str | None]) -> Param:
        return Param(str(data["name"]), str(data["type"]), data.get("space"))


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
        )


@dataclass(frozen=True)
class Limits:
    """What one executor's device accepts in a launch."""

    max_block_threads: int
    max_block: Dim3
    max_grid: Dim3
    max_shared_bytes: int


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


def check_geometry(
    sig: KernelSignature, grid: object, block: object, limits: Limits
) -> tuple[Dim3, Dim3]:
    """Normalized (grid, block) for `sig`, or a LaunchError saying what is too big."""
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
    return g, b


HOST_UNREACHABLE_SPACES = {
    "shared": "shared memory (a kernel allocates it with gpuc.shared_alloc)",
    "local": "a thread's private memory",
}
"""Address spaces a launch argument cannot point into, and what they are."""


def _check_passable(kernel: str, param: Param, position: int) -> None:
    """A LaunchError unless the host has a value for `param`: a numpy dtype
    for a scalar or a pointee, memory it can point into for a pointer."""
    where = _where(kernel, param, position)
    if param.space in HOST_UNREACHABLE_SPACES:
        raise LaunchError(
            f"{where} is a {param.space} pointer, which the host cannot pass: "
            f"it points into {HOST_UNREACHABLE_SPACES[param.space]}; make the "
            "parameter a global or constant pointer"
        )
    if param.type_name not in SCALAR_DTYPES:
        what = "points to" if param.space is not None else "is of type"
        raise LaunchError(
            f"{where} {what} {param.type_name}, which has no numpy dtype, so the "
            f"host cannot pass it: use one of {', '.join(SCALAR_DTYPES)} in the "
            "kernel's signature"
        )


def _pointer_arg(kernel: str, param: Param, position: int, value: object) -> Any:
    where = _where(kernel, param, position)
    if not isinstance(value, np.ndarray):
        raise LaunchError(
            f"{where} must be a numpy array of {param.dtype}, "
            f"got {type(value).__name__}"
        )
    if not _dtype_matches(value.dtype, param):
        raise LaunchError(
            f"{where} must be a numpy array of {param.dtype}, got one of "
            f"{value.dtype}: convert it with .astype(np.{param.dtype})"
        )
    if not value.flags.c_contiguous:
        raise LaunchError(
            f"{where} is not contiguous (the kernel indexes it linearly): "
            "pass np.ascontiguousarray(...)"
        )
    if param.written and not value.flags.writeable:
        raise LaunchError(
            f"{where} is read-only, but a {param.space} pointer may be written "
            "through: pass a writeable copy"
        )
    return value


def _dtype_matches(dtype: np.dtype[Any], param: Param) -> bool:
    """An array's dtype against a pointee type; gpuc's integers are signless,
    so intN arrays and uintN arrays both match iN."""
    want = param.dtype
    if dtype == want:
        return True
    return want.kind == "i" and dtype.kind == "u" and dtype.itemsize == want.itemsize


def _int_arg(kernel: str, param: Param, position: int, value: object) -> Any:
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


def check_args(sig: KernelSignature, args: Iterable[object]) -> list[Any]:
    """The arguments converted for `sig` (arrays unchanged, scalars as numpy
    scalars of the parameter's type), or a LaunchError naming the first bad one."""
    if not isinstance(args, Iterable) or isinstance(args, str | bytes | Mapping):
        raise LaunchError(
            f"kernel '{sig.name}': pass its arguments as a tuple or list, "
            f"got {type(args).__name__} {args!r}"
        )
    values = list(args)
    if len(values) != len(sig.params):
        spelled = ", ".join(f"{p.name}: {p.spelling}" for p in sig.params)
        raise LaunchError(
            f"kernel '{sig.name}' takes {len(sig.params)} arguments ({spelled}), "
            f"got {len(values)}"
        )
    checked: list[Any] = []
    for position, (param, value) in enumerate(zip(sig.params, values, strict=True)):
        _check_passable(sig.name, param, position)
        if param.kind == "pointer":
            checked.append(_pointer_arg(sig.name, param, position, value))
        elif param.kind == "int":
            checked.append(_int_arg(sig.name, param, position, value))
        else:
            checked.append(_float_arg(sig.name, param, position, value))
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

    def arrays(self) -> Iterator[tuple[Param, np.ndarray[Any, Any]]]:
        """The array arguments (pointer parameters) with their parameters."""
        for param, value in zip(self.sig.params, self.values, strict=True):
            if isinstance(value, np.ndarray):
                yield param, value


def check_launch(
    kernels: Mapping[str, KernelSignature],
    name: str,
    grid: object,
    block: object,
    args: Iterable[object],
    limits: Callable[[str], Limits],
) -> Launch:
    """Everything an executor checks before a launch, in one call."""
    sig = find_kernel(kernels, name)
    g, b = check_geometry(sig, grid, block, limits(name))
    return Launch(sig, g, b, check_args(sig, args))
