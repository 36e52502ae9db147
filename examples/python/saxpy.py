"""saxpy: y[i] = a * x[i] + y[i] for i < n (examples/saxpy.mlir)."""

import gpuc


@gpuc.kernel
def saxpy(
    a: gpuc.f32, x: gpuc.Array[gpuc.f32, 1], y: gpuc.Array[gpuc.f32, 1], n: gpuc.i32
):
    i = gpuc.global_id(0)
    if i < n:
        y[i] = a * x[i] + y[i]
