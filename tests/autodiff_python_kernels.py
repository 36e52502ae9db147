"""Python kernels and device functions differentiated by
tests/test_autodiff_python.py (a module of their own: the frontend reads
their source from this file)."""

from __future__ import annotations

import math

import gpuc


@gpuc.func
def damp(v: gpuc.f64, a: gpuc.f64) -> gpuc.f64:
    # A helper: its derivative is a job of its own.
    return v * a / (1.0 + v * v)


@gpuc.kernel
def blend(
    a: gpuc.f64,
    x: gpuc.Array[gpuc.f64, 2],
    y: gpuc.Array[gpuc.f64, 2],
    out: gpuc.Array[gpuc.f64, 2],
    steps: gpuc.i32,
):
    # out = (a loop-carried polynomial in x) * y + sin(x) * damp(y, a), with
    # the right neighbour of y where there is one.
    j, i = gpuc.global_id(0), gpuc.global_id(1)
    if i < x.shape[0] and j < x.shape[1]:
        v = x[i, j]
        s = 0.0
        for _ in range(steps):
            s = s * v + a
        n = 0.0
        if j + 1 < x.shape[1]:
            n = y[i, j + 1]
        out[i, j] = s * y[i, j] + math.sin(v) * damp(y[i, j], a) + 0.5 * n


@gpuc.func
def poly(x: gpuc.f64, y: gpuc.f64) -> gpuc.f64:
    return x * x * y + math.exp(-y) * math.cos(x)


@gpuc.kernel
def pairs(x: gpuc.Array[gpuc.f64, 1], out: gpuc.Array[gpuc.f64, 1]):
    # Shared memory and a barrier: each thread multiplies its element by its
    # neighbour's (thread t ^ 1), read from a shared tile. Blocks of 64.
    t = gpuc.thread_id(0)
    i = gpuc.global_id(0)
    tile = gpuc.shared((64,), gpuc.f64)
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    tile[t] = v
    gpuc.barrier()
    w = tile[t ^ 1]
    if i < x.shape[0]:
        out[i] = math.exp(v * w) + v
