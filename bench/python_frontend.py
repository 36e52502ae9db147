"""Python kernels: gpuc's frontend against numba-cuda, side by side.

    python bench/python_frontend.py --numba-python /path/to/venv/bin/python

For the row softmax, tiled transpose, block scan and saxpy (examples/python/
and their numba-cuda versions in bench/numba_kernels/), prints

- the lines of kernel code of each (no imports, docstrings, blank lines or
  comments; both formatted by ruff) and their ratio;
- the compile to PTX (sm_90) in a fresh process: the import (`import gpuc` /
  `from numba import cuda`), the first compile, and a warm compile (the same
  kernel again in that process), medians of --runs fresh processes. gpuc runs
  with GPUC_CACHE=0, so every compile does the whole pipeline; numba-cuda's
  `compile_ptx` has no cache.

Each side first runs once unmeasured, as an installed package's first run
would: Python writes the bytecode of what it imports (a pip install does it
for its own files; an editable install of gpuc leaves it to the first run), and
gpuc its start-up code cache (`gpuc.cache.startup`). So the children run without
PYTHONDONTWRITEBYTECODE, whatever the caller's environment says. `--cpu`
times the children's CPU time instead of the wall clock (on a shared, busy
machine, where the wall clock measures the neighbours).

numba-cuda goes in an environment of its own (`python -m venv V && V/bin/pip
install "numba-cuda[cu12]"`), given by --numba-python (default:
$NUMBA_PYTHON). Without a GPU, numba-cuda asks the driver for the compute
capability when it compiles a device function; the numba side answers 9.0
for it (the target both compile for) instead.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPUC_DIR = ROOT / "examples" / "python"
NUMBA_DIR = ROOT / "bench" / "numba_kernels"
# kernel file -> (kernels, numba signatures)
KERNELS = {
    "softmax": (["softmax"], ["void(float32[:, :], float32[:, :])"]),
    "transpose": (["transpose"], ["void(float32[:, :], float32[:, :])"]),
    "scan": (
        ["scan_block", "add_sums"],
        ["void(float32[:], float32[:])", "void(float32[:], float32[:])"],
    ),
    "saxpy": (["saxpy"], ["void(float32, float32[:], float32[:], int32)"]),
}

GPUC_CHILD = """
import json, sys, time
clock = time.{clock}
t0 = clock()
import gpuc
sys.path.insert(0, {dir!r})
import {name} as m
t1 = clock()
kernels = [getattr(m, k) for k in {kernels!r}]
gpuc.compile(kernels, "ptx", sm=90)
t2 = clock()
gpuc.compile(kernels, "ptx", sm=90)
t3 = clock()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))
"""

NUMBA_CHILD = """
import json, sys, time
clock = time.{clock}
t0 = clock()
from numba import cuda
from numba.cuda import compile_ptx
import numba.cuda.dispatcher as dispatcher
class _Device:  # no GPU: the compute capability compile_ptx targets
    compute_capability = (9, 0)
dispatcher.get_current_device = lambda: _Device()
sys.path.insert(0, {dir!r})
import {name} as m
t1 = clock()
def compile_all():
    for k, sig in zip({kernels!r}, {sigs!r}):
        compile_ptx(getattr(m, k).py_func, sig, cc=(9, 0))
compile_all()
t2 = clock()
compile_all()
t3 = clock()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))
"""


def code_lines(path: Path) -> int:
    """Lines of code: not imports, docstrings, blank lines or comments."""
    text = path.read_text()
    skip: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.Module | ast.FunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                end = first.end_lineno or first.lineno
                skip.update(range(first.lineno, end + 1))
    return sum(
        1
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.strip().startswith("#") and number not in skip
    )


def child(python: str, script: str, env: dict[str, str]) -> list[float]:
    done = subprocess.run(
        [python, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{python} failed:\n{done.stderr[-3000:]}")
    times: list[float] = json.loads(done.stdout.strip().splitlines()[-1])
    return times


def runs(python: str, script: str, env: dict[str, str], n: int) -> list[list[float]]:
    """`n` measured runs of `script`, after one that writes the caches a first
    run writes (bytecode, gpuc's start-up code cache)."""
    child(python, script, env)
    return [child(python, script, env) for _ in range(n)]


def medians(runs: list[list[float]]) -> list[float]:
    return [statistics.median(column) for column in zip(*runs, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numba-python", default=os.environ.get("NUMBA_PYTHON"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--cpu", action="store_true", help="time CPU time, not the wall clock"
    )
    args = parser.parse_args()
    clock = "process_time" if args.cpu else "perf_counter"
    env = dict(os.environ, GPUC_CACHE="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    print("lines of kernel code (gpuc / numba-cuda):")
    for name in KERNELS:
        ours, theirs = (
            code_lines(GPUC_DIR / f"{name}.py"),
            code_lines(NUMBA_DIR / f"{name}.py"),
        )
        print(f"  {name:10} {ours:3} / {theirs:3} = {ours / theirs:.2f}x")
    print(
        f"\ncompile to PTX sm_90, {'CPU ' if args.cpu else ''}seconds, median of "
        f"{args.runs} fresh processes (import | first | warm; fresh = import + "
        "first, the time from a fresh process to the first PTX):"
    )
    for name, (kernels, sigs) in KERNELS.items():
        script = GPUC_CHILD.format(
            dir=str(GPUC_DIR), name=name, kernels=kernels, clock=clock
        )
        ours = medians(runs(sys.executable, script, env, args.runs))
        line = f"  {name:10} gpuc  {ours[0]:.3f} | {ours[1]:.3f} | {ours[2]:.3f}"
        if args.numba_python:
            script = NUMBA_CHILD.format(
                dir=str(NUMBA_DIR), name=name, kernels=kernels, sigs=sigs, clock=clock
            )
            theirs = medians(runs(args.numba_python, script, env, args.runs))
            fresh = (theirs[0] + theirs[1]) / (ours[0] + ours[1])
            line += (
                f"   numba-cuda  {theirs[0]:.3f} | {theirs[1]:.3f} | {theirs[2]:.3f}"
                f"   gpuc faster: first {theirs[1] / ours[1]:.2f}x, fresh "
                f"{fresh:.2f}x, warm {theirs[2] / ours[2]:.2f}x"
            )
        print(line)


if __name__ == "__main__":
    main()
