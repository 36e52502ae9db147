"""Kernels with barriers on the native target's work-group functions, against
the same kernels' SPIR-V on Intel's OpenCL CPU runtime and against numpy,
side by side in one run; and the launch overhead of a tiny kernel.

    GPUC_CACHE=0 python bench/work_items.py [--rounds N] [--reduce-log2 N]

- reduce: examples/reduce.mlir (blocks of 256 threads, eight barriers per
  block, an atomic add per block) on 2^22 float32, against `np.sum`.
  Goals: native at most 1.5x the OpenCL runtime, at most 3x numpy.
- matmul: examples/matmul.mlir (16 x 16 tiles through shared memory, two
  barriers per tile) at 256 and 512, against numpy's `a @ b` (BLAS, on one
  thread: OpenBLAS's spinning threads would slow whoever runs after it).
  Goal: native at most 1.5x the OpenCL runtime.
- kernels users write, from examples/python/: softmax (one 256-thread block
  per row of a 1024 x 1024 float32 matrix, two tree reductions in shared
  memory through a helper), transpose (32 x 32 tiles through a padded shared
  tile, 4096 x 4096) and scan_block (256-element block scans with a barrier
  pair per step, 2^22 float32), on gpuc's device arrays on both executors.
  Goal: native at most the OpenCL runtime.
- launch: saxpy (examples/saxpy.mlir, four arguments) on one element,
  launched from Python on native (argument checks, packing, the call), and
  the same as OpenCL C launched through pyopencl on buffers resident in the
  OpenCL runtime. Goal: native at most 20 us.

Each figure is printed as the median and the minimum of the rounds: a median
far above the minimum is a launch that waited (for a core, for its threads).
Native's barrier kernels run compiled for their block from their third
launch on (the check and the warm-up come first: docs/runtime.md);
`GPUC_SPECIALIZE=0` times the generic work-group functions instead.

The OpenCL side runs gpuc's SPIR-V with the arrays already in device
buffers (pyopencl, `queue.finish()` after each launch), so it times the
runtime, not gpuc's copies. Timings are medians of interleaved rounds (each
contender once per round), so load from other processes hits all of them
alike. Inputs are fresh random arrays; every contender's result is checked
before it is timed.
"""

from __future__ import annotations

import os

# OpenBLAS's threads spin for a while after each `a @ b`, taking the cores
# from whoever runs next in the round: numpy's BLAS runs on one thread here.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

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
TINY = """
gpuc.func @tiny(%x: !gpuc.ptr<f32, global>, %a: f32) kernel {
  %c0 = arith.constant 0 : index
  gpuc.store %a, %x[%c0] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""
SAXPY_CL = """
__kernel void saxpy(float a, __global float *x, __global float *y, int n) {
  size_t i = get_global_id(0);
  if (i < (size_t)(long)n) y[i] = a * x[i] + y[i];
}
"""


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


Times = dict[str, tuple[float, float]]
"""Contender -> (median, minimum) seconds per call."""


def race(
    contenders: dict[str, Callable[[], object]], rounds: int, repeat: int = 1
) -> Times:
    """Median and minimum seconds per call of each contender, over
    interleaved rounds (each contender first in turn)."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for fn in contenders.values():  # warm-up
        fn()
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            samples[name].append(timed(contenders[name], repeat))
    return {name: (statistics.median(s), min(s)) for name, s in samples.items()}


def opencl(module: gpuc.Module, kernel: str) -> tuple[Any, Any, Any]:
    """(pyopencl module, queue, kernel object) of `kernel` in a spirv module."""
    import pyopencl as cl

    executor = module.executor
    return cl, executor.queue, executor.kernel(kernel)


def bench_reduce(log2: int, rounds: int, rng: np.random.Generator) -> Times:
    n = 1 << log2
    x = rng.random(n, dtype=np.float32)
    want = float(np.sum(x, dtype=np.float64))
    source = ROOT / "examples" / "reduce.mlir"
    native = gpuc.compile(source, target="native")["reduce"]
    grid, block = ((n + 255) // 256,), (256,)
    out = np.zeros(1, np.float32)

    def run_native() -> None:
        out[0] = 0
        native[grid, block](x, out, np.int32(n))

    cl, queue, kernel = opencl(gpuc.compile(source, target="spirv"), "reduce")
    mf = cl.mem_flags
    x_dev = cl.Buffer(queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    out_dev = cl.Buffer(queue.context, mf.READ_WRITE, 4)
    zero = np.zeros(1, np.float32)

    def run_opencl() -> None:
        cl.enqueue_copy(queue, out_dev, zero)
        kernel.set_args(x_dev, out_dev, np.int32(n))
        cl.enqueue_nd_range_kernel(queue, kernel, (grid[0] * 256,), block)
        queue.finish()

    run_native()
    check("reduce native", float(out[0]), want)
    run_opencl()
    got = np.zeros(1, np.float32)
    cl.enqueue_copy(queue, got, out_dev)
    check("reduce opencl", float(got[0]), want)
    return race(
        {"native": run_native, "opencl": run_opencl, "numpy": lambda: np.sum(x)},
        rounds,
    )


def check(what: str, got: float, want: float) -> None:
    if abs(got - want) > 1e-4 * abs(want):
        sys.exit(f"{what}: {got} != {want}")


def bench_matmul(size: int, rounds: int, rng: np.random.Generator) -> Times:
    a = rng.random((size, size), dtype=np.float32)
    b = rng.random((size, size), dtype=np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    source = ROOT / "examples" / "matmul.mlir"
    native = gpuc.compile(source, target="native")["matmul"]
    grid, block = ((size + 15) // 16, (size + 15) // 16), (16, 16)
    dims = (np.int32(size), np.int32(size), np.int32(size))
    c = np.full((size, size), np.nan, np.float32)

    def run_native() -> None:
        native[grid, block](a, b, c, *dims)

    cl, queue, kernel = opencl(gpuc.compile(source, target="spirv"), "matmul")
    mf = cl.mem_flags
    a_dev = cl.Buffer(queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_dev = cl.Buffer(queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    c_dev = cl.Buffer(queue.context, mf.READ_WRITE, c.nbytes)

    def run_opencl() -> None:
        kernel.set_args(a_dev, b_dev, c_dev, *dims)
        cl.enqueue_nd_range_kernel(queue, kernel, (grid[0] * 16, grid[1] * 16), block)
        queue.finish()

    run_native()
    np.testing.assert_allclose(c, want, rtol=1e-4)
    run_opencl()
    got = np.empty_like(c)
    cl.enqueue_copy(queue, got, c_dev)
    np.testing.assert_allclose(got, want, rtol=1e-4)
    return race(
        {"native": run_native, "opencl": run_opencl, "numpy": lambda: a @ b},
        rounds,
    )


def python_kernel(module: str, name: str) -> Any:
    sys.path.insert(0, str(ROOT / "examples" / "python"))
    try:
        return getattr(__import__(module), name)
    finally:
        sys.path.pop(0)


def bench_user(
    kernel: Any,
    grid: tuple[int, ...],
    block: tuple[int, ...],
    inputs: list[np.ndarray[Any, Any]],
    want: Callable[[list[np.ndarray[Any, Any]]], np.ndarray[Any, Any]],
    result: int,
    rounds: int,
    numpy: Callable[[], object],
) -> Times:
    """`kernel` (a Python kernel) on native and on spirv (the OpenCL runtime),
    its arguments gpuc device arrays of `inputs`; argument `result` checked
    against `want(inputs)` on each before the race."""
    runs: dict[str, Callable[[], object]] = {}
    expected = want(inputs)
    for target in ("native", "spirv"):
        mod = gpuc.compile(kernel, target=target)
        arrays = [mod.to_device(a) for a in inputs]
        launch = mod[kernel.name][grid, block]

        def run(launch: Any = launch, arrays: Any = arrays, mod: Any = mod) -> None:
            launch(*arrays)
            mod.synchronize()

        run()
        got = arrays[result].copy_to_host()
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
        runs["opencl" if target == "spirv" else "native"] = run
    runs["numpy"] = numpy
    return race(runs, rounds)


def bench_softmax(rounds: int, rng: np.random.Generator) -> Times:
    rows = cols = 1024
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = np.full_like(x, np.nan)
    scratch = np.empty_like(x)

    def softmax(a: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
        e = np.exp(a[0] - a[0].max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def numpy() -> None:
        np.subtract(x, x.max(axis=1, keepdims=True), out=scratch)
        np.exp(scratch, out=scratch)
        np.divide(scratch, scratch.sum(axis=1, keepdims=True), out=scratch)

    kernel = python_kernel("softmax", "softmax")
    return bench_user(kernel, (rows,), (256,), [x, out], softmax, 1, rounds, numpy)


def bench_transpose(rounds: int, rng: np.random.Generator) -> Times:
    n = 4096
    src = rng.standard_normal((n, n), dtype=np.float32)
    dst = np.full_like(src, np.nan)
    copy = np.empty_like(src)
    kernel = python_kernel("transpose", "transpose")
    return bench_user(
        kernel,
        (n // 32, n // 32),
        (32, 32),
        [src, dst],
        lambda a: a[0].T,
        1,
        rounds,
        lambda: np.copyto(copy, src.T),
    )


def bench_scan(rounds: int, rng: np.random.Generator) -> Times:
    n = 1 << 22
    x = rng.random(n, dtype=np.float32)
    sums = np.full(n // 256, np.nan, np.float32)
    out = np.empty((n // 256, 256), np.float32)

    def scanned(a: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
        blocks = a[0].astype(np.float64).reshape(-1, 256)
        return np.cumsum(blocks, axis=1).reshape(-1).astype(np.float32)

    kernel = python_kernel("scan", "scan_block")
    return bench_user(
        kernel,
        (n // 256,),
        (256,),
        [x, sums],
        scanned,
        0,
        rounds,
        lambda: np.cumsum(x.reshape(-1, 256), axis=1, out=out),
    )


def bench_launch(rounds: int) -> Times:
    saxpy = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="native")["saxpy"]
    x, y = np.ones(1, np.float32), np.ones(1, np.float32)
    a, n = np.float32(2.5), np.int32(1)

    def run_native() -> None:
        saxpy[(1,), (1,)](a, x, y, n)

    spirv = gpuc.compile(TINY, target="spirv")
    cl, queue, _ = opencl(spirv, "tiny")
    kernel = cl.Program(queue.context, SAXPY_CL).build().saxpy
    x_dev = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)
    y_dev = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)

    def run_opencl() -> None:
        kernel(queue, (1,), (1,), a, x_dev, y_dev, n)
        queue.finish()

    run_native()
    assert y[0] == a + 1
    return race({"native": run_native, "opencl": run_opencl}, rounds, repeat=200)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--reduce-log2", type=int, default=22)
    args = parser.parse_args()
    rng = np.random.default_rng()
    rows: list[tuple[str, dict[str, float]]] = [
        (
            f"reduce 2^{args.reduce_log2}",
            bench_reduce(args.reduce_log2, args.rounds, rng),
        ),
        ("matmul 256", bench_matmul(256, args.rounds, rng)),
        ("matmul 512", bench_matmul(512, args.rounds, rng)),
        ("softmax 1024", bench_softmax(args.rounds, rng)),
        ("transpose 4096", bench_transpose(args.rounds, rng)),
        ("scan 2^22", bench_scan(args.rounds, rng)),
    ]
    print(f"median (minimum) of {args.rounds} interleaved rounds, ms")
    print(
        f"{'kernel':<15}{'native':>18}{'opencl':>18}{'numpy':>18}"
        f"{'nat/ocl':>9}{'nat/np':>8}"
    )

    def cell(t: tuple[float, float]) -> str:
        return f"{t[0] * 1e3:.3f} ({t[1] * 1e3:.3f})"

    for name, t in rows:
        print(
            f"{name:<15}{cell(t['native']):>18}{cell(t['opencl']):>18}"
            f"{cell(t['numpy']):>18}{t['native'][0] / t['opencl'][0]:>9.2f}"
            f"{t['native'][0] / t['numpy'][0]:>8.2f}"
        )
    launch = bench_launch(args.rounds)
    native, ocl = launch["native"], launch["opencl"]
    print(
        "launch of saxpy on one element (four arguments): native "
        f"{native[0] * 1e6:.1f} us (min {native[1] * 1e6:.1f}), OpenCL C through "
        f"pyopencl on resident buffers {ocl[0] * 1e6:.1f} us (min {ocl[1] * 1e6:.1f})"
    )


if __name__ == "__main__":
    main()
