"""Other libraries' arrays as launch arguments (gpuc/runtime/foreign.py,
docs/arrays.md): DLPack, `__array_interface__`, `__array__`, the buffer
protocol and a caller's own pyopencl context, on native and spirv, checked
against numpy on fresh random inputs with outputs poisoned first; what the
kernel writes reaches the caller's object (native: in place)."""

from __future__ import annotations

import array
from typing import Any

import numpy as np
import pytest
import test_device_arrays
from test_device_arrays import AXPY, MEMREF_2D, POISON, check_axpy, inputs

import gpuc
from gpuc.runtime.args import LaunchError

# The same modules' fixtures (native and spirv).
axpy = test_device_arrays.axpy
affine2d = test_device_arrays.affine2d


class Interface:
    """A library array exposing only `__array_interface__` (as Warp's CPU
    arrays do), over memory it owns."""

    def __init__(self, data: np.ndarray[Any, Any]) -> None:
        self.data = data
        self.__array_interface__ = data.__array_interface__


class BrokenInterface:
    """An `__array_interface__` without its required keys."""

    __array_interface__: dict[str, Any] = {"version": 3}


class DLPackOnly:
    """A DLPack producer and nothing else (numpy's export underneath)."""

    def __init__(self, data: np.ndarray[Any, Any]) -> None:
        self.data = data

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.data.__dlpack_device__()  # type: ignore[return-value]


class OnCuda:
    """A DLPack producer whose memory is on a CUDA device."""

    def __dlpack__(self, **kwargs: Any) -> Any:
        raise AssertionError("never exported")

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)


class ArrayMethod:
    """`__array__` only: a view of its memory (`copies=False`) or a fresh
    copy each call, with or without numpy 2's `copy` keyword."""

    def __init__(self, data: np.ndarray[Any, Any], copies: bool) -> None:
        self.data, self.copies = data, copies

    def __array__(self, dtype: Any = None) -> np.ndarray[Any, Any]:
        return self.data.copy() if self.copies else self.data


class ArrayMethodWithCopy(ArrayMethod):
    def __array__(  # type: ignore[override]
        self, dtype: Any = None, copy: bool | None = None
    ) -> np.ndarray[Any, Any]:
        if self.copies and copy is False:
            raise ValueError("a copy is needed")
        return self.data.copy() if self.copies else self.data


def wrappers() -> dict[str, Any]:
    """Each way of handing an f32 numpy array over, as (wrap, read back)."""
    return {
        "dlpack": (DLPackOnly, lambda w: w.data),
        "array_interface": (Interface, lambda w: w.data),
        "array_method": (lambda a: ArrayMethod(a, False), lambda w: w.data),
        "memoryview": (memoryview, lambda w: np.asarray(w)),
        "array.array": (
            lambda a: array.array("f", a.tobytes()),
            lambda w: np.frombuffer(w, np.float32),
        ),
    }


@pytest.mark.parametrize("how", sorted(wrappers()))
def test_saxpy_takes_foreign_arrays(axpy: gpuc.Module, how: str) -> None:
    wrap, read = wrappers()[how]
    n = 1031
    a, x, y = inputs(n, 11)
    out = wrap(np.full(n, POISON, np.float32))
    axpy["axpy"].over(n, block=64)(a, wrap(x.copy()), wrap(y.copy()), out, n)
    check_axpy(read(out), a, x, y)


def test_native_runs_on_the_callers_memory_in_place() -> None:
    """No copy on native: the kernel's pointer is the caller's memory, so an
    input aliased with the output reads what it wrote (out = a*x + x)."""
    mod = gpuc.compile(AXPY, target="native")
    n = 257
    a, x, _ = inputs(n, 12)
    buffer = array.array("f", x.tobytes())
    view = memoryview(buffer)
    mod["axpy"].over(n, block=64)(a, view, view, view, n)
    got = np.frombuffer(buffer, np.float32)
    check_axpy(got, a, x, x)
    holder = Interface(x.copy())
    mod["axpy"].over(n, block=64)(a, holder, holder, holder, n)
    check_axpy(holder.data, a, x, x)


def test_2d_kernel_takes_foreign_arrays(affine2d: gpuc.Module) -> None:
    rows, cols = 37, 53
    src = np.random.default_rng(13).standard_normal((rows, cols), np.float32)
    dst = np.full((rows, cols), POISON, np.float32)
    grid = gpuc.blocks((cols, rows), (16, 8))
    affine2d["affine2d"][grid, (16, 8)](DLPackOnly(src), Interface(dst), 1.5)
    want = src * np.float32(1.5) + np.arange(cols, dtype=np.float32)
    np.testing.assert_allclose(dst, want, rtol=1e-6, atol=1e-6)
    dst[...] = POISON
    affine2d["affine2d"][grid, (16, 8)](memoryview(src), memoryview(dst), 1.5)
    np.testing.assert_allclose(dst, want, rtol=1e-6, atol=1e-6)


def test_torch_tensors_through_dlpack(axpy: gpuc.Module) -> None:
    torch = pytest.importorskip("torch")
    n = 515
    a, x, y = inputs(n, 14)
    out = torch.full((n,), float("nan"), dtype=torch.float32)
    axpy["axpy"].over(n, block=64)(a, torch.from_numpy(x), torch.from_numpy(y), out, n)
    check_axpy(out.numpy(), a, x, y)
    tracked = torch.zeros(n, requires_grad=True)
    with pytest.raises(LaunchError, match=r"'out'.*DLPack export.*detach"):
        axpy["axpy"].over(n, block=64)(a, x, y, tracked, n)


def test_foreign_refusals_name_the_argument(axpy: gpuc.Module) -> None:
    x = np.zeros(4, np.float32)
    k = axpy["axpy"].over(4)
    with pytest.raises(LaunchError, match=r"argument 3 \('out'.*CUDA 0.*copy it to"):
        k(1.0, x, x, OnCuda(), 4)
    with pytest.raises(LaunchError, match=r"'out'.*__array__ gives a copy"):
        k(1.0, x, x, ArrayMethod(x.copy(), copies=True), 4)
    with pytest.raises(LaunchError, match=r"'out'.*__array__ gives a copy"):
        k(1.0, x, x, ArrayMethodWithCopy(x.copy(), copies=True), 4)
    with pytest.raises(LaunchError, match=r"'out'.*read-only through its buffer"):
        k(1.0, x, x, bytes(16), 4)
    with pytest.raises(LaunchError, match=r"'out'.*of float32, got one of float64"):
        k(1.0, x, x, array.array("d", [0.0] * 4), 4)
    with pytest.raises(LaunchError, match=r"'out'.*DLPack, __array_interface__"):
        k(1.0, x, x, [0.0] * 4, 4)
    with pytest.raises(
        LaunchError, match=r"'out'.*could not view \(ValueError: Missing"
    ):
        k(1.0, x, x, BrokenInterface(), 4)
    # A read-only input may come from anywhere, copies included.
    out = np.full(4, POISON, np.float32)
    k(1.0, ArrayMethod(x + 1, copies=True), memoryview(x.tobytes()).cast("f"), out, 4)
    np.testing.assert_array_equal(out, np.ones(4, np.float32))


def test_a_callers_own_pyopencl_context() -> None:
    """device=queue: the module launches on the caller's context and queue,
    so pyopencl arrays made there are taken as they are."""
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array as cla

    device = gpuc.compile(AXPY, target="spirv").executor.device  # type: ignore[attr-defined]
    context = cl.Context([device])  # the caller keeps it, as pyopencl needs
    queue = cl.CommandQueue(context)
    n = 999
    a, x, y = inputs(n, 15)
    px, py = cla.to_device(queue, x), cla.to_device(queue, y)
    pout = cla.to_device(queue, np.full(n, POISON, np.float32))
    elsewhere = gpuc.compile(AXPY, target="spirv")
    with pytest.raises(LaunchError, match=r"another OpenCL context.*device=queue"):
        elsewhere["axpy"].over(n, block=64)(a, px, py, pout, n)
    mod = gpuc.compile(AXPY, target="spirv", device=queue)
    assert mod.executor.queue is queue  # type: ignore[attr-defined]
    mod["axpy"].over(n, block=64)(a, px, py, pout, n)
    check_axpy(pout.get(), a, x, y)
    # A 2-D memref kernel on the same queue, its sizes from the arrays' shapes.
    rows, cols = 19, 45
    src = np.random.default_rng(16).standard_normal((rows, cols), np.float32)
    psrc = cla.to_device(queue, src)
    pdst = cla.to_device(queue, np.full((rows, cols), POISON, np.float32))
    grid = gpuc.blocks((cols, rows), (16, 8))
    twod = gpuc.compile(MEMREF_2D, target="spirv", device=queue)
    twod["affine2d"][grid, (16, 8)](psrc, pdst, 0.5)
    want = src * np.float32(0.5) + np.arange(cols, dtype=np.float32)
    np.testing.assert_allclose(pdst.get(), want, rtol=1e-6, atol=1e-6)
    with pytest.raises(
        LaunchError,
        match="device is a fragment .* or a pyopencl.CommandQueue",
    ):
        gpuc.compile(AXPY, target="spirv", device=3.5)


class CpuExport:
    """gpuc's DLPack export (gpuc/runtime/dlpack.py, what its CUDA and HIP
    device arrays hand out) of host memory, for numpy to consume."""

    def __init__(self, data: np.ndarray[Any, Any]) -> None:
        self.data = data

    def __dlpack__(self, **kwargs: Any) -> Any:
        from gpuc.runtime import dlpack

        return dlpack.export(
            self, self.data.ctypes.data, self.data.shape, self.data.dtype, (1, 0)
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def test_dlpack_capsules_against_numpys_own() -> None:
    """gpuc's exported capsule is one numpy consumes (a view of the memory,
    its deleter called when numpy lets go), and gpuc consumes numpy's."""
    import gc

    from gpuc.runtime import dlpack

    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    held = dlpack.exported()
    view = np.from_dlpack(CpuExport(data))
    assert view.shape == (3, 4) and view.dtype == np.float32
    assert np.shares_memory(view, data) and np.array_equal(view, data)
    assert dlpack.exported() == held + 1
    del view
    gc.collect()
    assert dlpack.exported() == held
    for dtype in (np.int8, np.uint16, np.int64, np.float64, np.bool_):
        source = np.zeros((2, 5), dtype)
        imported = dlpack.consume(source.__dlpack__())
        assert imported.address == source.ctypes.data
        assert (imported.shape, imported.dtype) == ((2, 5), np.dtype(dtype))
        assert imported.device == (1, 0) and imported.contiguous
        imported.release()
    transposed = dlpack.consume(data.T.__dlpack__())
    assert not transposed.contiguous
    transposed.release()
