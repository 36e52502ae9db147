"""How the host runner executes host ops: xDSL interpreter functions.

A memref is a C-contiguous numpy array of its shape (an unranked memref is
the same array), so a `gpu.launch_func` hands the host's buffers to the
kernel as they are: native runs on them; spirv runs on OpenCL buffers over
their memory (`host_view`), so that kernels running at the same time share
them, as CUDA's host-registered and host-shared memory is shared. A vector is
a 1-D numpy array, an `!async.value` is its payload.

GPU ops run as MLIR's CUDA runtime runs them (gpuc/host/streams.py): an
async one (`gpu.launch_func async`, `gpu.memcpy async`, ...) goes to the
stream of its first dependency's chain (a new one without dependencies) and
returns a token at once, so independent chains run at the same time; a sync
one waits for its dependencies, then runs to completion; `gpu.wait` waits
for its tokens. `async.execute` regions run in program order, inline (their
tokens are None). `memref.alloc` and `gpu.alloc` give zeroed, page-aligned
buffers.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import import_module
from math import prod
from typing import IO, TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith, builtin, func, gpu, math, memref, scf, vector
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_external,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute, Operation

from gpuc.diagnostics import OpError
from gpuc.host import dialects as host
from gpuc.host.runner_utils import (
    DEVICE_VIEWS,
    FILLERS,
    PRINTERS,
    fill,
    format_memref,
    format_vector,
)
from gpuc.host.streams import Streams, Work, wait
from gpuc.runtime.args import SCALAR_DTYPES

if TYPE_CHECKING:
    from gpuc.api import Module


_SCALAR_ATTR = getattr(import_module("xdsl.interpreters.builtin"), "scalar_attr", None)
"""xDSL 0.75's interpreter holds scalars as IntegerAttr / FloatAttr (made by
this function); 0.74's as Python ints and floats. The functions here take
either (`plain`) and give what the installed xDSL's ops take (`runtime`)."""


def plain(values: PythonValues) -> tuple[Any, ...]:
    """`values` with each scalar as a Python int or float."""
    return tuple(
        v.value.data if isinstance(v, builtin.IntegerAttr | builtin.FloatAttr) else v
        for v in values
    )


def runtime(interpreter: Interpreter, value: Any, kind: Attribute) -> Any:
    """A scalar of type `kind` as the installed xDSL's interpreter holds it."""
    if _SCALAR_ATTR is None:
        return value
    return _SCALAR_ATTR(value, kind, interpreter.index_bitwidth)


def dtype_of(op: Operation, element: Attribute) -> np.dtype[Any]:
    """The numpy dtype of an element type, or an OpError at `op`."""
    dtype = SCALAR_DTYPES.get(str(element))
    if dtype is None:
        raise OpError(
            op,
            f"the host runner holds no {element} values (it takes "
            f"{', '.join(SCALAR_DTYPES)})",
        )
    return dtype


def shape_of(op: Operation, kind: Attribute, dynamic: list[int]) -> tuple[int, ...]:
    """The shape of a memref of type `kind`, its `?` sizes taken from `dynamic`
    (index values, signed: a negative size is an OpError at `op`)."""
    if not isinstance(kind, builtin.MemRefType):
        raise OpError(op, f"the host runner allocates ranked memrefs only, not {kind}")
    sizes = iter(dynamic)
    shape = tuple(
        _signed(next(sizes), builtin.IndexType()) if d == builtin.DYNAMIC_INDEX else d
        for d in kind.get_shape()
    )
    for dimension, size in enumerate(shape):
        if size < 0:
            raise OpError(
                op,
                f"allocates a buffer of {size} elements in dimension {dimension} "
                f"(shape {list(shape)}); a size must be at least 0",
            )
    return shape


def allocate(
    op: Operation, kind: Attribute, dynamic: list[int]
) -> np.ndarray[Any, Any]:
    """A zeroed buffer for a memref of type `kind` (`?` sizes from `dynamic`),
    or an OpError at `op` where its size is negative or more than this
    machine's memory (which an overcommitting kernel might grant, to kill the
    process once the kernel writes it)."""
    assert isinstance(kind, builtin.MemRefType)
    shape = shape_of(op, kind, dynamic)
    dtype = dtype_of(op, kind.get_element_type())
    nbytes = prod(shape) * dtype.itemsize
    memory = _physical_memory()
    if memory and nbytes > memory:
        raise OpError(
            op,
            f"allocates {_bytes(nbytes)} (shape {list(shape)} of "
            f"{kind.get_element_type()}), more "
            f"than this machine's memory ({_bytes(memory)})",
        )
    layout = kind.layout
    strides: list[int] = []
    offset = 0
    if isinstance(layout, builtin.StridedLayoutAttr):
        found, at = layout.get_strides(), layout.get_offset()
        if at is None or None in found or builtin.DYNAMIC_INDEX in (*found, at):
            raise OpError(op, f"allocates a {kind}, whose layout is not static")
        strides, offset = [int(s) for s in found if s is not None], int(at)
    try:
        if not strides:
            return zeros(shape, dtype)
        return laid_out(shape, dtype, strides, offset)
    except (MemoryError, ValueError) as e:
        raise OpError(
            op, f"cannot allocate {_bytes(nbytes)} (shape {list(shape)}): {e}"
        ) from None


def laid_out(
    shape: tuple[int, ...], dtype: np.dtype[Any], strides: list[int], offset: int
) -> np.ndarray[Any, Any]:
    """A zeroed buffer of `shape` addressed as a strided layout says: MLIR
    allocates the shape's elements and puts element [0, ...] `offset`
    elements from their start (xDSL's stencil lowering allocates temporaries
    with negative offsets, then indexes past the shape's ends). The buffer
    holds both the allocation and every element of the shape."""
    extent = [s * (n - 1) for s, n in zip(strides, shape, strict=True) if n]
    low = min(0, offset + sum(min(0, e) for e in extent))
    high = max(prod(shape), offset + sum(max(0, e) for e in extent) + 1)
    memory = zeros((high - low,), dtype)
    return np.ndarray(
        shape,
        dtype,
        buffer=memory,
        offset=(offset - low) * dtype.itemsize,
        strides=[s * dtype.itemsize for s in strides],
    )


def _physical_memory() -> int:
    """This machine's memory in bytes (0 where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _bytes(n: int) -> str:
    """`n` bytes as a person reads them: 4.0 TiB, 12 bytes."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def view_in_memory(
    array: np.ndarray[Any, Any], start: int, shape: list[int], strides: list[int]
) -> np.ndarray[Any, Any] | None:
    """The view of `shape` and byte `strides` whose element [0, ...] is
    `start` bytes after `array`'s, over the memory `array` is a view of; None
    where some element lies outside that memory."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        return None
    first = array.ctypes.data + start - root.ctypes.data
    low = first + sum(
        min(0, s * (n - 1)) for s, n in zip(strides, shape, strict=True) if n
    )
    high = first + sum(
        max(0, s * (n - 1)) for s, n in zip(strides, shape, strict=True) if n
    )
    if prod(shape) and (low < 0 or high + array.itemsize > root.nbytes):
        return None
    return np.ndarray(
        tuple(shape), array.dtype, buffer=root, offset=first, strides=tuple(strides)
    )


def _offsets_sizes_strides(
    op: memref.SubviewOp | memref.ReinterpretCastOp, dynamic: list[Any]
) -> tuple[list[int], list[int], list[int]]:
    """A view op's offsets, sizes and strides, each `?` taken in order from
    `dynamic` (its operands after the source)."""
    values = iter(dynamic)
    return tuple(  # type: ignore[return-value]
        [int(next(values)) if v == builtin.DYNAMIC_INDEX else v for v in s.get_values()]
        for s in (op.static_offsets, op.static_sizes, op.static_strides)
    )


def _reshaped(
    op: Operation, array: np.ndarray[Any, Any], shape: list[int]
) -> np.ndarray[Any, Any]:
    """`array` seen with `shape`, sharing its memory (expand_shape and
    collapse_shape make views, never copies)."""
    view = array.view()
    try:
        view.shape = tuple(shape)
    except (AttributeError, ValueError):
        raise OpError(
            op,
            f"reshapes a buffer of shape {list(array.shape)} and strides "
            f"{[s // array.itemsize for s in array.strides]} to {shape}, which "
            "no view of it has",
        ) from None
    return view


def host_argument(
    interpreter: Interpreter, entry: Operation, k: int, value: Any, kind: Attribute
) -> Any:
    """Argument `k` of the entry function `entry` as the host code holds it:
    a memref a numpy array of its element type and shape, the caller's own
    (changed in place); a scalar a Python number. A mismatch is an OpError at
    `entry`."""
    if not isinstance(kind, builtin.MemRefType):
        if isinstance(value, np.ndarray):
            raise OpError(entry, f"argument {k} is a {kind}, not an array")
        return runtime(interpreter, value, kind)
    dtype = dtype_of(entry, kind.element_type)
    shape = kind.get_shape()
    if (
        not isinstance(value, np.ndarray)
        or value.dtype != dtype
        or value.ndim != len(shape)
        or any(
            d not in (builtin.DYNAMIC_INDEX, n)
            for d, n in zip(shape, value.shape, strict=True)
        )
    ):
        got = (
            f"an array of {value.dtype} and shape {list(value.shape)}"
            if isinstance(value, np.ndarray)
            else type(value).__name__
        )
        raise OpError(entry, f"argument {k} is a {kind}; got {got}")
    if isinstance(kind.layout, builtin.NoneAttr) and not value.flags.c_contiguous:
        raise OpError(
            entry,
            f"argument {k} is a {kind}, contiguous; got a view with strides "
            f"{[s // value.itemsize for s in value.strides]}: pass a contiguous "
            "array (np.ascontiguousarray copies it: read the results from the copy)",
        )
    return value


def element_value(value: Any) -> Any:
    """A numpy element as the interpreter's arith ops take it (int, float)."""
    if isinstance(value, np.floating):
        return float(value)
    return int(value)


def to_element(value: Any, dtype: np.dtype[Any]) -> Any:
    """`value` (an interpreter int or float) as an element of `dtype`,
    integers wrapped to its width as the hardware would store them."""
    if dtype.kind in "iu":
        bits = dtype.itemsize * 8
        wrapped = int(value) & ((1 << bits) - 1)
        if dtype.kind == "i" and wrapped >= 1 << (bits - 1):
            wrapped -= 1 << bits
        return dtype.type(wrapped)
    return dtype.type(value)


def in_bounds(
    op: Operation, array: np.ndarray[Any, Any], indices: list[Any]
) -> tuple[int, ...]:
    """`indices` as a numpy index, or an OpError where they leave the buffer
    (undefined behaviour in MLIR; an error here)."""
    where = tuple(int(i) for i in indices)
    if len(where) != array.ndim or any(
        not 0 <= i < n for i, n in zip(where, array.shape, strict=True)
    ):
        raise OpError(
            op,
            f"accesses element {list(where)} of a buffer of shape "
            f"{list(array.shape)}, out of its bounds",
        )
    return where


def _vector_row(
    op: Operation, array: np.ndarray[Any, Any], indices: list[Any], count: int
) -> tuple[np.ndarray[Any, Any], int]:
    """The innermost row `indices` point into and the first element's index
    in it, for `count` elements from there (vector.load, vector.store); an
    OpError where they leave the buffer (undefined behaviour in MLIR)."""
    where = in_bounds(op, array, indices)
    if where[-1] + count > array.shape[-1]:
        raise OpError(
            op,
            f"accesses elements {where[-1]} to {where[-1] + count - 1} of a "
            f"row of {array.shape[-1]} (buffer of shape {list(array.shape)}), "
            "out of its bounds",
        )
    return array[where[:-1]], where[-1]


PAGE = 4096


def zeros(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """A zeroed C-contiguous array starting at a page boundary (where an
    OpenCL CPU runtime uses host memory in place)."""
    nbytes = prod(shape) * dtype.itemsize
    raw = np.zeros(nbytes + PAGE, np.uint8)
    start = -raw.ctypes.data % PAGE
    return raw[start : start + nbytes].view(dtype).reshape(shape)


def _check_same_shape(
    op: Operation, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]
) -> None:
    if a.shape != b.shape or a.dtype != b.dtype:
        raise OpError(
            op,
            f"copies between buffers of shape {a.shape} ({a.dtype}) and "
            f"{b.shape} ({b.dtype})",
        )


@register_impls
class ControlHostFunctions(InterpreterFunctions):
    """func.call and scf.for as xDSL's, where what would end in a Python
    error is an OpError at the op: recursion too deep for the interpreter
    (the host code's own, unbounded or not), a loop step that is not
    positive (MLIR leaves it undefined; range() refused 0)."""

    @impl(scf.ForOp)
    def run_for(
        self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues
    ) -> PythonValues:
        step = _signed(plain(args)[2], op.step.type)
        if step <= 0:
            raise OpError(
                op, f"steps by {step}; scf.for's step must be positive (MLIR)"
            )
        # xDSL's loop, called as its interpreter would (through its impl).
        return ScfFunctions().run_for(interpreter, op, args).values

    @impl(func.CallOp)
    def run_call(
        self, interpreter: Interpreter, op: func.CallOp, args: PythonValues
    ) -> PythonValues:
        try:
            return interpreter.call_op(op.callee, args)
        except RecursionError:
            raise OpError(
                op,
                "recurses deeper than the host runner can follow (Python's "
                f"recursion limit, {sys.getrecursionlimit()} frames); is the "
                "recursion bounded?",
            ) from None


@register_impls
class MemRefHostFunctions(InterpreterFunctions):
    """memref ops on numpy arrays."""

    def __init__(self, module: builtin.ModuleOp) -> None:
        self.module = module
        self.globals: dict[str, np.ndarray[Any, Any]] = {}

    def _allocate(
        self, op: Operation, kind: Attribute, dynamic: list[int]
    ) -> np.ndarray[Any, Any]:
        return allocate(op, kind, dynamic)

    @impl(memref.AllocOp)
    def run_alloc(
        self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        return (
            self._allocate(op, op.memref.type, list(args[: len(op.dynamic_sizes)])),
        )

    @impl(memref.AllocaOp)
    def run_alloca(
        self, interpreter: Interpreter, op: memref.AllocaOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        return (
            self._allocate(op, op.memref.type, list(args[: len(op.dynamic_sizes)])),
        )

    @impl(memref.DeallocOp)
    def run_dealloc(
        self, interpreter: Interpreter, op: memref.DeallocOp, args: PythonValues
    ) -> PythonValues:
        return ()

    @impl(memref.LoadOp)
    def run_load(
        self, interpreter: Interpreter, op: memref.LoadOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        array, *indices = args
        value = element_value(array[in_bounds(op, array, indices)])
        return (runtime(interpreter, value, op.results[0].type),)

    @impl(memref.StoreOp)
    def run_store(
        self, interpreter: Interpreter, op: memref.StoreOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        value, array, *indices = args
        array[in_bounds(op, array, indices)] = to_element(value, array.dtype)
        return ()

    @impl(memref.CastOp)
    def run_cast(
        self, interpreter: Interpreter, op: memref.CastOp, args: PythonValues
    ) -> PythonValues:
        array = args[0]
        kind = op.dest.type
        if isinstance(kind, builtin.MemRefType):
            shape = kind.get_shape()
            if len(shape) != array.ndim or any(
                d != builtin.DYNAMIC_INDEX and d != n
                for d, n in zip(shape, array.shape, strict=True)
            ):
                raise OpError(op, f"casts a buffer of shape {array.shape} to {kind}")
        return (array,)

    @impl(memref.SubviewOp)
    def run_subview(
        self, interpreter: Interpreter, op: memref.SubviewOp, args: PythonValues
    ) -> PythonValues:
        """A numpy view of the source (a rank-reducing subview indexes away
        the dropped unit dimensions), as MLIR's view shares the buffer."""
        from gpuc.transforms.foreign.memref_views import kept_dims

        array, *dynamic = plain(args)
        offsets, sizes, steps = _offsets_sizes_strides(op, dynamic)
        result = op.result.type
        assert isinstance(result, builtin.MemRefType)
        kept = kept_dims(op.static_sizes.get_values(), result.get_shape())
        index: list[slice | int] = []
        outside: str | None = None
        for d, (start, size, step) in enumerate(
            zip(offsets, sizes, steps, strict=True)
        ):
            end = start + (size - 1) * step + 1 if size else start
            if start < 0 or size < 0 or step < 1:
                raise OpError(
                    op,
                    f"takes [{start}, {end}) step {step} of dimension {d} of a "
                    f"buffer of shape {array.shape}",
                )
            if end > array.shape[d] and outside is None:
                outside = (
                    f"takes [{start}, {end}) step {step} of dimension {d} of a "
                    f"buffer of shape {array.shape}"
                )
            keep = kept is None or d in kept
            index.append(slice(start, start + size * step, step) if keep else start)
        if outside is None:
            return (array[tuple(index)],)
        # Past the end of a dimension, as xDSL's stencil lowering takes its
        # views: what MLIR's compiled code does (the addresses of the view's
        # elements) while they stay in the buffer's memory.
        kept_mask = [kept is None or d in kept for d in range(array.ndim)]
        view = view_in_memory(
            array,
            sum(o * s for o, s in zip(offsets, array.strides, strict=True)),
            [n for n, k in zip(sizes, kept_mask, strict=True) if k],
            [
                s * t
                for s, t, k in zip(array.strides, steps, kept_mask, strict=True)
                if k
            ],
        )
        if view is None:
            raise OpError(op, f"{outside}: past the end of its memory")
        return (view,)

    @impl(memref.ReinterpretCastOp)
    def run_reinterpret_cast(
        self, interpreter: Interpreter, op: memref.ReinterpretCastOp, args: PythonValues
    ) -> PythonValues:
        """The view MLIR's descriptor makes: the source's buffer from its
        start, at the new offset, sizes and strides (a diagnostic where its
        elements leave the buffer's memory)."""
        array, *dynamic = plain(args)
        (offset,), sizes, strides = _offsets_sizes_strides(op, dynamic)
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        start = root.ctypes.data - array.ctypes.data + offset * array.itemsize
        view = view_in_memory(
            array, start, sizes, [s * array.itemsize for s in strides]
        )
        if view is None:
            raise OpError(
                op,
                f"makes a view of offset {offset}, sizes {sizes} and strides "
                f"{strides} of a buffer of {root.size} elements: past its end",
            )
        return (view,)

    @impl(memref.ExpandShapeOp)
    def run_expand_shape(
        self, interpreter: Interpreter, op: memref.ExpandShapeOp, args: PythonValues
    ) -> PythonValues:
        array, *dynamic = plain(args)
        sizes = iter(dynamic)
        static = op.properties.get("static_output_shape")
        result = op.result.type
        assert isinstance(result, builtin.MemRefType)
        dims = (
            static.get_values()
            if isinstance(static, builtin.DenseArrayBase)
            else result.get_shape()
        )
        shape = [
            int(next(sizes, -1)) if d == builtin.DYNAMIC_INDEX else d for d in dims
        ]
        if -1 in shape:
            raise OpError(op, "has a dynamic size without its output_shape value")
        return (_reshaped(op, array, shape),)

    @impl(memref.CollapseShapeOp)
    def run_collapse_shape(
        self, interpreter: Interpreter, op: memref.CollapseShapeOp, args: PythonValues
    ) -> PythonValues:
        array = args[0]
        groups = [[int(d.value.data) for d in g.data] for g in op.reassociation.data]
        shape = [prod(array.shape[d] for d in group) for group in groups]
        return (_reshaped(op, array, shape),)

    @impl(memref.DimOp)
    def run_dim(
        self, interpreter: Interpreter, op: memref.DimOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        array, index = args
        dimension = _signed(index, builtin.IndexType())
        if not 0 <= dimension < array.ndim:
            raise OpError(
                op,
                f"asks for dimension {dimension} of a memref of rank {array.ndim}",
            )
        size = int(array.shape[dimension])
        return (runtime(interpreter, size, op.results[0].type),)

    @impl(memref.CopyOp)
    def run_copy(
        self, interpreter: Interpreter, op: memref.CopyOp, args: PythonValues
    ) -> PythonValues:
        source, destination = args
        _check_same_shape(op, source, destination)
        np.copyto(destination, source)
        return ()

    @impl(memref.GetGlobalOp)
    def run_get_global(
        self, interpreter: Interpreter, op: memref.GetGlobalOp, args: PythonValues
    ) -> PythonValues:
        name = op.name_.root_reference.data
        if name not in self.globals:
            self.globals[name] = self._global_array(op, name)
        return (self.globals[name],)

    def _global_array(self, op: Operation, name: str) -> np.ndarray[Any, Any]:
        found = next(
            (
                g
                for g in self.module.ops
                if isinstance(g, memref.GlobalOp) and g.sym_name.data == name
            ),
            None,
        )
        if found is None:
            raise OpError(op, f"names @{name}, which is no memref.global of the module")
        kind = found.type
        array = self._allocate(op, kind, [])
        initial = found.initial_value
        if isinstance(initial, builtin.DenseIntOrFPElementsAttr):
            values = np.asarray(initial.get_values(), dtype=array.dtype)
            array[...] = (
                values.reshape(array.shape) if values.size == array.size else values
            )
        return array


@register_impls
class ScfHostFunctions(InterpreterFunctions):
    """`scf.parallel` on the host (an unmapped loop around a mapped one, or
    one with no mapping at all): its iterations in order, as MLIR's CPU
    lowering may run them. Reductions are a diagnostic."""

    @impl(scf.ParallelOp)
    def run_parallel(
        self, interpreter: Interpreter, op: scf.ParallelOp, args: PythonValues
    ) -> PythonValues:
        if op.initVals:
            raise OpError(
                op,
                "has reductions, which gpuc run does not execute on the host; "
                "map the loop to the GPU (gpu-map-parallel-loops) or write it "
                "as scf.for with iter_args",
            )
        values = plain(args)
        rank = len(op.lowerBound)
        bounds = [
            range(int(values[d]), int(values[rank + d]), int(values[2 * rank + d]))
            for d in range(rank)
        ]
        kind = builtin.IndexType()
        for point in itertools.product(*bounds):
            ivs = tuple(runtime(interpreter, i, kind) for i in point)
            interpreter.run_ssacfg_region(op.body, ivs, "scf.parallel")
        return ()

    @impl_terminator(scf.ReduceOp)
    def run_reduce(
        self, interpreter: Interpreter, op: scf.ReduceOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(()), ()


@register_impls
class GpuHostFunctions(InterpreterFunctions):
    """gpu host ops: buffers are host arrays; launches run gpuc's kernels,
    async ones on their token chain's stream (gpuc/host/streams.py)."""

    def __init__(self, kernels: Module | None, stdout: IO[str]) -> None:
        self.kernels = kernels
        self.stdout = stdout
        self.streams = Streams(kernels.stream if kernels is not None else _no_stream)
        self._views: dict[int, tuple[np.ndarray[Any, Any], Any]] = {}

    def _run(self, op: Operation, dependencies: Any, work: Work) -> tuple[Any, ...]:
        """Run `work` as `op` says: queued after `dependencies` when `op`
        returns a token (its only result), else to completion once they are
        done."""
        if op.results:
            with located(op):  # a new chain makes a stream
                return (self.streams.submit(dependencies, work),)
        wait(dependencies)
        work(None)
        return ()

    def _token(self, op: Operation, dependencies: Any) -> Any:
        """`op`'s token after `dependencies` (a new chain makes a stream)."""
        with located(op):
            return self.streams.token(dependencies)

    def _dependencies(self, op: Operation, values: dict[Any, Any]) -> list[Any]:
        return [values[v] for v in getattr(op, "asyncDependencies", ())]

    @impl(gpu.HostRegisterOp)
    def run_host_register(
        self, interpreter: Interpreter, op: gpu.HostRegisterOp, args: PythonValues
    ) -> PythonValues:
        return ()

    @impl(gpu.HostUnregisterOp)
    def run_host_unregister(
        self, interpreter: Interpreter, op: gpu.HostUnregisterOp, args: PythonValues
    ) -> PythonValues:
        return ()

    @impl(gpu.AllocOp)
    def run_alloc(
        self, interpreter: Interpreter, op: gpu.AllocOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        values = dict(zip(op.operands, args, strict=True))
        dynamic = [values[v] for v in op.dynamicSizes]
        kind = op.result.type
        array = allocate(op, kind, dynamic)
        deps = self._dependencies(op, values)
        if len(op.results) > 1:
            return (array, self._token(op, deps))
        wait(deps)
        return (array,)

    @impl(gpu.DeallocOp)
    def run_dealloc(
        self, interpreter: Interpreter, op: gpu.DeallocOp, args: PythonValues
    ) -> PythonValues:
        values = dict(zip(op.operands, args, strict=True))
        deps = self._dependencies(op, values)
        # Its device buffer goes (kernels queued on it still hold theirs).
        self._views.pop(id(values[op.buffer]), None)
        if op.results:
            return (self._token(op, deps),)
        wait(deps)
        return ()

    @impl(gpu.MemcpyOp)
    def run_memcpy(
        self, interpreter: Interpreter, op: gpu.MemcpyOp, args: PythonValues
    ) -> PythonValues:
        values = dict(zip(op.operands, args, strict=True))
        destination, source = values[op.dst], values[op.src]
        _check_same_shape(op, source, destination)
        return self._run(
            op,
            self._dependencies(op, values),
            lambda _: np.copyto(destination, source),
        )

    @impl(host.MemsetOp)
    def run_memset(
        self, interpreter: Interpreter, op: host.MemsetOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        values = dict(zip(op.operands, args, strict=True))
        destination = values[op.dst]
        value = to_element(values[op.value], destination.dtype)

        def work(_: Any) -> None:
            destination[...] = value

        return self._run(op, self._dependencies(op, values), work)

    @impl(gpu.WaitOp)
    def run_wait(
        self, interpreter: Interpreter, op: gpu.WaitOp, args: PythonValues
    ) -> PythonValues:
        if op.results:
            return (self._token(op, args),)
        wait(args)
        return ()

    @impl(gpu.LaunchFuncOp)
    def run_launch_func(
        self, interpreter: Interpreter, op: gpu.LaunchFuncOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        values = dict(zip(op.operands, args, strict=True))
        symbol = op.kernel
        name = "::".join(
            [
                symbol.root_reference.data,
                *(n.data for n in symbol.nested_references.data),
            ]
        )
        kernels = self.kernels
        if kernels is None or (name not in kernels.aliases and name not in kernels):
            raise OpError(
                op,
                f"launches @{name.replace('::', '::@')}, which no gpu.module defines",
            )
        grid = tuple(int(values[v]) for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ))
        block = tuple(
            int(values[v]) for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ)
        )
        from gpuc.runtime.args import LaunchError

        with located(op, f"the launch of @{name} failed: "):
            executor = kernels.executor  # made here, not by two chains at once
            kernel_args = [
                bool(values[v])
                if v.type == builtin.i1
                else self._device_view(values[v])
                for v in op.kernelOperands
            ]
        options: dict[str, Any] = {}
        if op.dynamicSharedMemorySize is not None:
            options["shared"] = int(values[op.dynamicSharedMemorySize])
        sync: Any = getattr(executor, "sync_host_view", None)
        views = [a for a in kernel_args if getattr(a, "host", None) is not None]

        def work(stream: Any) -> None:
            try:
                kernels.launch(name, grid, block, kernel_args, stream=stream, **options)
                if stream is None:
                    kernels.synchronize()
                else:
                    stream.synchronize()
                for view in views:
                    sync(view, stream)
            except LaunchError as e:
                raise OpError(op, f"the launch of @{name} failed: {e}") from None

        self.stdout.flush()
        sys.stdout.flush()
        return self._run(op, self._dependencies(op, values), work)

    def _device_view(self, value: Any) -> Any:
        """What a kernel is given for a host array: the array, or where the
        executor runs on device buffers, one over its memory (made once)."""
        assert self.kernels is not None
        host_view = getattr(self.kernels.executor, "host_view", None)
        if (
            host_view is None
            or not isinstance(value, np.ndarray)
            or not value.nbytes
            or not value.flags.c_contiguous
        ):
            return value
        found = self._views.get(id(value))
        if found is None or found[0] is not value:
            found = self._views[id(value)] = (value, host_view(value))
        return found[1]


def _no_stream() -> None:
    return None


@contextmanager
def located(op: Operation, prefix: str = "") -> Iterator[None]:
    """An executor that cannot start (no driver, no device) or make a stream
    is a diagnostic at `op`, not an internal error."""
    from gpuc.runtime.args import LaunchError

    try:
        yield
    except LaunchError as e:
        raise OpError(op, f"{prefix}{e}") from None


@register_impls
class AsyncHostFunctions(InterpreterFunctions):
    """async ops, run in program order."""

    @impl(host.ExecuteOp)
    def run_execute(
        self, interpreter: Interpreter, op: host.ExecuteOp, args: PythonValues
    ) -> PythonValues:
        payloads = args[len(op.dependencies) :]
        yielded = interpreter.run_ssacfg_region(
            op.body, tuple(payloads), "async.execute"
        )
        return (None, *yielded)

    @impl_terminator(host.YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: host.YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(host.AwaitOp)
    def run_await(
        self, interpreter: Interpreter, op: host.AwaitOp, args: PythonValues
    ) -> PythonValues:
        return tuple(args[: len(op.results)])


@register_impls
class VectorHostFunctions(InterpreterFunctions):
    """Host vector ops MLIR's tests use: constants, loads, stores, printing."""

    def __init__(self, stdout: IO[str]) -> None:
        self.stdout = stdout

    @impl(arith.ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues
    ) -> PythonValues:
        value = op.value
        if isinstance(value, builtin.DenseIntOrFPElementsAttr):
            kind = op.result.type
            assert isinstance(kind, builtin.VectorType | builtin.TensorType)
            dtype = dtype_of(op, kind.get_element_type())
            values = [to_element(v, dtype) for v in value.get_values()]
            if len(values) == 1:
                values = values * prod(kind.get_shape())
            return (np.array(values, dtype=dtype),)
        if isinstance(value, builtin.IntegerAttr) and isinstance(
            value.type, builtin.IndexType
        ):
            return (runtime(interpreter, int(value.value.data), value.type),)
        if isinstance(value, builtin.IntegerAttr | builtin.FloatAttr):
            return (runtime(interpreter, value.value.data, value.type),)
        raise OpError(op, f"the host runner has no value for the constant {value}")

    @impl(vector.PrintOp)
    def run_print(
        self, interpreter: Interpreter, op: vector.PrintOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        kind = op.source.type
        element = (
            kind.get_element_type() if isinstance(kind, builtin.VectorType) else kind
        )
        self.stdout.write(format_vector(args[0], dtype_of(op, element)))
        return ()

    @impl(vector.StoreOp)
    def run_store(
        self, interpreter: Interpreter, op: vector.StoreOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        value, array, *indices = args
        row, start = _vector_row(op, array, indices, value.size)
        row[start : start + value.size] = value.astype(array.dtype)
        return ()

    @impl(vector.LoadOp)
    def run_load(
        self, interpreter: Interpreter, op: vector.LoadOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        array, *indices = args
        count = _vector_length(op, op.result.type)
        row, start = _vector_row(op, array, indices, count)
        return (np.array(row[start : start + count]),)

    @impl(vector.TransferReadOp)
    def run_transfer_read(
        self, interpreter: Interpreter, op: vector.TransferReadOp, args: PythonValues
    ) -> PythonValues:
        args = plain(args)
        values = dict(zip(op.operands, args, strict=True))
        if op.mask is not None:
            raise OpError(op, "the host runner reads no masked transfers")
        array = values[op.source]
        start = tuple(int(values[v]) for v in op.indices)
        count = _vector_length(op, op.result.type)
        row = array[start[:-1]] if array.ndim > 1 else array
        padding = to_element(values[op.padding], array.dtype)
        result = np.full(count, padding, dtype=array.dtype)
        available = max(0, min(count, row.shape[0] - start[-1]))
        result[:available] = row[start[-1] : start[-1] + available]
        return (result,)


def _vector_length(op: Operation, kind: Attribute) -> int:
    if not isinstance(kind, builtin.VectorType) or len(kind.get_shape()) != 1:
        raise OpError(op, f"the host runner handles 1-D vectors only, not {kind}")
    return kind.get_shape()[0]


class RunnerUtilsFunctions(InterpreterFunctions):
    """The runner libraries' functions (runner_utils.py), by name."""

    def __init__(self, stdout: IO[str]) -> None:
        self.stdout = stdout


def _printer(name: str, type_name: str) -> Any:
    dtype = SCALAR_DTYPES[type_name]

    def print_memref(
        self: RunnerUtilsFunctions,
        interpreter: Interpreter,
        op: Operation,
        args: PythonValues,
    ) -> PythonValues:
        args = plain(args)
        array = args[0]
        if array.dtype.itemsize != dtype.itemsize or array.dtype.kind != dtype.kind:
            raise OpError(
                op,
                f"@{name} prints {type_name} elements; its memref holds {array.dtype}",
            )
        self.stdout.write(format_memref(array))
        return ()

    return impl_external(name)(print_memref)


def _filler(name: str) -> Any:
    def fill_buffer(
        self: RunnerUtilsFunctions,
        interpreter: Interpreter,
        op: Operation,
        args: PythonValues,
    ) -> PythonValues:
        args = plain(args)
        array, value = args
        fill(array, to_element(value, array.dtype))
        return ()

    return impl_external(name)(fill_buffer)


def _device_view(name: str) -> Any:
    def device_view(
        self: RunnerUtilsFunctions,
        interpreter: Interpreter,
        op: Operation,
        args: PythonValues,
    ) -> PythonValues:
        return (args[0],)

    return impl_external(name)(device_view)


for _name, _type in PRINTERS.items():
    setattr(RunnerUtilsFunctions, f"run_{_name}", _printer(_name, _type))
for _name in FILLERS:
    setattr(RunnerUtilsFunctions, f"run_{_name}", _filler(_name))
for _name in DEVICE_VIEWS:
    setattr(RunnerUtilsFunctions, f"run_{_name}", _device_view(_name))
register_impls(RunnerUtilsFunctions)

EXTERNAL_FUNCTIONS = (*PRINTERS, *FILLERS, *DEVICE_VIEWS)
"""The names of the functions a host module may declare and call."""


def _width(kind: Attribute) -> int:
    """The bit width of an integer or index type (index is 64-bit)."""
    return kind.width.data if isinstance(kind, builtin.IntegerType) else 64


def _unsigned(value: Any, kind: Attribute) -> int:
    return int(value) & ((1 << _width(kind)) - 1)


def _signed(value: Any, kind: Attribute) -> int:
    bits = _width(kind)
    wrapped = int(value) & ((1 << bits) - 1)
    return wrapped - (1 << bits) if wrapped >= 1 << (bits - 1) else wrapped


def _rounded(value: float, kind: Attribute) -> float:
    """`value` rounded to the float type `kind`, as its hardware would hold it."""
    dtype = SCALAR_DTYPES.get(str(kind))
    with np.errstate(all="ignore"):
        return float(dtype.type(value)) if dtype is not None else float(value)


def _divide(a: float, b: float) -> float:
    with np.errstate(all="ignore"):
        return float(np.float64(a) / np.float64(b))


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _quotient(a: int, b: int) -> int:
    """Integer division rounding toward zero, as arith's divsi/divui."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _remainder(a: int, b: int) -> int:
    """The remainder of `_quotient`, with the dividend's sign (remsi, remui)."""
    return a - b * _quotient(a, b)


Binary = Callable[[Any, Any], Any]
_FLOAT_BINARY: dict[type[Operation], Binary] = {
    arith.AddfOp: lambda a, b: a + b,
    arith.SubfOp: lambda a, b: a - b,
    arith.MulfOp: lambda a, b: a * b,
    arith.DivfOp: _divide,
}
_UNSIGNED_BINARY: dict[type[Operation], Binary] = {
    arith.DivUIOp: _quotient,
    arith.RemUIOp: lambda a, b: a % b,
    arith.CeilDivUIOp: _ceil_div,
    arith.MaxUIOp: max,
    arith.MinUIOp: min,
    arith.ShRUIOp: lambda a, b: a >> b,
    arith.ShLIOp: lambda a, b: a << b,
}
_SIGNED_BINARY: dict[type[Operation], Binary] = {
    arith.MaxSIOp: max,
    arith.MinSIOp: min,
    arith.CeilDivSIOp: _ceil_div,
    arith.DivSIOp: _quotient,
    arith.RemSIOp: _remainder,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.ShRSIOp: lambda a, b: a >> b,
}
SHIFTS = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)
"""A shift by the type's width or more is poison in MLIR: an OpError here
(and no shift by 2**62 bits of a Python int)."""
DIVISIONS = (
    arith.DivUIOp,
    arith.RemUIOp,
    arith.CeilDivUIOp,
    arith.DivSIOp,
    arith.RemSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
)
"""The integer divisions: by zero, and the signed ones of the smallest value
by -1, undefined behaviour in MLIR (LLVM's `sdiv`, `srem`), an OpError here."""


def _binary(op: Operation, args: PythonValues) -> Any:
    kind = op.results[0].type
    a, b = args
    if type(op) in _FLOAT_BINARY:
        return _rounded(_FLOAT_BINARY[type(op)](float(a), float(b)), kind)
    if type(op) in DIVISIONS and _unsigned(b, kind) == 0:
        raise OpError(op, f"divides {_signed(a, kind)} by zero")
    if type(op) in SHIFTS and _unsigned(b, kind) >= _width(kind):
        raise OpError(
            op,
            f"shifts by {_unsigned(b, kind)} bits, not less than the "
            f"{_width(kind)} bits of {kind}: the result is poison",
        )
    if type(op) in _UNSIGNED_BINARY:
        result = _UNSIGNED_BINARY[type(op)](_unsigned(a, kind), _unsigned(b, kind))
        return _signed(result, kind)
    a, b = _signed(a, kind), _signed(b, kind)
    if type(op) in DIVISIONS and b == -1 and a == -(1 << (_width(kind) - 1)):
        raise OpError(
            op, f"divides {a}, the smallest {kind} value, by -1, which overflows"
        )
    return _signed(_SIGNED_BINARY[type(op)](a, b), kind)


def _cast(op: Operation, value: Any) -> Any:
    """The integer and float casts, by the types they cast between."""
    source, result = op.operands[0].type, op.results[0].type
    if isinstance(op, arith.ExtUIOp):
        return _signed(_unsigned(value, source), result)
    if isinstance(op, arith.ExtSIOp | arith.TruncIOp):
        return _signed(value, result)
    if isinstance(op, arith.SIToFPOp):
        return _rounded(float(_signed(value, source)), result)
    if isinstance(op, arith.UIToFPOp):
        return _rounded(float(_unsigned(value, source)), result)
    if isinstance(op, arith.FPToSIOp | arith.FPToUIOp):
        if not np.isfinite(value):
            raise OpError(op, f"converts {value} to an integer")
        return _signed(int(value), result)
    if isinstance(op, arith.NegfOp):
        return -float(value)
    if type(op) in _FLOAT_UNARY:
        with np.errstate(all="ignore"):
            return _rounded(float(_FLOAT_UNARY[type(op)](np.float64(value))), result)
    return _rounded(float(value), result)  # extf, truncf


_FLOAT_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    math.ExpOp: np.exp,
    math.SqrtOp: np.sqrt,
    math.LogOp: np.log,
}
"""The math ops xDSL's interpreter runs with Python's `math`, which raises
where IEEE arithmetic gives NaN or an infinity (the sqrt of -1, the log of
0, an exp that overflows): here they give what the hardware gives."""


class ArithHostFunctions(InterpreterFunctions):
    """The arith ops xDSL's interpreter lacks, and float arithmetic (math's
    exp, sqrt and log too) rounded to the result type (xDSL computes f32 in
    double precision), with IEEE results (`_FLOAT_UNARY`)."""


def _binary_impl(kind: type[Operation]) -> Any:
    def run(
        self: ArithHostFunctions,
        interpreter: Interpreter,
        op: Operation,
        args: PythonValues,
    ) -> PythonValues:
        return (runtime(interpreter, _binary(op, plain(args)), op.results[0].type),)

    return impl(kind)(run)


def _cast_impl(kind: type[Operation]) -> Any:
    def run(
        self: ArithHostFunctions,
        interpreter: Interpreter,
        op: Operation,
        args: PythonValues,
    ) -> PythonValues:
        value = _cast(op, plain(args)[0])
        return (runtime(interpreter, value, op.results[0].type),)

    return impl(kind)(run)


for _kind in (*_FLOAT_BINARY, *_UNSIGNED_BINARY, *_SIGNED_BINARY):
    setattr(ArithHostFunctions, f"run_{_kind.__name__}", _binary_impl(_kind))
_CASTS: tuple[type[Operation], ...] = (
    arith.ExtUIOp,
    arith.ExtSIOp,
    arith.TruncIOp,
    arith.SIToFPOp,
    arith.UIToFPOp,
    arith.FPToSIOp,
    arith.FPToUIOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.NegfOp,
    *_FLOAT_UNARY,
)
for _kind in _CASTS:
    setattr(ArithHostFunctions, f"run_{_kind.__name__}", _cast_impl(_kind))
register_impls(ArithHostFunctions)
