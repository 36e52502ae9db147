"""NVIDIA Warp's CPU adjoints of the kernels bench/autodiff.py differentiates,
run by that bench in an environment of its own (numpy and warp-lang only):

    python bench/autodiff_warp.py IN.npz OUT.npz ROUNDS

IN holds each case's inputs and output weights; OUT gets, per case, the
gradients Warp computes (`<case>:<array>`) and the medians of its forward and
adjoint launches in seconds, wall-clock (`<case>:forward_s`,
`<case>:adjoint_s`) and the process's CPU time (`<case>:forward_cpu_s`,
`<case>:adjoint_cpu_s`). Seeding the adjoints (zeroing the gradients, filling
the outputs' with the weights) is not timed, as in bench/autodiff.py.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import warp as wp

wp.config.quiet = True


@wp.kernel
def saxpy(
    a: float,
    x: wp.array(dtype=float),
    y: wp.array(dtype=float),
    out: wp.array(dtype=float),
):  # type: ignore[valid-type]
    i = wp.tid()
    out[i] = a * x[i] + y[i]


@wp.kernel
def stencil2d(src: wp.array(dtype=float), out: wp.array(dtype=float), nx: int, ny: int):  # type: ignore[valid-type]
    y, x = wp.tid()
    c = y * nx + x
    if x == 0 or x == nx - 1 or y == 0 or y == ny - 1:
        out[c] = src[c]
    else:
        s = (src[c - 1] + src[c + 1]) + (src[c - nx] + src[c + nx])
        out[c] = 0.5 * src[c] + 0.125 * s


@wp.kernel
def matmul(
    a: wp.array(dtype=float),
    b: wp.array(dtype=float),
    c: wp.array(dtype=float),
    n: int,
    k: int,
):  # type: ignore[valid-type]
    i, j = wp.tid()
    s = float(0.0)  # noqa: UP018  (Warp: a variable the loop may change)
    for t in range(k):
        s += a[i * k + t] * b[t * n + j]
    c[i * n + j] = s


def timed(run, rounds: int, prepare=lambda: None) -> tuple[float, float]:
    """Medians of the wall-clock and CPU time of `run` (after `prepare`)."""
    prepare()
    run()
    wall, cpu = [], []
    for _ in range(rounds):
        prepare()
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    data = np.load(sys.argv[1])
    rounds = int(sys.argv[3])
    wp.init()
    out: dict[str, np.ndarray] = {}

    def arr(name: str, grad: bool = True) -> wp.array:
        return wp.array(data[name], dtype=float, device="cpu", requires_grad=grad)

    def case(
        name: str,
        keys: list[str],
        kernel,
        dim,
        make_inputs,
        outputs: list[str],
        grads: list[str],
    ) -> None:
        inputs = make_inputs()
        arrays = [v for v in inputs if isinstance(v, wp.array)]

        def forward() -> None:
            wp.launch(kernel, dim=dim, inputs=inputs, device="cpu")
            wp.synchronize_device("cpu")

        def seed() -> None:
            for v in arrays:
                v.grad.zero_()
            for o in outputs:
                named[o].grad.assign(data[f"{name}:w_{o}"])

        def adjoint() -> None:
            adj = [v.grad if isinstance(v, wp.array) else type(v)(0) for v in inputs]
            wp.launch(
                kernel,
                dim=dim,
                inputs=inputs,
                adj_inputs=adj,
                adjoint=True,
                device="cpu",
            )
            wp.synchronize_device("cpu")

        named = {
            k: v for k, v in zip(keys, inputs, strict=False) if isinstance(v, wp.array)
        }
        for what, run, prepare in (
            ("forward", forward, lambda: None),
            ("adjoint", adjoint, seed),
        ):
            wall, cpu = timed(run, rounds, prepare)
            out[f"{name}:{what}_s"] = np.array(wall)
            out[f"{name}:{what}_cpu_s"] = np.array(cpu)
        seed()
        adjoint()
        for g in grads:
            out[f"{name}:{g}"] = named[g].grad.numpy()

    n = int(data["saxpy:n"])
    case(
        "saxpy",
        ["a", "x", "y", "out"],
        saxpy,
        n,
        lambda: [
            float(data["saxpy:a"]),
            arr("saxpy:x"),
            arr("saxpy:y"),
            wp.zeros(n, dtype=float, device="cpu", requires_grad=True),
        ],
        ["out"],
        ["x", "y"],
    )
    nx, ny = int(data["stencil2d:nx"]), int(data["stencil2d:ny"])
    case(
        "stencil2d",
        ["src", "out"],
        stencil2d,
        (ny, nx),
        lambda: [
            arr("stencil2d:in"),
            wp.zeros(nx * ny, dtype=float, device="cpu", requires_grad=True),
            nx,
            ny,
        ],
        ["out"],
        ["src"],
    )
    m, nn, k = (int(data[f"matmul:{d}"]) for d in ("m", "n", "k"))
    case(
        "matmul",
        ["a", "b", "c"],
        matmul,
        (m, nn),
        lambda: [
            arr("matmul:a"),
            arr("matmul:b"),
            wp.zeros(m * nn, dtype=float, device="cpu", requires_grad=True),
            nn,
            k,
        ],
        ["c"],
        ["a", "b"],
    )
    np.savez(sys.argv[2], **out)


if __name__ == "__main__":
    main()
