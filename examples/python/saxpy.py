"""saxpy in Python: y[i] = a * x[i] + y[i] (examples/saxpy.mlir's kernel)."""

import gpuc


@gpuc.kernel
def saxpy(a: gpuc.f32, x: gpuc.Array[gpuc.f32, 1], y: gpuc.Array[gpuc.f32, 1]):
    i = gpuc.global_id(0)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
