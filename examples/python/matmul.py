"""c = a @ b with 16 x 16 tiles of a and b in shared memory
(examples/matmul.mlir); blocks of 16 x 16 threads."""

import gpuc

TILE = 16


@gpuc.kernel
def matmul(
    a: gpuc.Array[gpuc.f32, 2], b: gpuc.Array[gpuc.f32, 2], c: gpuc.Array[gpuc.f32, 2],
    m: gpuc.i32, n: gpuc.i32, k: gpuc.i32,
):  # fmt: skip
    a_tile = gpuc.shared((TILE, TILE), gpuc.f32)
    b_tile = gpuc.shared((TILE, TILE), gpuc.f32)
    tx, ty = gpuc.thread_id(0), gpuc.thread_id(1)
    col, row = gpuc.global_id(0), gpuc.global_id(1)
    acc = 0.0
    for t in range(0, k, TILE):
        a_tile[ty, tx] = a[row, t + tx] if row < m and t + tx < k else 0.0
        b_tile[ty, tx] = b[t + ty, col] if t + ty < k and col < n else 0.0
        gpuc.barrier()
        for j in range(TILE):
            acc += a_tile[ty, j] * b_tile[j, tx]
        gpuc.barrier()
    if row < m and col < n:
        c[row, col] = acc
