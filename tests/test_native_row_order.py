"""The native launch entry runs a barrier-free kernel a row of the grid at a
time (gpuc/targets/native/target.py, `row_segments`): for each row of blocks,
for z and y in the block, for each block of the row, for x in the block.
Kernels run on the native executor against numpy, outputs poisoned; the
order itself is read back from an atomic counter."""

from __future__ import annotations

import numpy as np
import pytest

import gpuc
from gpuc.dialects.functions import FuncOp
from gpuc.driver import load_module
from gpuc.targets.native.thread_loops import walks_rows

F32 = "!gpuc.ptr<f32, global>"
I32 = "!gpuc.ptr<i32, global>"

ORDER = f"""
gpuc.func @order(%seen: {I32}, %count: {I32}, %nx: i32) kernel {{
  %x = gpuc.global_id x
  %y = gpuc.global_id y
  %w = arith.index_cast %nx : i32 to index
  %row = arith.muli %y, %w : index
  %i = arith.addi %row, %x : index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %old = gpuc.atomic_rmw add %count[%c0], %one : {I32}
  gpuc.store %old, %seen[%i] : {I32}
  gpuc.return
}}
"""


def test_threads_of_a_grid_row_run_row_by_row() -> None:
    """One OS thread (a launch this small is not split): for each row of
    threads, every block of the grid row in turn, x innermost."""
    grid, block = (3, 2), (4, 2)
    nx, ny = grid[0] * block[0], grid[1] * block[1]
    seen, count = np.full(nx * ny, -1, np.int32), np.zeros(1, np.int32)
    gpuc.compile(ORDER, target="native")["order"][grid, block](
        seen, count, np.int32(nx)
    )
    np.testing.assert_array_equal(seen, np.arange(nx * ny, dtype=np.int32))


def test_a_kernel_with_shared_memory_runs_block_by_block() -> None:
    """Each block has its own shared memory, so a block's threads run
    together."""
    source = ORDER.replace(
        "%c0 = arith.constant 0 : index",
        "%c0 = arith.constant 0 : index\n"
        "  %tile = gpuc.shared_alloc 4 : !gpuc.ptr<i32, shared>\n"
        "  %tid = gpuc.thread_id x\n"
        "  %c1 = arith.constant 1 : i32\n"
        "  gpuc.store %c1, %tile[%tid] : !gpuc.ptr<i32, shared>",
    )
    grid, block = (3, 2), (4, 2)
    nx, ny = grid[0] * block[0], grid[1] * block[1]
    seen, count = np.full(nx * ny, -1, np.int32), np.zeros(1, np.int32)
    gpuc.compile(source, target="native")["order"][grid, block](
        seen, count, np.int32(nx)
    )
    by_block = (
        seen.reshape(grid[1], block[1], grid[0], block[0])
        .transpose(0, 2, 1, 3)
        .reshape(-1)
    )
    np.testing.assert_array_equal(by_block, np.arange(nx * ny, dtype=np.int32))


def test_a_kernel_that_walks_columns_runs_block_by_block() -> None:
    """An access whose address moves by a row from one thread x to the next
    (a transpose's): a row of threads touches a line each, which the
    block's next rows reuse, so the block's threads stay together."""
    source = ORDER.replace(
        "%row = arith.muli %y, %w : index\n  %i = arith.addi %row, %x : index",
        "%col = arith.muli %x, %w : index\n  %i = arith.addi %col, %y : index",
    )
    assert source != ORDER
    grid, block = (3, 2), (4, 2)
    nx, ny = grid[0] * block[0], grid[1] * block[1]
    assert nx != ny
    seen, count = np.full(nx * ny, -1, np.int32), np.zeros(1, np.int32)
    # %w is the column's height here: ny.
    gpuc.compile(source, target="native")["order"][grid, block](
        seen, count, np.int32(ny)
    )
    order = seen.reshape(nx, ny).T  # [y][x]
    by_block = (
        order.reshape(grid[1], block[1], grid[0], block[0])
        .transpose(0, 2, 1, 3)
        .reshape(-1)
    )
    np.testing.assert_array_equal(by_block, np.arange(nx * ny, dtype=np.int32))


@pytest.mark.parametrize(
    ("index", "rows"),
    [
        ("%x", True),
        ("%xy", True),  # y * w + x
        ("%xy_less", True),  # y * w + x - 1
        ("%two_x", False),  # x * 2
        ("%x_times_w", False),  # x * w
        ("%bx", False),  # the block index x: a step of 0 or a block's width
        ("%c0", True),
    ],
)
def test_which_accesses_walk_rows(index: str, rows: bool) -> None:
    source = f"""
gpuc.func @k(%p: {F32}, %nx: i32) kernel {{
  %x = gpuc.global_id x
  %y = gpuc.global_id y
  %bx = gpuc.block_id x
  %w = arith.index_cast %nx : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %row = arith.muli %y, %w : index
  %xy = arith.addi %row, %x : index
  %xy_less = arith.subi %xy, %c1 : index
  %two_x = arith.muli %x, %c2 : index
  %x_times_w = arith.muli %x, %w : index
  %base = gpuc.offset %p[%row] : {F32}
  %v = gpuc.load %base[%c0] : {F32}
  gpuc.store %v, %p[{index}] : {F32}
  gpuc.return
}}
"""
    func = next(op for op in load_module(source).ops if isinstance(op, FuncOp))
    assert walks_rows(func) is rows


@pytest.mark.parametrize(
    ("grid", "block", "sizes"),
    [
        ((13, 9, 4), (16, 8, 2), (200, 70, 7)),  # split across OS threads
        ((5, 3, 2), (8, 4, 2), (37, 11, 4)),
        ((1, 40, 1), (64, 1, 1), (64, 40, 1)),
    ],
)
def test_guarded_3d_kernel_runs_every_thread_once(
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    sizes: tuple[int, int, int],
) -> None:
    """Guards in x, y and z; a launch large enough that the executor hands
    its OS threads block ranges that start and end inside rows of the grid."""
    source = f"""
gpuc.func @k(%out: {F32}, %nx: i32, %ny: i32, %nz: i32) kernel {{
  %gx = gpuc.global_id x
  %gy = gpuc.global_id y
  %gz = gpuc.global_id z
  %w = arith.index_cast %nx : i32 to index
  %h = arith.index_cast %ny : i32 to index
  %d = arith.index_cast %nz : i32 to index
  %in_x = arith.cmpi ult, %gx, %w : index
  %in_y = arith.cmpi ult, %gy, %h : index
  %in_z = arith.cmpi slt, %gz, %d : index
  %a = arith.andi %in_x, %in_y : i1
  %in = arith.andi %a, %in_z : i1
  scf.if %in {{
    %plane = arith.muli %gz, %h : index
    %rows = arith.addi %plane, %gy : index
    %row = arith.muli %rows, %w : index
    %at = arith.addi %row, %gx : index
    %bx = gpuc.block_id x
    %tx = gpuc.thread_id x
    %by = gpuc.block_id y
    %v = arith.muli %bx, %tx : index
    %u = arith.addi %v, %by : index
    %old = gpuc.load %out[%at] : {F32}
    %i = arith.index_cast %u : index to i32
    %f = arith.sitofp %i : i32 to f32
    %r = arith.addf %old, %f : f32
    gpuc.store %r, %out[%at] : {F32}
  }}
  gpuc.return
}}
"""
    nx, ny, nz = sizes
    out = np.zeros(nx * ny * nz, np.float32)
    out[:] = np.random.default_rng(2).standard_normal(out.size).astype(np.float32)
    before = out.copy()
    padded = np.full(out.size + 64, np.nan, np.float32)
    padded[: out.size] = out
    gpuc.compile(source, target="native")["k"][grid, block](
        padded, np.int32(nx), np.int32(ny), np.int32(nz)
    )
    gx = np.arange(nx)
    gy = np.arange(ny)
    value = (gx // block[0] * (gx % block[0]))[None, None, :] + (gy // block[1])[
        None, :, None
    ]
    want = before.reshape(nz, ny, nx) + value.astype(np.float32)
    np.testing.assert_array_equal(padded[: out.size].reshape(nz, ny, nx), want)
    assert np.isnan(padded[out.size :]).all()
