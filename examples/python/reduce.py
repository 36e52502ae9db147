"""out[0] += sum(x[0:n]): a tree in shared memory per block, then one atomic
add per block (examples/reduce.mlir)."""

import gpuc


@gpuc.kernel
def reduce(x: gpuc.Array[gpuc.f32, 1], out: gpuc.Array[gpuc.f32, 1], n: gpuc.i32):
    partial = gpuc.shared((1024,), gpuc.f32)
    t, i = gpuc.thread_id(0), gpuc.global_id(0)
    partial[t] = x[i] if i < n else 0.0
    gpuc.barrier()
    stride = gpuc.block_dim(0) // 2
    while stride > 0:
        if t < stride:
            partial[t] += partial[t + stride]
        gpuc.barrier()
        stride //= 2
    if t == 0:
        gpuc.atomic_add(out, 0, partial[0])
