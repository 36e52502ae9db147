"""The parallel loop over x of a derivative's private sums runs two vectors of
threads a step (gpuc/targets/native/thread_loops.py `SUMS_INTERLEAVED`):
stencil2d's reverse keeps its overlapping read-add-writes into din whole, and
its gradient (and out, which it redoes) right, for blocks wider than a step,
narrower (the rest's loop alone) and of widths no multiple of it, din holding
values first (the adds add to them). The IR is read for the two parts."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import gpuc
import gpuc.autodiff

ROOT = Path(__file__).resolve().parent.parent


def stencil(field: np.ndarray) -> np.ndarray:
    """stencil2d's out for `field` (a 2-D grid)."""
    out = field.copy()
    out[1:-1, 1:-1] = 0.5 * field[1:-1, 1:-1] + 0.125 * (
        field[1:-1, :-2] + field[1:-1, 2:] + field[:-2, 1:-1] + field[2:, 1:-1]
    )
    return out


def stencil_adjoint(w: np.ndarray) -> np.ndarray:
    """d(sum w * out)/d(in) for stencil2d on the grid of `w`'s shape."""
    g = w.astype(np.float64)
    inner = w[1:-1, 1:-1].astype(np.float64)
    g[1:-1, 1:-1] = 0.5 * inner
    for dy, dx in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        g[1 + dy : g.shape[0] - 1 + dy, 1 + dx : g.shape[1] - 1 + dx] += 0.125 * inner
    return g


@pytest.fixture(scope="module")
def reverse() -> gpuc.Module:
    return gpuc.autodiff.reverse(
        ROOT / "examples" / "stencil2d.mlir", "stencil2d", target="native"
    )


@pytest.mark.parametrize(
    ("nx", "ny", "block"),
    [
        (67, 19, (16, 4)),  # one step a block, a partial last block
        (130, 9, (32, 2)),  # two steps a block
        (45, 13, (8, 8)),  # narrower than a step: the rest's loop alone
        (101, 7, (24, 3)),  # a step and a rest of 8 per block
        (16, 5, (16, 1)),  # one block a row, both edges in it
    ],
)
def test_stencil2d_reverse_gradient_for_each_block_width(
    reverse: gpuc.Module, nx: int, ny: int, block: tuple[int, int]
) -> None:
    rng = np.random.default_rng(nx * ny)
    field = rng.standard_normal(nx * ny).astype(np.float32)
    w = rng.standard_normal(nx * ny).astype(np.float32)
    before = rng.standard_normal(nx * ny).astype(np.float32)
    din, dout = before.copy(), w.copy()
    out = np.full(nx * ny, np.nan, np.float32)
    grid = ((nx + block[0] - 1) // block[0], (ny + block[1] - 1) // block[1])
    reverse["stencil2d_reverse"][grid, block](
        field, din, out, dout, np.int32(nx), np.int32(ny)
    )
    want = before + stencil_adjoint(w.reshape(ny, nx)).ravel()
    np.testing.assert_allclose(din, want, rtol=1e-5, atol=1e-5)
    assert not dout.any()  # the adjoint of out read and zeroed
    np.testing.assert_allclose(out, stencil(field.reshape(ny, nx)).ravel(), atol=1e-6)


def test_stencil2d_reverse_steps_two_vectors(reverse: gpuc.Module) -> None:
    """The inner rows' vector loop adds into din at c, c +- 1 and c +- nx
    twice a step: ten adds of the widest vectors."""
    ir_text = reverse.llvm_ir
    start = ir_text.index("define void @__gpuc_launch_stencil2d_reverse(")
    linked = ir_text[start : ir_text.index("\n}\n", start)]
    widths = [int(n) for n in re.findall(r"fadd reassoc nsz <(\d+) x float>", linked)]
    assert widths.count(max(widths)) >= 10, widths
