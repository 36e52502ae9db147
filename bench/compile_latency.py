"""Compile latency, measured side by side in one run:

- cold: `gpuc compile examples/saxpy.mlir --target ptx` as a whole process
  (interpreter start, imports, every stage; GPUC_CACHE=0, no server), median
  of several runs, next to `python -c pass` and, where nvcc exists, `nvcc
  -ptx` on the same kernel in CUDA C. Goal: at most 380 ms.
- warm: in one process that already compiled a kernel, compiling another one
  (each compile parses and runs every stage again), median. Goal: at most 24 ms.

    python bench/compile_latency.py [--runs 11]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAXPY_CU = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)(long)n) y[i] = a * x[i] + y[i];
}
"""


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


ENV = {**os.environ, "GPUC_CACHE": "0", "GPUC_SERVER": "0"}
"""Every command compiles (no compile cache: a repeated command would be a hit)
in its own process (no server); the start-up code cache is on, as by default
(gpuc/cache/startup.py), written as Python writes its bytecode by default."""
ENV.pop("PYTHONDONTWRITEBYTECODE", None)


def process(argv: Sequence[str]) -> Callable[[], object]:
    def run() -> object:
        return subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=ENV)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    gpuc = shutil.which("gpuc") or str(Path(sys.executable).parent / "gpuc")
    saxpy = str(ROOT / "examples" / "saxpy.mlir")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "saxpy.ptx")
        rows = [
            ("python -c pass", process([sys.executable, "-c", "pass"])),
            (
                "gpuc compile saxpy --target ptx",
                process([gpuc, "compile", saxpy, "--target", "ptx", "-o", out]),
            ),
        ]
        nvcc = shutil.which("nvcc")
        if nvcc:
            cu = Path(tmp) / "saxpy.cu"
            cu.write_text(SAXPY_CU)
            rows.append(
                (
                    "nvcc -ptx saxpy.cu",
                    process([nvcc, "-ptx", "-arch=sm_90", str(cu), "-o", out]),
                )
            )
        print(f"cold, whole process, median of {args.runs}:")
        cold = {}
        for name, fn in rows:
            fn()  # warm the file-system cache
            cold[name] = median_ms(fn, args.runs)
            print(f"  {name:<34} {cold[name]:7.1f} ms")
    gpuc_cold = cold["gpuc compile saxpy --target ptx"]
    print(f"  goal <= 380 ms: {'met' if gpuc_cold <= 380 else 'missed'}")

    from gpuc.compiler import compile_module

    compile_module(ROOT / "examples" / "reduce.mlir", "ptx")
    text = (ROOT / "examples" / "saxpy.mlir").read_text()
    warm = median_ms(lambda: compile_module(text, "ptx"), args.runs * 3)
    print(
        f"warm, in-process compile of a second kernel (saxpy after reduce), median "
        f"of {args.runs * 3}: {warm:.1f} ms; goal <= 24 ms: "
        f"{'met' if warm <= 24 else 'missed'}"
    )


if __name__ == "__main__":
    main()
