"""Kernels with barriers on the native target's work-group functions, against
the same kernels' SPIR-V on Intel's OpenCL CPU runtime and against numpy,
side by side in one run; and the launch overhead of a tiny kernel.

    python bench/work_items.py [--rounds N] [--reduce-log2 N]

- reduce: examples/reduce.mlir (blocks of 256 threads, eight barriers per
  block, an atomic add per block) on 2^22 float32, against `np.sum`.
  Goals: native at most 1.5x the OpenCL runtime, at most 3x numpy.
- matmul: examples/matmul.mlir (16 x 16 tiles through shared memory, two
  barriers per tile) at 256 and 512, against numpy's `a @ b` (BLAS, on one
  thread: OpenBLAS's spinning threads would slow whoever runs after it).
  Goal: native at most 1.5x the OpenCL runtime.
- launch: a one-thread kernel that stores one float, launched from Python on
  native (argument checks, packing, the call), and the same as OpenCL C
  launched through pyopencl on the OpenCL runtime. Goal: native at most 50 us.

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
TINY_CL = "__kernel void tiny(__global float *x, float a) { x[0] = a; }"


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def race(
    contenders: dict[str, Callable[[], object]], rounds: int, repeat: int = 1
) -> dict[str, float]:
    """Median seconds per call of each contender, over interleaved rounds."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            samples[name].append(timed(fn, repeat))
    return {name: statistics.median(s) for name, s in samples.items()}


def opencl(module: gpuc.Module, kernel: str) -> tuple[Any, Any, Any]:
    """(pyopencl module, queue, kernel object) of `kernel` in a spirv module."""
    import pyopencl as cl

    executor = module.executor
    return cl, executor.queue, executor.kernel(kernel)


def bench_reduce(log2: int, rounds: int, rng: np.random.Generator) -> dict[str, float]:
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


def bench_matmul(size: int, rounds: int, rng: np.random.Generator) -> dict[str, float]:
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


def bench_launch(rounds: int) -> dict[str, float]:
    tiny = gpuc.compile(TINY, target="native")["tiny"]
    x = np.zeros(1, np.float32)
    value = np.float32(2.5)

    def run_native() -> None:
        tiny[(1,), (1,)](x, value)

    spirv = gpuc.compile(TINY, target="spirv")
    cl, queue, _ = opencl(spirv, "tiny")
    program = cl.Program(queue.context, TINY_CL).build()
    kernel = program.tiny
    x_dev = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)

    def run_opencl() -> None:
        kernel(queue, (1,), (1,), x_dev, value)
        queue.finish()

    run_native()
    assert x[0] == value
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
    ]
    print(f"medians of {args.rounds} interleaved rounds, ms")
    print(
        f"{'kernel':<14}{'native':>10}{'opencl':>10}{'numpy':>10}{'nat/ocl':>9}{'nat/np':>9}"
    )
    for name, t in rows:
        print(
            f"{name:<14}{t['native'] * 1e3:>10.3f}{t['opencl'] * 1e3:>10.3f}"
            f"{t['numpy'] * 1e3:>10.3f}{t['native'] / t['opencl']:>9.2f}"
            f"{t['native'] / t['numpy']:>9.2f}"
        )
    launch = bench_launch(args.rounds)
    print(
        f"launch of a one-thread kernel: native {launch['native'] * 1e6:.1f} us, "
        f"OpenCL C through pyopencl {launch['opencl'] * 1e6:.1f} us"
    )


if __name__ == "__main__":
    main()
