"""Thread 0 launches a child kernel doubling x (examples/child_launch.mlir;
device-side launches exist on ptx only)."""

import gpuc


@gpuc.func
def double(x: gpuc.Array[gpuc.f32, 1], n: gpuc.i32):
    i = gpuc.global_id(0)
    if i < n:
        x[i] = x[i] + x[i]


@gpuc.kernel
def child_launch(x: gpuc.Array[gpuc.f32, 1], n: gpuc.i32):
    if gpuc.global_id(0) == 0:
        gpuc.launch(double, (n + 255) // 256, 256, x, n)
