"""Device arrays, streams, events and launch configuration (docs/arrays.md),
through the Python API, on native and on spirv (Intel's OpenCL CPU runtime),
checked against numpy on fresh random inputs with outputs poisoned first.
The ptx and amdgpu executors' device arrays run on the stand-in drivers in
tests/test_runtime_cuda.py and tests/test_runtime_hip.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from cases import assert_within, fma_bound  # noqa: E402

import gpuc  # noqa: E402
from gpuc.runtime.args import LaunchError  # noqa: E402
from gpuc.runtime.arrays import DeviceArray  # noqa: E402

TARGETS = ["native", "spirv"]
POISON = np.float32(np.nan)

# out[i] = a * x[i] + y[i]: x and y are only read, which the compiler reports.
AXPY = """
gpuc.func @axpy(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                %out: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %yi = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

# A memref kernel: dst[i, j] = src[i, j] * s + j, sizes from memref.dim.
MEMREF_2D = """
func.func @affine2d(%src: memref<?x?xf32>, %dst: memref<?x?xf32>, %s: f32)
    attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf32>
  %cols = memref.dim %src, %c1 : memref<?x?xf32>
  %i = "gpu.global_id"() <{dimension = #gpu<dim y>}> : () -> index
  %j = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
  %ri = arith.cmpi ult, %i, %rows : index
  %cj = arith.cmpi ult, %j, %cols : index
  %in = arith.andi %ri, %cj : i1
  scf.if %in {
    %v = memref.load %src[%i, %j] : memref<?x?xf32>
    %m = arith.mulf %v, %s : f32
    %jj = arith.index_cast %j : index to i32
    %jf = arith.sitofp %jj : i32 to f32
    %r = arith.addf %m, %jf : f32
    memref.store %r, %dst[%i, %j] : memref<?x?xf32>
  }
  return
}
"""


@pytest.fixture(scope="module", params=TARGETS)
def axpy(request: pytest.FixtureRequest) -> gpuc.Module:
    if request.param == "spirv":
        pytest.importorskip("pyopencl")
    return gpuc.compile(AXPY, target=request.param)


@pytest.fixture(scope="module", params=TARGETS)
def affine2d(request: pytest.FixtureRequest) -> gpuc.Module:
    if request.param == "spirv":
        pytest.importorskip("pyopencl")
    return gpuc.compile(MEMREF_2D, target=request.param)


def inputs(n: int, seed: int) -> tuple[np.float32, np.ndarray[Any, Any], Any]:
    rng = np.random.default_rng([seed, n])
    a = np.float32(rng.uniform(0.5, 2.0))
    return (
        a,
        rng.standard_normal(n, dtype=np.float32),
        rng.standard_normal(n, dtype=np.float32),
    )


def check_axpy(out: np.ndarray[Any, Any], a: Any, x: Any, y: Any) -> None:
    product = a * x
    want = product + y
    assert_within(out, want, fma_bound(product, want, out), "axpy out")


@pytest.mark.parametrize("n", [1, 1000, 70_001])
def test_device_arrays_round_trip_through_launches(axpy: gpuc.Module, n: int) -> None:
    a, x, y = inputs(n, 1)
    dx, dy = axpy.to_device(x), axpy.to_device(y)
    dout = axpy.to_device(np.full(n, POISON, np.float32))
    assert (dx.shape, dx.dtype, dx.nbytes) == ((n,), np.float32, 4 * n)
    axpy["axpy"].over(n, block=128)(a, dx, dy, dout, n)
    axpy.synchronize()
    out = dout.copy_to_host()
    assert type(out) is np.ndarray
    check_axpy(out, a, x, y)
    # The inputs stayed on the device unchanged; a second launch reuses them.
    assert np.array_equal(dx.copy_to_host(), x)
    axpy["axpy"][gpuc.blocks(n, 64), 64](np.float32(-1.0), dx, dout, dout, n)
    axpy.synchronize()
    again = np.empty(n, np.float32)
    assert dout.copy_to_host(again) is again
    assert_within(again, out - x, np.abs(out) * 2e-6 + np.abs(x) * 2e-6, "reuse")


def test_numpy_and_device_arrays_mix(axpy: gpuc.Module) -> None:
    n = 5000
    a, x, y = inputs(n, 2)
    out = np.full(n, POISON, np.float32)
    axpy.launch("axpy", gpuc.blocks(n, 256), 256, (a, axpy.to_device(x), y, out, n))
    check_axpy(out, a, x, y)  # a numpy argument: copied back, the launch waited


def test_read_only_arrays_for_pointers_the_kernel_only_reads(axpy: gpuc.Module) -> None:
    n = 3000
    a, x, y = inputs(n, 3)
    x.flags.writeable = False
    y.flags.writeable = False
    out = np.full(n, POISON, np.float32)
    read_only = [p.read_only for p in axpy.signatures["axpy"].params]
    assert read_only == [False, True, True, False, False]
    axpy["axpy"].over(n)(a, x, y, out, n)
    check_axpy(out, a, x, y)
    with pytest.raises(LaunchError, match="argument 3 .*read-only.*may write"):
        axpy["axpy"].over(n)(a, x, y, y, n)


def test_streams_and_events(axpy: gpuc.Module) -> None:
    n = 1 << 16
    a, x, y = inputs(n, 4)
    stream = axpy.stream()
    dx = axpy.to_device(x, stream=stream)
    dy = axpy.to_device(y, stream=stream)
    dout = axpy.empty(n, np.float32)
    dout.copy_from_host(np.full(n, POISON, np.float32), stream=stream)
    start = stream.record()
    axpy["axpy"][gpuc.blocks(n, 256), 256, stream](a, dx, dy, dout, n)
    end = stream.record()
    out = np.full(n, POISON, np.float32)
    dout.copy_to_host(out, stream=stream)
    stream.synchronize()
    check_axpy(out, a, x, y)
    elapsed = end.elapsed_ms(start)
    assert 0 <= elapsed < 60_000


def test_launch_configuration_errors(axpy: gpuc.Module) -> None:
    n = 16
    a, x, y = inputs(n, 5)
    k = axpy["axpy"]
    with pytest.raises(LaunchError, match=r"kernel\[grid, block, stream, shared\]"):
        k[1, 2, 3, 4, 5]
    with pytest.raises(LaunchError, match="over\\(n, block=256\\)"):
        k(a, x, y, y, n)
    with pytest.raises(LaunchError, match="n and block need the same"):
        gpuc.blocks((4, 4), 2)
    with pytest.raises(LaunchError, match="n must be ints of at least 1"):
        gpuc.blocks(0, 2)
    assert gpuc.blocks(1000, 256) == gpuc.blocks(np.int32(1000), 256) == 4
    with pytest.raises(LaunchError, match="block must be ints"):
        gpuc.blocks(4, True)
    assert gpuc.blocks((5, 17), (4, 8)) == (2, 3)
    with pytest.raises(LaunchError, match="shared is -1 bytes"):
        k.over(n, block=16, shared=-1)(a, x, y, y.copy(), n)
    with pytest.raises(LaunchError, match="array of float32, got .*int32"):
        k.over(n)(a, axpy.to_device(x.view(np.int32)), y, y.copy(), n)


def test_memref_kernels_take_arrays_alone(affine2d: gpuc.Module) -> None:
    rng = np.random.default_rng(6)
    rows, cols = 37, 53
    src = rng.standard_normal((rows, cols), dtype=np.float32)
    s = np.float32(rng.uniform(0.5, 2))
    want = src * s + np.arange(cols, dtype=np.float32)
    shapes = affine2d.signatures["affine2d"].shapes
    assert [(sh.pointer, sh.dims) for sh in shapes] == [
        (0, (None, None)),
        (3, (None, None)),
    ]
    grid = gpuc.blocks((cols, rows), (16, 8))
    dst = np.full((rows, cols), POISON, np.float32)
    affine2d["affine2d"][grid, (16, 8)](src, dst, s)
    assert_within(dst, want, np.abs(want) * 2e-6 + 1e-6, "affine2d, sizes from shapes")
    # The sizes passed explicitly still work, and are checked against the shape.
    dst = np.full((rows, cols), POISON, np.float32)
    affine2d.launch("affine2d", grid, (16, 8), (src, rows, cols, dst, rows, cols, s))
    assert_within(dst, want, np.abs(want) * 2e-6 + 1e-6, "affine2d, sizes passed")
    # Device arrays carry their shape too.
    ddst = affine2d.to_device(np.full((rows, cols), POISON, np.float32))
    affine2d["affine2d"][grid, (16, 8)](affine2d.to_device(src), ddst, s)
    affine2d.synchronize()
    got = ddst.copy_to_host()
    assert_within(got, want, np.abs(want) * 2e-6 + 1e-6, "affine2d, device arrays")
    with pytest.raises(LaunchError, match=r"argument 4 \('dst_dim0'.*= 36 disagrees"):
        affine2d.launch(
            "affine2d", grid, (16, 8), (src, rows, cols, dst, rows - 1, cols, s)
        )
    with pytest.raises(LaunchError, match="memref<\\?x\\?> of 1961 elements"):
        affine2d.launch(
            "affine2d", grid, (16, 8), (src, rows, cols, dst.ravel()[1:], rows, cols, s)
        )
    with pytest.raises(LaunchError, match="pass an array of rank 2"):
        affine2d["affine2d"][grid, (16, 8)](src.ravel(), dst, s)
    with pytest.raises(LaunchError, match=r"takes 7 arguments \(or 3 without"):
        affine2d["affine2d"][grid, (16, 8)](src, dst)


def test_pyopencl_arrays_are_taken_as_they_are() -> None:
    cla = pytest.importorskip("pyopencl.array")
    mod = gpuc.compile(AXPY, target="spirv")
    queue = mod.executor.queue  # type: ignore[attr-defined]
    n = 4099
    a, x, y = inputs(n, 7)
    px, py = cla.to_device(queue, x), cla.to_device(queue, y)
    pout = cla.to_device(queue, np.full(n, POISON, np.float32))
    mod["axpy"].over(n, block=64)(a, px, py, pout, n)
    check_axpy(pout.get(), a, x, y)
    # A gpuc device array and a pyopencl array of one context mix.
    pout.set(np.full(n, POISON, np.float32))
    mod["axpy"].over(n, block=64)(a, mod.to_device(x), py, pout, n)
    check_axpy(pout.get(), a, x, y)


class ForeignArray(DeviceArray):
    """A device array of some other executor."""

    def copy_to_host(self, out: Any = None, *, stream: Any = None) -> Any:
        raise AssertionError("never read")

    def copy_from_host(self, host: Any, *, stream: Any = None) -> None:
        raise AssertionError("never written")


def test_spirv_arrays_and_streams_belong_to_their_device() -> None:
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array as cla

    spirv = gpuc.compile(AXPY, target="spirv")
    x = np.zeros(4, np.float32)
    foreign = ForeignArray(object(), None, 4, np.float32)
    with pytest.raises(LaunchError, match="device array of another executor"):
        spirv["axpy"].over(4)(1.0, foreign, x, x.copy(), 4)
    device = spirv.executor.device  # type: ignore[attr-defined]
    context = cl.Context([device])
    other = cl.CommandQueue(context)
    with pytest.raises(LaunchError, match="belongs to another OpenCL context"):
        spirv["axpy"].over(4)(1.0, cla.to_device(other, x), x, x.copy(), 4)
    with pytest.raises(LaunchError, match="not a stream of this spirv executor"):
        spirv["axpy"][1, 4, object()](1.0, x, x, x.copy(), 4)
    with pytest.raises(LaunchError, match="through shared pointer parameters"):
        spirv["axpy"][1, 4, None, 1024](1.0, x, x, x.copy(), 4)
    # Every module on one device shares its arrays and streams.
    again = gpuc.compile(AXPY, target="spirv")
    n = 300
    a, xs, ys = inputs(n, 9)
    stream = spirv.stream()
    dout = again.to_device(np.full(n, POISON, np.float32))
    again["axpy"].over(n, stream=stream)(a, spirv.to_device(xs), ys, dout, n)
    stream.synchronize()
    check_axpy(dout.copy_to_host(), a, xs, ys)


# Reverses each block's slice of x through a shared pointer parameter: the
# launch gives it block_dim elements of dynamic shared memory.
REVERSE = """
gpuc.func @reverse(%x: !gpuc.ptr<f32, global>, %tmp: !gpuc.ptr<f32, shared>) kernel {
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %n = gpuc.block_dim x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %tmp[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %c1 = arith.constant 1 : index
  %last = arith.subi %n, %c1 : index
  %j = arith.subi %last, %t : index
  %w = gpuc.load %tmp[%j] : !gpuc.ptr<f32, shared>
  gpuc.store %w, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("block", [1, 32, 200])
def test_spirv_dynamic_shared_memory_through_shared_pointer_parameters(
    block: int,
) -> None:
    pytest.importorskip("pyopencl")
    mod = gpuc.compile(REVERSE, target="spirv")
    grid = 7
    x = np.random.default_rng([10, block]).standard_normal(grid * block, np.float32)
    dx = mod.to_device(x)
    mod["reverse"][grid, block](dx, gpuc.SharedMemory(block))
    want = x.reshape(grid, block)[:, ::-1].ravel()
    assert np.array_equal(dx.copy_to_host(), want)
    with pytest.raises(LaunchError, match="bytes of dynamic shared memory"):
        mod["reverse"][1, block](dx, gpuc.SharedMemory(1 << 40))
    with pytest.raises(LaunchError, match="pass gpuc.SharedMemory"):
        mod["reverse"][1, block](dx, np.zeros(block, np.float32))


# Two shared pointer parameters of different types next to a static shared
# allocation: out[i] = x[the mirrored thread's i] + the mirrored thread's id
# (read back through b) + the static slot's block id.
WINDOWS = """
gpuc.func @windows(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                   %a: !gpuc.ptr<f32, shared>, %b: !gpuc.ptr<i32, shared>) kernel {
  %static = gpuc.shared_alloc 3 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %n = gpuc.block_dim x
  %blk = gpuc.block_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %a[%t] : !gpuc.ptr<f32, shared>
  %ti = arith.index_cast %t : index to i32
  gpuc.store %ti, %b[%t] : !gpuc.ptr<i32, shared>
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %bi = arith.index_cast %blk : index to i32
    %bf = arith.sitofp %bi : i32 to f32
    gpuc.store %bf, %static[%c1] : !gpuc.ptr<f32, shared>
  }
  gpuc.barrier
  %last = arith.subi %n, %c1 : index
  %j = arith.subi %last, %t : index
  %w = gpuc.load %a[%j] : !gpuc.ptr<f32, shared>
  %k = gpuc.load %b[%j] : !gpuc.ptr<i32, shared>
  %kf = arith.sitofp %k : i32 to f32
  %s = gpuc.load %static[%c1] : !gpuc.ptr<f32, shared>
  %r0 = arith.addf %w, %kf : f32
  %r = arith.addf %r0, %s : f32
  gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


def windows_want(x: np.ndarray[Any, Any], grid: int, block: int) -> Any:
    mirrored = x.reshape(grid, block)[:, ::-1]
    ids = np.arange(block - 1, -1, -1, dtype=np.float32)
    blocks = np.arange(grid, dtype=np.float32)[:, None]
    return ((mirrored + ids) + blocks).ravel()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("grid", "block"), [(3, 1), (7, 33), (300, 128)])
def test_dynamic_shared_memory_through_shared_pointer_parameters(
    target: str, grid: int, block: int
) -> None:
    """One API on every executor: gpuc.SharedMemory(count) per shared
    pointer parameter, here two of them (f32 and i32) beside static shared
    memory; 300 blocks of 128 threads split over OS threads on native."""
    if target == "spirv":
        pytest.importorskip("pyopencl")
    mod = gpuc.compile(WINDOWS, target=target)
    x = np.random.default_rng([11, grid, block]).standard_normal(
        grid * block, np.float32
    )
    out = np.full(grid * block, POISON, np.float32)
    k = mod["windows"][grid, block]
    k(x, out, gpuc.SharedMemory(block), gpuc.SharedMemory(block))
    assert np.array_equal(out, windows_want(x, grid, block))


def test_native_checked_mode_bounds_each_shared_window() -> None:
    """Checked mode knows each window's size: one too small is a fault
    naming the parameter, not a write into the next window."""
    mod = gpuc.compile(WINDOWS, target="native", checked=True)
    x = np.ones(64, np.float32)
    out = np.full(64, POISON, np.float32)
    mod["windows"][2, 32](x, out, gpuc.SharedMemory(32), gpuc.SharedMemory(32))
    assert np.array_equal(out, windows_want(x, 2, 32))
    with pytest.raises(
        LaunchError, match=r"outside parameter %b .*outside the extent 4;"
    ):
        mod["windows"][2, 32](x, out, gpuc.SharedMemory(32), gpuc.SharedMemory(4))


def test_native_streams_are_synchronous_and_refuse_dynamic_shared() -> None:
    mod = gpuc.compile(AXPY, target="native")
    n = 999
    a, x, y = inputs(n, 8)
    stream = mod.stream()
    out = mod.empty(n, np.float32)
    out[...] = POISON
    start = stream.record()
    mod["axpy"].over(n, block=32, stream=stream)(a, mod.to_device(x), y, out, n)
    end = stream.record()
    check_axpy(out.copy_to_host(), a, x, y)  # finished before the launch returned
    assert end.elapsed_ms(start) >= 0
    with pytest.raises(LaunchError, match="provides no dynamic shared memory"):
        mod["axpy"][1, 1, None, 16](a, x, y, out, 1)
    with pytest.raises(LaunchError, match="pass gpuc.SharedMemory"):
        gpuc.compile(REVERSE, target="native")["reverse"][1, 4](x, x)


# Which pointers each kernel writes through, from the IR after inlining.
ACCESS = """
gpuc.func @access(%loaded: !gpuc.ptr<f32, global>, %via_offset: !gpuc.ptr<f32, global>,
                  %stored: !gpuc.ptr<f32, global>, %stored_at: !gpuc.ptr<f32, global>,
                  %atomic: !gpuc.ptr<i32, global>, %called: !gpuc.ptr<f32, global>,
                  %inlined: !gpuc.ptr<f32, global>, %cast: !gpuc.ptr<f32, global>,
                  %cast_st: !gpuc.ptr<f32, global>, %i: index) kernel {
  %a = gpuc.load %loaded[%i] : !gpuc.ptr<f32, global>
  %q = gpuc.offset %via_offset[%i] : !gpuc.ptr<f32, global>
  %b = gpuc.load %q : !gpuc.ptr<f32, global>
  gpuc.store %a, %stored[%i] : !gpuc.ptr<f32, global>
  %r = gpuc.offset %stored_at[%i] : !gpuc.ptr<f32, global>
  gpuc.store %b, %r : !gpuc.ptr<f32, global>
  %one = arith.constant 1 : i32
  %old = gpuc.atomic_rmw add %atomic[%i], %one : !gpuc.ptr<i32, global>
  gpuc.call @keep(%called) : (!gpuc.ptr<f32, global>) -> ()
  %c = gpuc.call @read(%inlined, %i) : (!gpuc.ptr<f32, global>, index) -> f32
  %g = gpuc.addrspace_cast %cast : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, generic>
  %d = gpuc.load %g[%i] : !gpuc.ptr<f32, generic>
  %h = gpuc.addrspace_cast %cast_st : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, generic>
  gpuc.store %d, %h[%i] : !gpuc.ptr<f32, generic>
  gpuc.return
}

gpuc.func private @keep(%p: !gpuc.ptr<f32, global>) helper no_inline {
  %z = arith.constant 0 : index
  %v = gpuc.load %p[%z] : !gpuc.ptr<f32, global>
  %w = arith.addf %v, %v : f32
  gpuc.store %w, %p[%z] : !gpuc.ptr<f32, global>
  gpuc.return
}

gpuc.func private @read(%p: !gpuc.ptr<f32, global>, %i: index) -> f32
    helper always_inline {
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  gpuc.return %v : f32
}
"""


def test_read_only_is_what_the_ir_shows() -> None:
    """Only loads (through offsets, casts and inlined helpers) make a pointer
    read-only; a store, an atomic or a call that was not inlined does not."""
    mod = gpuc.compile(ACCESS, target="native")
    flags = {p.name: p.read_only for p in mod.signatures["access"].params}
    assert flags == {
        "loaded": True,
        "via_offset": True,
        "stored": False,
        "stored_at": False,
        "atomic": False,
        "called": False,
        "inlined": True,
        "cast": True,
        "cast_st": False,
        "i": False,
    }


def test_signatures_round_trip_through_json() -> None:
    from gpuc.runtime.args import KernelSignature

    mod = gpuc.compile(MEMREF_2D, target="native")
    sig = mod.signatures["affine2d"]
    assert sig.shapes and any(p.read_only for p in sig.params)
    assert KernelSignature.from_json(sig.to_json()) == sig


def test_copies_need_the_same_shape_and_dtype(axpy: gpuc.Module) -> None:
    """No broadcasting, no casting, on every executor (native's device arrays
    are numpy arrays, which would do both)."""
    device = axpy.to_device(np.zeros(4, np.float32))
    for bad in (np.zeros(1, np.float32), np.zeros(4, np.float64)):
        with pytest.raises(ValueError, match="the device array is"):
            device.copy_from_host(bad)
    with pytest.raises(ValueError, match="the device array is"):
        device.copy_to_host(np.zeros(10, np.float32))


def test_device_arrays_behave_like_arrays(axpy: gpuc.Module) -> None:
    """shape, strides, views of whole rows launched on in place, fill; numpy
    reads a native array as it is and refuses a spirv one (device memory)."""
    n = 1024
    a, x, y = inputs(n, 21)
    d = axpy.to_device(np.full((4, 256), POISON, np.float32))
    assert (d.shape, d.strides, d.size, d.ndim, len(d)) == (
        (4, 256),
        (1024, 4),
        1024,
        2,
        4,
    )
    d.fill(0)
    rows = d[1:3]  # 512 elements from byte 1024
    assert rows.shape == (2, 256)
    part = slice(256, 768)
    axpy["axpy"].over(512, block=64)(a, x[part], y[part], rows, 512)
    got = d.copy_to_host()
    assert (got[0] == 0).all() and (got[3] == 0).all()
    check_axpy(got[1:3].reshape(-1), a, x[part], y[part])
    d[3].fill(2.5)
    assert (d.copy_to_host()[3] == np.float32(2.5)).all()
    out = np.empty((4, 256), np.float32)
    assert d.copy_to_host(out=out) is out
    if axpy.target == "native":
        assert np.shares_memory(np.asarray(d), d)  # host memory: a view
        assert np.shares_memory(np.from_dlpack(d), d)
        return
    with pytest.raises(TypeError, match="in device memory.*copy_to_host"):
        np.asarray(d)
    with pytest.raises(IndexError, match="not contiguous"):
        d[:, ::2]
    with pytest.raises(IndexError, match="cannot address.*multiples of"):
        d[0, 1:]
