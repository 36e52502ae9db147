"""saxpy in numba-cuda (bench/python_frontend.py compares it with
examples/python/saxpy.py)."""

from numba import cuda


@cuda.jit
def saxpy(a, x, y, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = a * x[i] + y[i]
