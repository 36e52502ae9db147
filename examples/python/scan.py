"""Inclusive prefix sum in two kernels: scan_block scans each block's BLOCK
elements in shared memory and writes the block's total to sums; once sums
is scanned (by scan_block on one block), add_sums adds each block's
preceding total."""

import gpuc

BLOCK = 256


@gpuc.kernel
def scan_block(x: gpuc.Array[gpuc.f32, 1], sums: gpuc.Array[gpuc.f32, 1]):
    buf = gpuc.shared((BLOCK,), gpuc.f32)
    t, i = gpuc.thread_id(0), gpuc.global_id(0)
    buf[t] = x[i] if i < x.shape[0] else 0.0
    gpuc.barrier()
    off = 1
    while off < BLOCK:
        v = buf[t - off] if t >= off else 0.0
        gpuc.barrier()
        buf[t] += v
        gpuc.barrier()
        off *= 2
    if i < x.shape[0]:
        x[i] = buf[t]
    if t == BLOCK - 1:
        sums[gpuc.block_id(0)] = buf[t]


@gpuc.kernel
def add_sums(x: gpuc.Array[gpuc.f32, 1], sums: gpuc.Array[gpuc.f32, 1]):
    b, i = gpuc.block_id(0), gpuc.global_id(0)
    if b > 0 and i < x.shape[0]:
        x[i] += sums[b - 1]
