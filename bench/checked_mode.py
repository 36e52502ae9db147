"""What checked mode costs on the native executor: the same kernels compiled
with and without `checked=True`, side by side in one run.

    python bench/checked_mode.py [--repeat N] [--log2 N] [--size N]

- saxpy (examples/saxpy.mlir, block 256) on 2^N float32 (default 2^22): two
  loads and a store per thread, each checked against its array.
- matmul (examples/matmul.mlir, 16 x 16 tiles through shared memory) on
  N x N float32 (default 256): a work-group function, its global and shared
  accesses checked.

No goal is set (docs/runtime.md, "Checked mode", quotes the figures).
Timings are medians of interleaved rounds (each variant once per round);
inputs are fresh random arrays and both variants' results are checked
against numpy before they are timed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import gpuc

ROOT = Path(__file__).resolve().parent.parent


def compiled(example: str, checked: bool) -> gpuc.Module:
    return gpuc.compile(
        str(ROOT / "examples" / f"{example}.mlir"),
        target="native",
        cache=False,
        checked=checked,
    )


def medians(runs: dict[str, Callable[[], None]], repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in runs}
    for run in runs.values():
        run()  # warm up
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def report(title: str, found: dict[str, float]) -> None:
    off, on = found["unchecked"], found["checked"]
    print(f"\n{title}")
    print(f"  unchecked  {off * 1e3:9.3f} ms")
    print(f"  checked    {on * 1e3:9.3f} ms   {on / off:5.2f}x")


def bench_saxpy(n: int, repeat: int, rng: np.random.Generator) -> None:
    x = rng.standard_normal(n).astype(np.float32)
    y0 = rng.standard_normal(n).astype(np.float32)
    a = np.float32(1.5)
    runs = {}
    for name, checked in (("unchecked", False), ("checked", True)):
        m = compiled("saxpy", checked)
        y = y0.copy()
        m.launch("saxpy", (-(-n // 256),), (256,), (a, x, y, np.int32(n)))
        np.testing.assert_allclose(y, a * x + y0, rtol=1e-5, atol=1e-5)

        def run(m: gpuc.Module = m, y: np.ndarray = y) -> None:
            m.launch("saxpy", (-(-n // 256),), (256,), (a, x, y, np.int32(n)))

        runs[name] = run
    report(f"saxpy, {n} float32", medians(runs, repeat))


def bench_matmul(size: int, repeat: int, rng: np.random.Generator) -> None:
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = rng.standard_normal((size, size)).astype(np.float32)
    dims = (np.int32(size),) * 3
    grid = (-(-size // 16), -(-size // 16))
    runs = {}
    for name, checked in (("unchecked", False), ("checked", True)):
        m = compiled("matmul", checked)
        c = np.full((size, size), np.nan, np.float32)
        m.launch("matmul", grid, (16, 16), (a, b, c, *dims))
        np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3)

        def run(m: gpuc.Module = m, c: np.ndarray = c) -> None:
            m.launch("matmul", grid, (16, 16), (a, b, c, *dims))

        runs[name] = run
    report(f"matmul, {size} x {size} float32", medians(runs, repeat))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--log2", type=int, default=22, help="saxpy size 2^N")
    parser.add_argument("--size", type=int, default=256, help="matmul N x N")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    print(f"seed {args.seed}; {sys.platform}, gpuc native executor")
    rng = np.random.default_rng(args.seed)
    bench_saxpy(1 << args.log2, args.repeat, rng)
    bench_matmul(args.size, args.repeat, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
