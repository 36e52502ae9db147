"""256-bin histogram of data & 255: per-block bins in shared memory, merged
into bins atomically (examples/histogram.mlir)."""

import gpuc


@gpuc.kernel
def histogram(
    data: gpuc.Array[gpuc.i32, 1], bins: gpuc.Array[gpuc.i32, 1], n: gpuc.i32
):
    local = gpuc.shared((256,), gpuc.i32)
    t, threads = gpuc.thread_id(0), gpuc.block_dim(0)
    for i in range(t, 256, threads):
        local[i] = 0
    gpuc.barrier()
    for i in range(gpuc.global_id(0), n, threads * gpuc.grid_dim(0)):
        gpuc.atomic_add(local, data[i] & 255, 1)
    gpuc.barrier()
    for i in range(t, 256, threads):
        if local[i] != 0:
            gpuc.atomic_add(bins, i, local[i])
