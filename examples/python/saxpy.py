"""saxpy: y[i] = a * x[i] + y[i] for i < n (examples/saxpy.mlir)."""

import gpuc
from gpuc import Array, f32, i32


@gpuc.kernel
def saxpy(a: f32, x: Array[f32, 1], y: Array[f32, 1], n: i32):
    i = gpuc.global_id(0)
    if i < n:
        y[i] = a * x[i] + y[i]
