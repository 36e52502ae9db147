"""Tiled transpose through a TILE x (TILE + 1) shared tile (the padding
column keeps the column reads free of bank conflicts); blocks of TILE x TILE."""

import gpuc

TILE = 32


@gpuc.kernel
def transpose(src: gpuc.Array[gpuc.f32, 2], dst: gpuc.Array[gpuc.f32, 2]):
    tile = gpuc.shared((TILE, TILE + 1), gpuc.f32)
    tx, ty = gpuc.thread_id(0), gpuc.thread_id(1)
    bx, by = gpuc.block_id(0) * TILE, gpuc.block_id(1) * TILE
    h, w = src.shape
    if by + ty < h and bx + tx < w:
        tile[ty, tx] = src[by + ty, bx + tx]
    gpuc.barrier()
    if bx + ty < w and by + tx < h:
        dst[bx + ty, by + tx] = tile[tx, ty]
