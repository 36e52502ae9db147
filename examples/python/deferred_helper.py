"""x[i] = x[i]^2 + bias, the body a deferred job (examples/deferred_helper.mlir)."""

import gpuc


@gpuc.func
def square_plus(v: gpuc.f32, b: gpuc.f32) -> gpuc.f32:
    return v * v + b


@gpuc.kernel
def deferred_helper(x: gpuc.Array[gpuc.f32, 1], bias: gpuc.f32, n: gpuc.i32):
    i = gpuc.global_id(0)
    if i < n:
        x[i] = gpuc.deferred(square_plus, inline="never")(x[i], bias)
