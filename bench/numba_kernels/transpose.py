"""Tiled transpose in numba-cuda (examples/python/transpose.py in gpuc)."""

from numba import cuda, float32

TILE = 32
PADDED = TILE + 1  # numba-cuda takes only constants, not TILE + 1, as a shape


@cuda.jit
def transpose(src, dst):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
    h, w = src.shape
    if by + ty < h and bx + tx < w:
        tile[ty, tx] = src[by + ty, bx + tx]
    cuda.syncthreads()
    if bx + ty < w and by + tx < h:
        dst[bx + ty, by + tx] = tile[tx, ty]
