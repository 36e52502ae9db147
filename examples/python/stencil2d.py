"""A 5-point stencil: out = 0.5 * in + 0.125 * (the four neighbours) inside,
the border copied (examples/stencil2d.mlir)."""

import gpuc


@gpuc.kernel
def stencil2d(
    g: gpuc.Array[gpuc.f32, 2], out: gpuc.Array[gpuc.f32, 2], nx: gpuc.i32, ny: gpuc.i32
):
    x, y = gpuc.global_id(0), gpuc.global_id(1)
    if x < nx and y < ny:
        if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
            out[y, x] = g[y, x]
        else:
            around = (g[y, x - 1] + g[y, x + 1]) + (g[y - 1, x] + g[y + 1, x])
            out[y, x] = 0.5 * g[y, x] + 0.125 * around
