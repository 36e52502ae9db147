"""The native executor against numpy (and NVIDIA Warp's CPU back-end, when
`import warp` works) on the same data, side by side in one run.

    python bench/native_vs_numpy.py [--repeat N] [--log2 N]

- saxpy on 2^24 float32: gpuc's examples/saxpy.mlir (one thread per element,
  block 256) against numpy in place (`multiply(x, a, out=t); add(y, t,
  out=y)`, no allocation) and Warp. Goal: at most numpy's time.
- stencil2d (examples/stencil2d.mlir, 16 x 16 blocks) on a 4096 x 4096 float32
  grid against numpy slices written into preallocated arrays, in the kernel's
  order of operations (so the results are equal). No goal is set; timed
  because its two guards (x < nx, y < ny) and its border branch are the
  shapes that decide how the thread loop vectorizes.
- a block reduction on 2^24 float32 against `np.sum`. Goal: within 2x.
  BLOCK_SUM below is a block reduction written for a CPU: each thread sums a
  contiguous chunk with eight accumulators, then the block adds the threads'
  partials in shared memory (a tree of barriers) and thread 0 adds the block's
  sum to the output atomically. examples/reduce.mlir (one element per thread,
  a 256-thread block, eight barriers per block) is timed too, on the same
  array. Both kernels have barriers, so they also run as SPIR-V on Intel's
  OpenCL CPU runtime (pyopencl, arrays already in device buffers), where
  one is installed. Goal: native at most the OpenCL runtime's time.

Timings are medians of interleaved rounds (each contender once per round), so
load from other processes hits all of them alike. Inputs are fresh random
arrays; every contender's result is checked before it is timed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import gpuc

ROOT = Path(__file__).resolve().parent.parent

BLOCK_SUM = """
// block_sum: out[0] += sum(x[0:n]); each thread sums a contiguous chunk.
gpuc.func @block_sum(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                     %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %partial = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %g = gpuc.global_id x
  %bd = gpuc.block_dim x
  %gd = gpuc.grid_dim x
  %threads = arith.muli %bd, %gd : index
  %nn = arith.index_cast %n : i32 to index
  %per0 = arith.ceildivui %nn, %threads : index
  %per1 = arith.addi %per0, %c7 : index
  %per8 = arith.divui %per1, %c8 : index
  %per = arith.muli %per8, %c8 : index
  %start0 = arith.muli %g, %per : index
  %start = arith.minui %start0, %nn : index
  %end0 = arith.addi %start, %per : index
  %end = arith.minui %end0, %nn : index
  %len = arith.subi %end, %start : index
  %body = arith.divui %len, %c8 : index
  %body8 = arith.muli %body, %c8 : index
  %mid = arith.addi %start, %body8 : index
  %s:8 = scf.for %i = %start to %mid step %c8
      iter_args(%a0 = %zero, %a1 = %zero, %a2 = %zero, %a3 = %zero,
                %a4 = %zero, %a5 = %zero, %a6 = %zero, %a7 = %zero)
      -> (f32, f32, f32, f32, f32, f32, f32, f32) {
    %i1 = arith.addi %i, %c1 : index
    %i2 = arith.addi %i, %c2 : index
    %i3 = arith.addi %i, %c3 : index
    %i4 = arith.addi %i, %c4 : index
    %i5 = arith.addi %i, %c5 : index
    %i6 = arith.addi %i, %c6 : index
    %i7 = arith.addi %i, %c7 : index
    %v0 = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %v1 = gpuc.load %x[%i1] : !gpuc.ptr<f32, global>
    %v2 = gpuc.load %x[%i2] : !gpuc.ptr<f32, global>
    %v3 = gpuc.load %x[%i3] : !gpuc.ptr<f32, global>
    %v4 = gpuc.load %x[%i4] : !gpuc.ptr<f32, global>
    %v5 = gpuc.load %x[%i5] : !gpuc.ptr<f32, global>
    %v6 = gpuc.load %x[%i6] : !gpuc.ptr<f32, global>
    %v7 = gpuc.load %x[%i7] : !gpuc.ptr<f32, global>
    %b0 = arith.addf %a0, %v0 : f32
    %b1 = arith.addf %a1, %v1 : f32
    %b2 = arith.addf %a2, %v2 : f32
    %b3 = arith.addf %a3, %v3 : f32
    %b4 = arith.addf %a4, %v4 : f32
    %b5 = arith.addf %a5, %v5 : f32
    %b6 = arith.addf %a6, %v6 : f32
    %b7 = arith.addf %a7, %v7 : f32
    scf.yield %b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7
        : f32, f32, f32, f32, f32, f32, f32, f32
  }
  %tail = scf.for %i = %mid to %end step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = arith.addf %acc, %v : f32
    scf.yield %r : f32
  }
  %p0 = arith.addf %s#0, %s#1 : f32
  %p1 = arith.addf %s#2, %s#3 : f32
  %p2 = arith.addf %s#4, %s#5 : f32
  %p3 = arith.addf %s#6, %s#7 : f32
  %q0 = arith.addf %p0, %p1 : f32
  %q1 = arith.addf %p2, %p3 : f32
  %r0 = arith.addf %q0, %q1 : f32
  %mine = arith.addf %r0, %tail : f32
  gpuc.store %mine, %partial[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %half = arith.shrui %bd, %c1 : index
  %last = scf.while (%stride = %half) : (index) -> index {
    %more = arith.cmpi ugt, %stride, %c0 : index
    scf.condition(%more) %stride : index
  } do {
  ^bb0(%stride: index):
    %active = arith.cmpi ult, %t, %stride : index
    scf.if %active {
      %other = arith.addi %t, %stride : index
      %a = gpuc.load %partial[%t] : !gpuc.ptr<f32, shared>
      %b = gpuc.load %partial[%other] : !gpuc.ptr<f32, shared>
      %sum = arith.addf %a, %b : f32
      gpuc.store %sum, %partial[%t] : !gpuc.ptr<f32, shared>
    }
    gpuc.barrier
    %next = arith.shrui %stride, %c1 : index
    scf.yield %next : index
  }
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %total = gpuc.load %partial[%c0] : !gpuc.ptr<f32, shared>
    %old = gpuc.atomic_rmw add %out[%c0], %total : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""


def side_by_side(
    contenders: dict[str, Callable[[], None]], repeat: int
) -> dict[str, float]:
    """Median seconds of each contender over `repeat` interleaved rounds."""
    for run in contenders.values():
        run()  # warm up (JIT, page faults, Warp's kernel cache)
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, run in contenders.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(title: str, medians: dict[str, float], base: str, goal: str) -> None:
    print(title)
    for name, seconds in medians.items():
        ratio = seconds / medians[base]
        print(f"  {name:44} {seconds * 1e3:8.2f} ms  {ratio:5.2f}x {base}")
    print(f"  goal: {goal}")


def warp_saxpy(a: np.float32, x: np.ndarray, y: np.ndarray) -> Callable[[], None] | str:
    """A Warp CPU saxpy on copies of x and y, or why there is none."""
    try:
        import warp as wp
    except ImportError:
        return "not installed (pip install warp-lang to compare)"
    wp.config.quiet = True
    wp.init()

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):  # type: ignore[valid-type]
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    wx = wp.array(x, dtype=float, device="cpu")
    wy = wp.array(y, dtype=float, device="cpu")

    def run() -> None:
        wp.launch(saxpy, dim=x.size, inputs=[float(a), wx, wy], device="cpu")
        wp.synchronize_device("cpu")

    return run


def bench_saxpy(n: int, repeat: int, rng: np.random.Generator) -> None:
    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="native")
    a = np.float32(1.25)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    check_y = y.copy()
    mod["saxpy"][-(-n // 256), 256](a, x, check_y, n)
    assert np.allclose(check_y, a * x + y, rtol=1e-6, atol=1e-6), "saxpy is wrong"

    scratch = np.empty_like(x)

    def numpy_in_place() -> None:
        np.multiply(x, a, out=scratch)
        np.add(y, scratch, out=y)

    contenders: dict[str, Callable[[], None]] = {
        "gpuc native (examples/saxpy.mlir, block 256)": lambda: mod.launch(
            "saxpy", -(-n // 256), 256, (a, x, y, n)
        ),
        "numpy in place": numpy_in_place,
    }
    warp = warp_saxpy(a, x, y.copy())
    if callable(warp):
        contenders["warp cpu"] = warp
    medians = side_by_side(contenders, repeat)
    report(
        f"saxpy, 2^{n.bit_length() - 1} float32 (median of {repeat})",
        medians,
        "numpy in place",
        "gpuc native <= 1.00x numpy",
    )
    if not callable(warp):
        print(f"  warp cpu: {warp}")


def bench_stencil(size: int, repeat: int, rng: np.random.Generator) -> None:
    mod = gpuc.compile(ROOT / "examples" / "stencil2d.mlir", target="native")
    grid_in = rng.standard_normal((size, size), dtype=np.float32)
    out = np.full_like(grid_in, np.nan)
    ours = np.full_like(grid_in, np.nan)
    scratch = np.empty((size - 2, size - 2), np.float32)

    def numpy_in_place() -> None:
        g, o = grid_in, ours[1:-1, 1:-1]
        np.add(g[1:-1, :-2], g[1:-1, 2:], out=o)
        np.add(g[:-2, 1:-1], g[2:, 1:-1], out=scratch)
        o += scratch
        o *= np.float32(0.125)
        np.multiply(g[1:-1, 1:-1], np.float32(0.5), out=scratch)
        o += scratch
        for edge in (np.s_[0, :], np.s_[-1, :], np.s_[:, 0], np.s_[:, -1]):
            ours[edge] = g[edge]

    blocks = (-(-size // 16), -(-size // 16))
    n = np.int32(size)

    def gpuc_stencil() -> None:
        mod.launch("stencil2d", blocks, (16, 16), (grid_in, out, n, n))

    gpuc_stencil()
    numpy_in_place()
    assert np.array_equal(out, ours), "stencil2d differs from numpy"
    medians = side_by_side(
        {
            "gpuc native (examples/stencil2d.mlir, 16x16)": gpuc_stencil,
            "numpy slices in place": numpy_in_place,
        },
        repeat,
    )
    report(
        f"stencil2d, {size} x {size} float32 (median of {repeat})",
        medians,
        "numpy slices in place",
        "none (for information)",
    )


def opencl_sum(
    source: str | Path, kernel: str, x: np.ndarray, want: float, grid: int, block: int
) -> Callable[[], None] | str:
    """`kernel(x, out, n)` compiled for spirv, launched through pyopencl on
    buffers resident in Intel's OpenCL CPU runtime (checked against `want`),
    or why there is none."""
    try:
        module = gpuc.compile(source, target="spirv")
        executor: Any = module.executor
        import pyopencl as cl
    except Exception as e:  # no pyopencl, no OpenCL device
        return f"{type(e).__name__}: {e}"
    queue, run = executor.queue, executor.kernel(kernel)
    mf = cl.mem_flags
    x_dev = cl.Buffer(queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    out_dev = cl.Buffer(queue.context, mf.READ_WRITE, 4)
    zero = np.zeros(1, np.float32)

    def launch() -> None:
        cl.enqueue_copy(queue, out_dev, zero)
        run.set_args(x_dev, out_dev, np.int32(len(x)))
        cl.enqueue_nd_range_kernel(queue, run, (grid * block,), (block,))
        queue.finish()

    launch()
    got = np.zeros(1, np.float32)
    cl.enqueue_copy(queue, got, out_dev)
    assert abs(got[0] - want) <= 1e-4 * want, f"{kernel} on OpenCL: {got[0]} vs {want}"
    return launch


def bench_reduction(n: int, repeat: int, rng: np.random.Generator) -> None:
    block_sum = gpuc.compile(BLOCK_SUM, target="native")
    reduce = gpuc.compile(ROOT / "examples" / "reduce.mlir", target="native")
    x = rng.uniform(0, 1, n).astype(np.float32)
    out = np.zeros(1, np.float32)
    grid, block = 1, 8
    want = float(np.sum(x, dtype=np.float64))
    block_sum["block_sum"][grid, block](x, out, n)
    assert abs(out[0] - want) <= 1e-5 * want, f"block_sum is wrong: {out[0]} vs {want}"

    def gpuc_block_sum() -> None:
        out[0] = 0
        block_sum.launch("block_sum", grid, block, (x, out, n))

    contenders = {
        f"gpuc native block_sum (grid {grid}, block {block})": gpuc_block_sum,
        "np.sum": lambda: np.sum(x),
    }
    ocl = opencl_sum(BLOCK_SUM, "block_sum", x, want, grid, block)
    if isinstance(ocl, str):
        print(f"(no OpenCL runtime: {ocl})")
    else:
        contenders["gpuc spirv block_sum, Intel OpenCL runtime"] = ocl
    medians = side_by_side(contenders, repeat)
    report(
        f"block reduction, 2^{n.bit_length() - 1} float32 (median of {repeat})",
        medians,
        "np.sum",
        "gpuc native <= 2.00x np.sum, and <= the OpenCL runtime",
    )

    small = len(x)
    xs = x
    red_out = np.zeros(1, np.float32)

    def gpuc_reduce() -> None:
        red_out[0] = 0
        reduce.launch("reduce", small // 256, 256, (xs, red_out, small))

    gpuc_reduce()
    assert abs(red_out[0] - xs.sum(dtype=np.float64)) <= 1e-4 * small
    contenders = {
        "gpuc native examples/reduce.mlir (block 256)": gpuc_reduce,
        "np.sum": lambda: np.sum(xs),
    }
    source = ROOT / "examples" / "reduce.mlir"
    ocl = opencl_sum(source, "reduce", xs, want, small // 256, 256)
    if not isinstance(ocl, str):
        contenders["gpuc spirv reduce, Intel OpenCL runtime"] = ocl
    small_medians = side_by_side(contenders, repeat)
    report(
        f"examples/reduce.mlir, {small} float32 ({small // 256} blocks x 9 barriers)",
        small_medians,
        "np.sum",
        "gpuc native <= the OpenCL runtime (GPU-shaped: one element per thread, "
        "a barrier per tree level)",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--log2", type=int, default=24, help="array size 2^N")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    print(f"seed {args.seed}; {sys.platform}, {gpuc.__name__} native executor")
    rng = np.random.default_rng(args.seed)
    bench_saxpy(1 << args.log2, args.repeat, rng)
    bench_stencil(1 << (args.log2 // 2), args.repeat, rng)
    bench_reduction(1 << args.log2, args.repeat, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
