"""Row softmax: one block of BLOCK threads per row, max and sum reduced by a
tree in shared memory."""

import math

import gpuc

BLOCK = 256


@gpuc.func
def block_reduce(buf: gpuc.Array[gpuc.f32, 1], t: gpuc.index, is_max: gpuc.bool):
    s = BLOCK // 2
    while s > 0:
        if t < s:
            buf[t] = max(buf[t], buf[t + s]) if is_max else buf[t] + buf[t + s]
        gpuc.barrier()
        s //= 2


@gpuc.kernel
def softmax(x: gpuc.Array[gpuc.f32, 2], out: gpuc.Array[gpuc.f32, 2]):
    row, t = gpuc.block_id(0), gpuc.thread_id(0)
    buf = gpuc.shared((BLOCK,), gpuc.f32)
    m = -math.inf
    for j in range(t, x.shape[1], BLOCK):
        m = max(m, x[row, j])
    buf[t] = m
    gpuc.barrier()
    block_reduce(buf, t, True)
    m = buf[0]
    gpuc.barrier()
    total = 0.0
    for j in range(t, x.shape[1], BLOCK):
        total += math.exp(x[row, j] - m)
    buf[t] = total
    gpuc.barrier()
    block_reduce(buf, t, False)
    for j in range(t, x.shape[1], BLOCK):
        out[row, j] = math.exp(x[row, j] - m) / buf[0]
