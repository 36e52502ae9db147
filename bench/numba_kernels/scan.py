"""Two-kernel block scan in numba-cuda (examples/python/scan.py in gpuc)."""

from numba import cuda, float32

BLOCK = 256


@cuda.jit
def scan_block(x, sums):
    buf = cuda.shared.array(BLOCK, float32)
    t, i = cuda.threadIdx.x, cuda.grid(1)
    buf[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    off = 1
    while off < BLOCK:
        v = buf[t - off] if t >= off else 0.0
        cuda.syncthreads()
        buf[t] += v
        cuda.syncthreads()
        off *= 2
    if i < x.shape[0]:
        x[i] = buf[t]
    if t == BLOCK - 1:
        sums[cuda.blockIdx.x] = buf[t]


@cuda.jit
def add_sums(x, sums):
    b, i = cuda.blockIdx.x, cuda.grid(1)
    if b > 0 and i < x.shape[0]:
        x[i] += sums[b - 1]
