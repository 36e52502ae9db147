"""A multi-block always-inline helper (cf.cond_br and cf.br with block
arguments) called at a kernel's top level, inside scf.if and inside scf.for:
after `inline` the calls in structured regions become multi-block
`scf.execute_region`s and the top-level one joins the kernel's CFG. The kernel
runs on the native executor and is compared with numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import cf, scf

import gpuc

# pick(v, lo) = lo + v            if v < lo
#             = 10                if v > 20
#             = v * 0.5           otherwise
# (the last two reach ^done from one cf.cond_br with different arguments).
KERNEL = """
gpuc.func private @pick(%v: f32, %lo: f32) -> f32 helper always_inline {
  %small = arith.cmpf olt, %v, %lo : f32
  cf.cond_br %small, ^low(%lo, %v : f32, f32), ^high(%v : f32)
^low(%a: f32, %w: f32):
  %s = arith.addf %a, %w : f32
  cf.br ^done(%s : f32)
^high(%b: f32):
  %half = arith.constant 0.5 : f32
  %twenty = arith.constant 20.0 : f32
  %ten = arith.constant 10.0 : f32
  %h = arith.mulf %b, %half : f32
  %big = arith.cmpf ogt, %b, %twenty : f32
  cf.cond_br %big, ^done(%ten : f32), ^done(%h : f32)
^done(%r: f32):
  gpuc.return %r : f32
}

gpuc.func @k(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %n: index,
             %lo: f32) kernel {
  %lo2 = gpuc.call @pick(%lo, %lo) : (f32, f32) -> f32
  %i = gpuc.global_id x
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %v) -> (f32) {
      %r = gpuc.call @pick(%acc, %lo2) : (f32, f32) -> f32
      scf.yield %r : f32
    }
    %t = gpuc.call @pick(%s, %lo) : (f32, f32) -> f32
    gpuc.store %t, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""


def pick(v: np.ndarray, lo: np.float32) -> np.ndarray:
    return np.where(
        v < lo, lo + v, np.where(v > 20, np.float32(10), v * np.float32(0.5))
    ).astype(np.float32)


@pytest.mark.parametrize("opt_level", [0, 3])
def test_inlined_multi_block_helper_runs_like_numpy(opt_level: int) -> None:
    mod = gpuc.compile(KERNEL, target="native", opt_level=opt_level)

    ops = list(mod.result.module.walk())
    regions = [op for op in ops if isinstance(op, scf.ExecuteRegionOp)]
    assert len(regions) == 2 and all(len(r.region.blocks) == 4 for r in regions)
    assert {type(r.parent_op()) for r in regions} == {scf.IfOp, scf.ForOp}
    branches_with_args = [
        op
        for op in ops
        if isinstance(op, cf.BranchOp | cf.ConditionalBranchOp)
        and any(block.args for block in op.successors)
    ]
    # Three per copy of pick, and at the top level the split's two: into the
    # callee's entry block with the call's operands, and its return.
    assert len(branches_with_args) == 3 * 3 + 2

    n, block, lo = 1000, 128, np.float32(1.5)
    grid = -(-n // block)
    x = np.linspace(-30, 60, n, dtype=np.float32)
    y = np.full(grid * block, -7.0, dtype=np.float32)
    mod.launch("k", grid=(grid,), block=(block,), args=(x, y, n, lo))

    expected = x
    lo2 = pick(np.array([lo], np.float32), lo)[0]
    for _ in range(3):
        expected = pick(expected, lo2)
    expected = pick(expected, lo)
    np.testing.assert_array_equal(y[:n], expected)
    assert (y[n:] == -7.0).all(), "threads past n must not store"
