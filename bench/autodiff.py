"""Reverse-mode derivatives of the examples' kernels by gpuc's `autodiff`
generator: their cost against the primal kernel on native, and their
gradients and times against NVIDIA Warp's CPU adjoints, side by side.

    python bench/autodiff.py [--rounds N] [--warp-python PY]

- saxpy (2^22 f32), stencil2d (2048 x 2048 f32) and matmul (256 x 256 x 256
  f32, 16 x 16 shared-memory tiles): the median time of the primal kernel and
  of its reverse derivative (`gpuc.autodiff.reverse`, launched with the same
  grid) on the native executor, wall-clock and the process's CPU time (all
  its threads), the launches taking turns in each round (`median_times`).
  Goal: reverse at most 3x the primal, judged on CPU time, which other
  processes on a busy machine disturb far less than wall-clock time (both
  ratios are printed).
- With `--warp-python`, the interpreter of an environment with numpy and
  warp-lang (`python -m venv W && W/bin/pip install numpy warp-lang`), the
  same functions are differentiated by Warp's CPU adjoint kernels
  (bench/autodiff_warp.py, run in that environment on the same inputs and
  output weights): gradients compared, forward and adjoint medians printed
  (wall / CPU; Warp's CPU launches run on one thread).

Compiles with GPUC_CACHE=0 (the compile cache off). Inputs are fresh random
arrays; gpuc's gradients are checked against numpy's analytic ones first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ["GPUC_CACHE"] = "0"
import gpuc  # noqa: E402
import gpuc.autodiff  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


Timed = tuple[Callable[[], None], Callable[[], None]]
"""A launch and what prepares its inputs (not timed)."""


def median_times(kernels: list[Timed], rounds: int) -> list[tuple[float, float]]:
    """For each of `kernels`, the medians of the wall-clock time of its launch
    and of the process's CPU time during it (all threads: what the launch
    cost, whatever else the machine runs meanwhile). The launches take turns
    in each round (side by side): each starts from what the others left in
    the caches, as a primal and its derivative do in a training loop, rather
    than from its own data (saxpy's primal touches 32 MB, its reverse 64 MB,
    and the L3 cache here is 32 MB)."""
    for run, prepare in kernels:
        prepare()
        run()
    wall: list[list[float]] = [[] for _ in kernels]
    cpu: list[list[float]] = [[] for _ in kernels]
    for _ in range(rounds):
        for k, (run, prepare) in enumerate(kernels):
            prepare()
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            cpu[k].append(time.process_time() - start_cpu)
            wall[k].append(time.perf_counter() - start)
    return [
        (statistics.median(w), statistics.median(c))
        for w, c in zip(wall, cpu, strict=True)
    ]


def nothing() -> None:
    pass


def stencil_grad(w: np.ndarray, nx: int, ny: int) -> np.ndarray:
    """d(sum w * out)/d(in) for stencil2d, by numpy."""
    w = w.reshape(ny, nx).astype(np.float64)
    g = np.zeros_like(w)
    border = np.zeros((ny, nx), bool)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    g[border] += w[border]
    inner = np.where(border, 0.0, w)
    g += 0.5 * inner
    g[:, :-1] += 0.125 * inner[:, 1:]
    g[:, 1:] += 0.125 * inner[:, :-1]
    g[:-1, :] += 0.125 * inner[1:, :]
    g[1:, :] += 0.125 * inner[:-1, :]
    return g.ravel()


def rev_no_scalars(path: Path) -> gpuc.Module:
    """saxpy with a kernel that calls its reverse job and drops da."""
    ptr = "!gpuc.ptr<f32, global>"
    job = '#gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}>'
    text = (
        path.read_text()
        + f"""
gpuc.func @saxpy_xy(%a: f32, %x: {ptr}, %dx: {ptr}, %y: {ptr}, %dy: {ptr},
                    %n: i32) kernel {{
  %da = gpuc.deferred_call @saxpy(%a, %x, %dx, %y, %dy, %n) {job}
      : (f32, {ptr}, {ptr}, {ptr}, {ptr}, i32) -> f32
  gpuc.return
}}
"""
    )
    return gpuc.compile(text, "native")


def close(got: np.ndarray, want: np.ndarray) -> float:
    """The largest difference relative to the largest magnitude."""
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--warp-python", help="interpreter with numpy and warp-lang")
    args = parser.parse_args()
    rng = np.random.default_rng()
    shared: dict[str, np.ndarray] = {}
    results: dict[str, dict[str, object]] = {}

    # saxpy
    n = 1 << 22
    a = np.float32(rng.standard_normal())
    x, y, w = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    src = ROOT / "examples" / "saxpy.mlir"
    primal = gpuc.compile(src, "native")
    rev = gpuc.autodiff.reverse(src, "saxpy", target="native")
    grid = ((n + 255) // 256, 256)
    dx, dy, da = (
        np.zeros(n, np.float32),
        np.zeros(n, np.float32),
        np.zeros(1, np.float32),
    )
    ys = y.copy()

    def saxpy_prepare() -> None:
        dx.fill(0)
        dy[:] = w
        da.fill(0)

    # The same job without the block sum of the scalar adjoint da (x's and
    # y's adjoints only, as Warp's CPU adjoint kernel gives them).
    arrays = rev_no_scalars(src)
    t_primal, t_rev, t_arrays = median_times(
        [
            (lambda: primal["saxpy"][grid](a, x, ys, np.int32(n)), nothing),
            (
                lambda: rev["saxpy_reverse"][grid](a, x, dx, y, dy, np.int32(n), da),
                saxpy_prepare,
            ),
            (
                lambda: arrays["saxpy_xy"][grid](a, x, dx, y, dy, np.int32(n)),
                saxpy_prepare,
            ),
        ],
        args.rounds,
    )
    saxpy_prepare()
    rev["saxpy_reverse"][grid](a, x, dx, y, dy, np.int32(n), da)
    check = max(close(dx, a * w), close(dy, w), close(da, np.dot(w, x)))
    results["saxpy"] = {
        "primal": t_primal,
        "reverse": t_rev,
        "grads": {"x": dx.copy(), "y": dy.copy()},
        "check": check,
    }
    saxpy_prepare()
    arrays["saxpy_xy"][grid](a, x, dx, y, dy, np.int32(n))
    results["saxpy (x, y)"] = {
        "primal": t_primal,
        "reverse": t_arrays,
        "grads": {},
        "check": max(close(dx, a * w), close(dy, w)),
    }
    shared.update(
        {
            "saxpy:n": np.array(n),
            "saxpy:a": np.array(a),
            "saxpy:x": x,
            "saxpy:y": y,
            "saxpy:w_out": w,
        }
    )

    # stencil2d
    nx = ny = 2048
    src = ROOT / "examples" / "stencil2d.mlir"
    field, w = (
        rng.standard_normal(nx * ny).astype(np.float32),
        rng.standard_normal(nx * ny).astype(np.float32),
    )
    out = np.zeros_like(field)
    primal = gpuc.compile(src, "native")
    rev = gpuc.autodiff.reverse(src, "stencil2d", target="native")
    grid2 = (((nx + 15) // 16, (ny + 15) // 16), (16, 16))
    dfield, dout = np.zeros_like(field), np.zeros_like(field)

    def stencil_prepare() -> None:
        dfield.fill(0)
        dout[:] = w

    t_primal, t_rev = median_times(
        [
            (
                lambda: primal["stencil2d"][grid2](
                    field, out, np.int32(nx), np.int32(ny)
                ),
                nothing,
            ),
            (
                lambda: rev["stencil2d_reverse"][grid2](
                    field, dfield, out, dout, np.int32(nx), np.int32(ny)
                ),
                stencil_prepare,
            ),
        ],
        args.rounds,
    )
    stencil_prepare()
    rev["stencil2d_reverse"][grid2](
        field, dfield, out, dout, np.int32(nx), np.int32(ny)
    )
    check = close(dfield, stencil_grad(w, nx, ny))
    results["stencil2d"] = {
        "primal": t_primal,
        "reverse": t_rev,
        "grads": {"src": dfield.copy()},
        "check": check,
    }
    shared.update(
        {
            "stencil2d:nx": np.array(nx),
            "stencil2d:ny": np.array(ny),
            "stencil2d:in": field,
            "stencil2d:w_out": w,
        }
    )

    # matmul
    m = nn = k = 256
    src = ROOT / "examples" / "matmul.mlir"
    A, B = (
        rng.standard_normal(m * k).astype(np.float32),
        rng.standard_normal(k * nn).astype(np.float32),
    )
    w = rng.standard_normal(m * nn).astype(np.float32)
    C = np.zeros(m * nn, np.float32)
    primal = gpuc.compile(src, "native")
    rev = gpuc.autodiff.reverse(src, "matmul", target="native")
    grid3 = (((nn + 15) // 16, (m + 15) // 16), (16, 16))
    dA, dB, dC = np.zeros_like(A), np.zeros_like(B), np.zeros_like(C)
    sizes = (np.int32(m), np.int32(nn), np.int32(k))

    def matmul_prepare() -> None:
        dA.fill(0)
        dB.fill(0)
        dC[:] = w

    t_primal, t_rev = median_times(
        [
            (lambda: primal["matmul"][grid3](A, B, C, *sizes), nothing),
            (
                lambda: rev["matmul_reverse"][grid3](A, dA, B, dB, C, dC, *sizes),
                matmul_prepare,
            ),
        ],
        args.rounds,
    )
    matmul_prepare()
    rev["matmul_reverse"][grid3](A, dA, B, dB, C, dC, *sizes)
    W, A2, B2 = w.reshape(m, nn).astype(np.float64), A.reshape(m, k), B.reshape(k, nn)
    check = max(close(dA, (W @ B2.T).ravel()), close(dB, (A2.T @ W).ravel()))
    results["matmul"] = {
        "primal": t_primal,
        "reverse": t_rev,
        "grads": {"a": dA.copy(), "b": dB.copy()},
        "check": check,
    }
    shared.update(
        {
            "matmul:m": np.array(m),
            "matmul:n": np.array(nn),
            "matmul:k": np.array(k),
            "matmul:a": A,
            "matmul:b": B,
            "matmul:w_c": w,
        }
    )

    print(
        "gpuc autodiff on native: median of",
        args.rounds,
        "launches (ms), wall-clock and the process's CPU time",
    )
    head = ("kernel", "primal", "reverse", "ratio", "cpu pri", "cpu rev", "ratio")
    print(
        f"  {head[0]:13} {head[1]:>9} {head[2]:>9} {head[3]:>6} "
        f"{head[4]:>9} {head[5]:>9} {head[6]:>6}  goal (cpu)  vs numpy"
    )
    for name, r in results.items():
        primal, reverse = r["primal"], r["reverse"]
        assert isinstance(primal, tuple) and isinstance(reverse, tuple)
        ratio = reverse[0] / primal[0]
        cpu_ratio = reverse[1] / primal[1]
        goal = "met    " if cpu_ratio <= 3 else "MISSED "
        print(
            f"  {name:13} {primal[0] * 1e3:9.3f} {reverse[0] * 1e3:9.3f} {ratio:6.2f} "
            f"{primal[1] * 1e3:9.3f} {reverse[1] * 1e3:9.3f} {cpu_ratio:6.2f}  "
            f"{goal}    max rel diff {r['check']:.1e}"
        )
    if not args.warp_python:
        print("Warp: not compared (pass --warp-python, an interpreter with warp-lang)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        inputs, outputs = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        np.savez(inputs, **shared)
        subprocess.run(
            [
                args.warp_python,
                str(ROOT / "bench" / "autodiff_warp.py"),
                str(inputs),
                str(outputs),
                str(args.rounds),
            ],
            check=True,
        )
        warp = dict(np.load(outputs))
    print("NVIDIA Warp's CPU adjoints, same inputs and weights (ms: wall / cpu)")
    cols = ("kernel", "warp fwd", "warp adj", "gpuc fwd", "gpuc rev")
    print(
        f"  {cols[0]:13} {cols[1]:>15} {cols[2]:>15} {cols[3]:>15} {cols[4]:>15}  "
        "gradients: max rel diff gpuc vs warp"
    )
    for name, r in results.items():
        if not r["grads"]:
            continue
        diffs = ", ".join(
            f"{g} {close(v, warp[f'{name}:{g}']):.1e}"
            for g, v in r["grads"].items()  # type: ignore[attr-defined]
        )
        times = [
            (float(warp[f"{name}:{w}_s"]), float(warp[f"{name}:{w}_cpu_s"]))
            for w in ("forward", "adjoint")
        ]
        times += [r["primal"], r["reverse"]]  # type: ignore[list-item]
        shown = " ".join(f"{w * 1e3:7.2f}/{c * 1e3:7.2f}" for w, c in times)
        print(f"  {name:13} {shown}  {diffs}")


if __name__ == "__main__":
    sys.exit(main())
