"""Arrays of real libraries as launch arguments (issue 27's done-when): JAX
CPU arrays (DLPack), Warp CPU arrays (`__array_interface__`), pyopencl arrays
of the caller's own context, `memoryview`s and transposed numpy views, passed
to a strided saxpy and a strided 2-D kernel on native and spirv and checked
against numpy on fresh random inputs with outputs poisoned first. On native
nothing is copied: a kernel reads what it wrote through another view of the
same memory. A gpuc device array goes to numpy and JAX by DLPack."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_device_arrays import POISON, check_axpy, inputs

import gpuc
from gpuc.runtime.args import LaunchError

TARGETS = ["native", "spirv"]

VECTOR = "memref<?xf32, strided<[?], offset: ?>>"
MATRIX = "memref<?x?xf32, strided<[?, ?], offset: ?>>"

# y[i] = a * x[i] + y[i] over views of any stride, the size from x.
SAXPY = f"""
func.func @saxpy(%a: f32, %x: {VECTOR}, %y: {VECTOR}) attributes {{gpu.kernel}} {{
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : {VECTOR}
  %i = "gpu.global_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {{
    %xv = memref.load %x[%i] : {VECTOR}
    %yv = memref.load %y[%i] : {VECTOR}
    %m = arith.mulf %a, %xv : f32
    %r = arith.addf %m, %yv : f32
    memref.store %r, %y[%i] : {VECTOR}
  }}
  return
}}
"""

# dst[i, j] = src[i, j] * s + j over views of any strides.
AFFINE_2D = f"""
func.func @affine2d(%src: {MATRIX}, %dst: {MATRIX}, %s: f32)
    attributes {{gpu.kernel}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : {MATRIX}
  %cols = memref.dim %src, %c1 : {MATRIX}
  %i = "gpu.global_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  %j = "gpu.global_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %ri = arith.cmpi ult, %i, %rows : index
  %cj = arith.cmpi ult, %j, %cols : index
  %in = arith.andi %ri, %cj : i1
  scf.if %in {{
    %v = memref.load %src[%i, %j] : {MATRIX}
    %m = arith.mulf %v, %s : f32
    %jj = arith.index_cast %j : index to i32
    %jf = arith.sitofp %jj : i32 to f32
    %r = arith.addf %m, %jf : f32
    memref.store %r, %dst[%i, %j] : {MATRIX}
  }}
  return
}}
"""

# One thread: y[i] = x[i - 1] + 1 for i = 1 .. n-1 in order. With x and y
# the same memory, each step reads the one before (y[i] = y[0] + i); with
# either copied, it reads the old values.
CASCADE = f"""
func.func @cascade(%x: {VECTOR}, %y: {VECTOR}) attributes {{gpu.kernel}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %y, %c0 : {VECTOR}
  scf.for %i = %c1 to %n step %c1 {{
    %p = arith.subi %i, %c1 : index
    %v = memref.load %x[%p] : {VECTOR}
    %w = arith.addf %v, %one : f32
    memref.store %w, %y[%i] : {VECTOR}
  }}
  return
}}
"""


@pytest.fixture(scope="module")
def jnp() -> Any:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy

    return jax.numpy


@pytest.fixture(scope="module")
def wp() -> Any:
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    warp.init()
    return warp


def compiled(source: str, target: str) -> gpuc.Module:
    if target == "spirv":
        pytest.importorskip("pyopencl")
    return gpuc.compile(source, target=target)


@pytest.fixture(scope="module", params=TARGETS)
def saxpy(request: pytest.FixtureRequest) -> gpuc.Module:
    return compiled(SAXPY, request.param)


@pytest.fixture(scope="module", params=TARGETS)
def affine2d(request: pytest.FixtureRequest) -> gpuc.Module:
    return compiled(AFFINE_2D, request.param)


def affine_want(src: np.ndarray[Any, Any], s: float) -> np.ndarray[Any, Any]:
    return src * np.float32(s) + np.arange(src.shape[1], dtype=np.float32)


def test_saxpy_on_jax_warp_memoryview_and_transposed_views(
    saxpy: gpuc.Module, jnp: Any, wp: Any
) -> None:
    n = 1003
    a, x, y = inputs(n, 27)
    k = saxpy["saxpy"].over(n, block=64)
    # JAX's arrays are immutable: they are inputs (x), never written.
    out = wp.array(y, dtype=wp.float32, device="cpu")
    k(a, jnp.asarray(x), out)
    check_axpy(out.numpy(), a, x, y)
    view = np.array(y)
    k(a, jnp.asarray(x), memoryview(view))
    check_axpy(view, a, x, y)
    # Columns of row-major matrices: strided 1-D views, x's through its
    # transpose, y's through memoryview of a column.
    xs = np.full((n, 3), POISON, np.float32)
    xs[:, 1] = x
    ys = np.full((n, 5), POISON, np.float32)
    ys[:, 3] = y
    k(a, xs.T[1], ys.T[3])
    check_axpy(ys[:, 3], a, x, y)
    assert np.isnan(np.delete(ys, 3, axis=1)).all()  # nothing else written
    with pytest.raises(LaunchError, match=r"'y'.*read-only through DLPack"):
        k(a, x, jnp.asarray(y))


def test_2d_kernel_on_jax_warp_memoryview_and_transposed_views(
    affine2d: gpuc.Module, jnp: Any, wp: Any
) -> None:
    rows, cols = 37, 53
    rng = np.random.default_rng([27, 2])
    src = rng.standard_normal((rows, cols), np.float32)
    grid = gpuc.blocks((cols, rows), (16, 8))
    k = affine2d["affine2d"][grid, (16, 8)]
    want = affine_want(src, 1.5)
    dst = wp.array(np.full((rows, cols), POISON, np.float32), device="cpu")
    k(jnp.asarray(src), dst, 1.5)
    np.testing.assert_allclose(dst.numpy(), want, rtol=1e-6, atol=1e-6)
    plain = np.full((rows, cols), POISON, np.float32)
    k(wp.array(src, device="cpu"), memoryview(plain), 1.5)
    np.testing.assert_allclose(plain, want, rtol=1e-6, atol=1e-6)
    # Transposed views: the kernel indexes them with their strides.
    storage = np.full((cols, rows), POISON, np.float32)
    k(np.ascontiguousarray(src.T).T, storage.T, 1.5)
    np.testing.assert_allclose(storage.T, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("how", ["warp", "memoryview", "transposed"])
def test_native_runs_on_the_callers_memory(wp: Any, how: str) -> None:
    """The kernel reads, through x, what it wrote through y over the same
    memory, step by step: neither argument was copied."""
    mod = gpuc.compile(CASCADE, target="native")
    n = 64
    start = np.float32(np.random.default_rng([27, 3]).standard_normal())
    if how == "warp":
        holder = wp.array(np.full(n, POISON, np.float32), device="cpu")
        memory = holder.numpy()
        memory[0] = start
        x = y = holder
    elif how == "memoryview":
        memory = np.full(n, POISON, np.float32)
        memory[0] = start
        x, y = memoryview(memory), memoryview(memory)
    else:
        matrix = np.full((n, 2), POISON, np.float32)
        matrix[0, 1] = start
        memory = matrix[:, 1]
        x, y = matrix.T[1], matrix.T[1]
    mod["cascade"][1, 1](x, y)
    np.testing.assert_array_equal(memory, start + np.arange(n, dtype=np.float32))


def test_jax_inputs_are_viewed_not_copied(jnp: Any) -> None:
    """A JAX array cannot be written, so its sharing shows in the address:
    the numpy view gpuc launches on is JAX's own buffer."""
    from gpuc.runtime import foreign

    array = jnp.asarray(np.random.default_rng([27, 4]).standard_normal(100, np.float32))
    view = foreign.host_view(array, written=False)
    assert view.ctypes.data == array.unsafe_buffer_pointer()


def test_a_callers_own_pyopencl_context_on_strided_kernels() -> None:
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array as cla

    probe = gpuc.compile(SAXPY, target="spirv")
    context = cl.Context([probe.executor.device])  # type: ignore[attr-defined]
    queue = cl.CommandQueue(context)
    n = 777
    a, x, y = inputs(n, 28)
    py = cla.to_device(queue, y)
    mod = gpuc.compile(SAXPY, target="spirv", device=queue)
    mod["saxpy"].over(n, block=64)(a, cla.to_device(queue, x), py)
    check_axpy(py.get(), a, x, y)
    rows, cols = 21, 34
    src = np.random.default_rng([27, 5]).standard_normal((rows, cols), np.float32)
    pdst = cla.to_device(queue, np.full((rows, cols), POISON, np.float32))
    twod = gpuc.compile(AFFINE_2D, target="spirv", device=queue)
    grid = gpuc.blocks((cols, rows), (16, 8))
    twod["affine2d"][grid, (16, 8)](cla.to_device(queue, src), pdst, 0.5)
    np.testing.assert_allclose(pdst.get(), affine_want(src, 0.5), rtol=1e-6, atol=1e-6)


def test_device_arrays_go_to_numpy_and_jax(saxpy: gpuc.Module, jnp: Any) -> None:
    """native: the device array is host memory, so numpy and JAX read the
    kernel's result through DLPack; spirv: OpenCL memory, which numpy is
    refused with what to do."""
    n = 512
    a, x, y = inputs(n, 29)
    dy = saxpy.to_device(y)
    saxpy["saxpy"].over(n, block=64)(a, saxpy.to_device(x), dy)
    if saxpy.target == "native":
        check_axpy(np.from_dlpack(dy), a, x, y)
        check_axpy(np.asarray(jnp.from_dlpack(dy)), a, x, y)
        check_axpy(np.asarray(dy), a, x, y)
    else:
        with pytest.raises(TypeError, match="copy_to_host"):
            np.asarray(dy)
        assert dy.__dlpack_device__() == (4, 0)  # DLPack's OpenCL
        with pytest.raises(BufferError, match="OpenCL buffer.*copy_to_host"):
            np.from_dlpack(dy)
        with pytest.raises(TypeError, match="unsupported device type"):
            jnp.from_dlpack(dy)  # JAX refuses by the device, before asking
        check_axpy(dy.copy_to_host(), a, x, y)
