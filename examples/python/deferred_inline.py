"""y[i] = poly(x[i]) through a job of the mock_autodiff generator, marked
always-inline (examples/deferred_inline.mlir)."""

import gpuc


@gpuc.func
def poly(v: gpuc.f32) -> gpuc.f32:
    return (3.0 * v + 2.0) * v + 1.0


@gpuc.kernel
def deferred_inline(
    x: gpuc.Array[gpuc.f32, 1], y: gpuc.Array[gpuc.f32, 1], n: gpuc.i32
):
    i = gpuc.global_id(0)
    if i < n:
        y[i] = gpuc.deferred(poly, generator="mock_autodiff", always_inline=True)(x[i])
