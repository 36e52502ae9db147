"""saxpy over 4M elements on the spirv executor with gpuc device arrays,
against the same through pyopencl with device buffers, side by side in one
run (Intel's OpenCL CPU runtime here).

    python bench/device_arrays.py [--n N] [--rounds R]

Each figure is the host's wall-clock time of one launch plus waiting for it
(`queue.finish()`), the way a user's loop sees it, as the median of R
interleaved rounds (one launch of each variant per round, each on its own
buffers, the order rotating from round to round, after a warm-up):

- gpuc device arrays: `mod["saxpy"][grid, 256](a, dx, dy, n)` on arrays from
  `mod.to_device`, then `mod.synchronize()`;
- pyopencl, gpuc's SPIR-V: the same program's kernel called through pyopencl
  on pyopencl buffers (what gpuc's launch path adds to a bare launch);
- pyopencl, OpenCL C: saxpy written in OpenCL C, built by the same runtime,
  on pyopencl buffers (the user's alternative);
- gpuc numpy arrays: the launch that copies in and back (a few rounds only).

Goal: gpuc device arrays / pyopencl (OpenCL C) at most 1.2.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

SAXPY_C = """
__kernel void saxpy(float a, __global float *x, __global float *y, int n) {
  size_t i = get_global_id(0);
  if (i < (size_t)(long)n) {
    y[i] = a * x[i] + y[i];
  }
}
"""
BLOCK = 256


def timed(launch: Callable[[], None], wait: Callable[[], None]) -> float:
    start = time.perf_counter()
    launch()
    wait()
    return (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=4 * 1024 * 1024)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    import pyopencl as cl
    import pyopencl.array as cla

    import gpuc
    from gpuc.runtime.opencl import describe

    n, rounds = args.n, args.rounds
    mod = gpuc.compile(ROOT / "examples" / "saxpy.mlir", target="spirv")
    ex = mod.executor
    queue = ex.queue  # type: ignore[attr-defined]
    rng = np.random.default_rng()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    a = np.float32(1e-3)
    grid = gpuc.blocks(n, BLOCK)
    size = (grid * BLOCK,)  # type: ignore[operator]

    dx, dy = mod.to_device(x), mod.to_device(y)
    saxpy = mod["saxpy"][grid, BLOCK]
    same = cl.Kernel(ex.program, mod.signatures["saxpy"].launch_symbol)  # type: ignore[attr-defined]
    c_program = cl.Program(ex.context, SAXPY_C).build()  # type: ignore[attr-defined]
    c_kernel = cl.Kernel(c_program, "saxpy")
    px, py = cla.to_device(queue, x), cla.to_device(queue, y)
    sx, sy = cla.to_device(queue, x), cla.to_device(queue, y)
    hx, hy = x.copy(), y.copy()

    # Each variant must compute saxpy before it is timed.
    want = a * x + y
    saxpy(a, dx, dy, n)
    mod.synchronize()
    c_kernel(queue, size, (BLOCK,), a, px.data, py.data, np.int32(n))
    queue.finish()
    for what, got in (("gpuc", dy.copy_to_host()), ("OpenCL C", py.get())):
        if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            sys.exit(f"saxpy through {what} disagrees with numpy")

    variants: dict[str, tuple[Callable[[], None], Callable[[], None]]] = {
        "gpuc device arrays": (lambda: saxpy(a, dx, dy, n), mod.synchronize),
        "pyopencl, gpuc's SPIR-V": (
            lambda: same(queue, size, (BLOCK,), a, sx.data, sy.data, np.int32(n)),
            queue.finish,
        ),
        "pyopencl, OpenCL C": (
            lambda: c_kernel(queue, size, (BLOCK,), a, px.data, py.data, np.int32(n)),
            queue.finish,
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for launch, wait in variants.values():  # warm-up
        timed(launch, wait)
    names = list(variants)
    for r in range(rounds):  # each variant first in turn: no order favours one
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(timed(*variants[name]))
    copying = [
        timed(lambda: saxpy(a, hx, hy, n), lambda: None) for _ in range(min(5, rounds))
    ]
    medians = {name: statistics.median(t) for name, t in times.items()}

    print(f"saxpy, n = {n}, block {BLOCK}, on {describe(ex.device)}")  # type: ignore[attr-defined]
    print(f"median of {rounds} interleaved rounds, ms per launch + wait:")
    for name, median in medians.items():
        print(f"  {name:26s} {median:9.3f}")
    print(f"  {'gpuc numpy arrays':26s} {statistics.median(copying):9.3f}  (copying)")
    ratio = medians["gpuc device arrays"] / medians["pyopencl, OpenCL C"]
    same_ratio = medians["gpuc device arrays"] / medians["pyopencl, gpuc's SPIR-V"]
    print(f"gpuc device arrays / pyopencl OpenCL C: {ratio:.3f}x (goal <= 1.2)")
    print(f"gpuc device arrays / pyopencl on gpuc's SPIR-V: {same_ratio:.3f}x")


if __name__ == "__main__":
    main()
