"""Row softmax in numba-cuda (examples/python/softmax.py in gpuc)."""

import math

from numba import cuda, float32

BLOCK = 256


@cuda.jit(device=True)
def block_reduce(buf, t, is_max):
    s = BLOCK // 2
    while s > 0:
        if t < s:
            buf[t] = max(buf[t], buf[t + s]) if is_max else buf[t] + buf[t + s]
        cuda.syncthreads()
        s //= 2


@cuda.jit
def softmax(x, out):
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    buf = cuda.shared.array(BLOCK, float32)
    m = -math.inf
    for j in range(t, x.shape[1], BLOCK):
        m = max(m, x[row, j])
    buf[t] = m
    cuda.syncthreads()
    block_reduce(buf, t, True)
    m = buf[0]
    cuda.syncthreads()
    total = 0.0
    for j in range(t, x.shape[1], BLOCK):
        total += math.exp(x[row, j] - m)
    buf[t] = total
    cuda.syncthreads()
    block_reduce(buf, t, False)
    for j in range(t, x.shape[1], BLOCK):
        out[row, j] = math.exp(x[row, j] - m) / buf[0]
