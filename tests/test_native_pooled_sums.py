"""Pooled sums in the native target's lane loops (gpuc/targets/native/
work_groups.py, `_poolable`; gpuc/targets/native/pools.py): a regrouped add
into shared memory at an address every lane of a group shares (a reversed
tile loop's `da_tile[ty * 16 + j]`) is summed across the lanes, 16
iterations' sums at a time, and made once per group and iteration; an add
whose allocation the loop also reads is left alone. Run on native against
numpy, outputs poisoned."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest
from llvmlite import ir
from xdsl.dialects import scf

import gpuc
import gpuc.autodiff
from gpuc.dialects.memory import AtomicRMWOp
from gpuc.driver import load_module
from gpuc.lowering.llvm import initialize
from gpuc.targets.native import pools as native_pools
from gpuc.targets.native.work_groups import _poolable

# Block (32, 2): for j < 8, every thread of row ty adds in[its element] * j
# into acc[ty * 8 + j] (the same address for the 32 lanes of the row); the
# row's first thread writes its 8 sums out.
ROWS = """
gpuc.func @rows(%in: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %tile = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %acc = gpuc.shared_alloc 32 : !gpuc.ptr<f32, shared>
  %spare = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_id x
  %row = arith.muli %ty, %c32 : index
  %slot = arith.addi %row, %tx : index
  %base = arith.muli %bx, %c64 : index
  %g = arith.addi %base, %slot : index
  %v = gpuc.load %in[%g] : !gpuc.ptr<f32, global>
  %first = arith.cmpi eq, %tx, %c0 : index
  %ty8 = arith.muli %ty, %c8 : index
  scf.if %first {
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.addi %ty8, %j : index
      gpuc.store %zero, %acc[%k] : !gpuc.ptr<f32, shared>
    }
  }
  gpuc.store %v, %tile[%slot] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  scf.for %j = %c0 to %c8 step %c1 {
    %t = gpuc.load %tile[%slot] : !gpuc.ptr<f32, shared>
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %p = arith.mulf %t, %jf : f32
    %k = arith.addi %ty8, %j : index
    %old = gpuc.atomic_rmw add %acc[%k], %p {gpuc.regrouped} : !gpuc.ptr<f32, shared>
    READ
  }
  gpuc.barrier
  scf.if %first {
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.addi %ty8, %j : index
      %s = gpuc.load %acc[%k] : !gpuc.ptr<f32, shared>
      %ob = arith.muli %bx, %c16 : index
      %o = arith.addi %ob, %k : index
      gpuc.store %s, %out[%o] : !gpuc.ptr<f32, global>
    }
  }
  gpuc.return
}
"""
READ_ACC = "%r = gpuc.load %acc[%k] : !gpuc.ptr<f32, shared>"
# acc[16 + k]: the same allocation (nothing reads it), so no pooling.
WRITE_ACC = """%k16 = arith.addi %k, %c16 : index
    gpuc.store %p, %acc[%k16] : !gpuc.ptr<f32, shared>"""
WRITE_SPARE = "gpuc.store %p, %spare[%slot] : !gpuc.ptr<f32, shared>"


def _pooled(source: str) -> bool:
    """Whether the lane loops would pool the kernel's regrouped add."""
    (add,) = [op for op in load_module(source).walk() if isinstance(op, AtomicRMWOp)]
    loop = add.parent_op()
    assert isinstance(loop, scf.ForOp)
    body = list(loop.body.block.ops)[:-1]
    return _poolable(add, body, loop.body.block.args[0])


@pytest.mark.parametrize(
    ("extra", "pooled"),
    [("", True), (WRITE_SPARE, True), (READ_ACC, False), (WRITE_ACC, False)],
    ids=["pooled", "other-tile-written", "also-read", "also-written"],
)
def test_a_shared_sum_at_one_address_per_row(extra: str, pooled: bool) -> None:
    source = ROWS.replace("READ", extra)
    assert _pooled(source) == pooled
    _check_rows(source, 8)


@pytest.mark.parametrize("trips", [1, 8, 16, 21, 40])
def test_pools_summed_when_full_and_at_the_loop_end(trips: int) -> None:
    """A pool holds ROWS (8) iterations' rows: summed when full, and at the loop's
    end with the rows it holds (rows left from the former batch count as
    zeros)."""
    source = (
        ROWS.replace("READ", "")
        .replace("arith.constant 16 : index", f"arith.constant {2 * trips} : index")
        .replace("arith.constant 8 : index", f"arith.constant {trips} : index")
        .replace("gpuc.shared_alloc 32 :", f"gpuc.shared_alloc {2 * trips} :")
    )
    assert _pooled(source)
    _check_rows(source, trips)


def _check_rows(source: str, trips: int) -> None:
    blocks = 3
    rng = np.random.default_rng()
    x = rng.standard_normal(blocks * 64).astype(np.float32)
    out = np.full(blocks * 2 * trips, np.nan, np.float32)
    gpuc.compile(source, "native")["rows"][blocks, (32, 2)](x, out)
    rows = x.reshape(blocks, 2, 32).astype(np.float64).sum(axis=2)
    want = rows[:, :, None] * np.arange(trips)[None, None, :]
    np.testing.assert_allclose(out, want.ravel(), rtol=1e-5, atol=1e-4)


POOL_TYPE = f"[{native_pools.ROWS} x [{native_pools.LANES} x float]]"
POOL = re.compile(rf"(%[\w.\"]+) = alloca {re.escape(POOL_TYPE)}, align (\d+)")
VECTOR_LOAD = re.compile(r"load <16 x float>, ptr %[\w.\"]+, align (\d+)")


def test_a_pool_is_aligned_as_its_vector_loads(tmp_path: Path) -> None:
    """A pool's rows (64 bytes of f32 each) are loaded whole as vectors
    (pools.py): the slot is aligned at least as the loads say, and so is each
    row (x86 faults on `vmovaps` from a slot placed off the vector's
    alignment: the matmul reverse crashed on an AVX-512 machine when its pool
    had its element's alignment, 4)."""
    gpuc.compile(ROWS.replace("READ", ""), "native", dump_dir=tmp_path)
    (linked,) = tmp_path.glob("*/*-link.ll")
    text = linked.read_text()
    pools = POOL.findall(text)
    assert pools, "no pool was made"
    loads = [int(a) for a in VECTOR_LOAD.findall(text)]
    assert len(loads) >= native_pools.ROWS, "the pool's rows are not loaded as vectors"
    for _name, slot_align in pools:
        for align in loads:
            assert align <= int(slot_align), f"load align {align} > the pool's"
            assert 64 % align == 0, f"a row of 64 bytes is not {align}-aligned"


def test_matmul_reverse_keeps_its_pools_in_registers(tmp_path: Path) -> None:
    """matmul's reversed tile loop pools `da_tile[ty * 16 + j]`: its 16 steps
    of j are unrolled (the pool's rows then have constant places) and its
    lanes run as one vector of 16, so LLVM keeps the pool in registers: no
    stack slot is left of it. Its gradients match numpy's."""
    root = Path(__file__).resolve().parent.parent
    source = root / "examples" / "matmul.mlir"
    module = gpuc.autodiff.reverse(source, "matmul", target="native", dump_dir=tmp_path)
    (optimized,) = tmp_path.glob("*/*-optimize.ll")
    (linked,) = tmp_path.glob("*/*-link.ll")
    assert POOL.search(linked.read_text()), "the reversed tile loop pools no add"
    assert not POOL.search(optimized.read_text()), "a pool is left on the stack"
    m, n, k = 40, 24, 35
    rng = np.random.default_rng()
    a = rng.standard_normal(m * k).astype(np.float32)
    b = rng.standard_normal(k * n).astype(np.float32)
    w = rng.standard_normal(m * n).astype(np.float32)
    c = np.full(m * n, np.nan, np.float32)
    da, db, dc = np.zeros_like(a), np.zeros_like(b), w.copy()
    grid = ((n + 15) // 16, (m + 15) // 16)
    module["matmul_reverse"][grid, (16, 16)](
        a, da, b, db, c, dc, np.int32(m), np.int32(n), np.int32(k)
    )
    a2, b2 = a.reshape(m, k).astype(np.float64), b.reshape(k, n).astype(np.float64)
    w2 = w.reshape(m, n).astype(np.float64)
    np.testing.assert_allclose(c, (a2 @ b2).ravel(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(da, (w2 @ b2.T).ravel(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, (a2.T @ w2).ravel(), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(dc, 0)


@pytest.mark.parametrize("count", [1, 2, 4, 8, 16])
def test_row_sums_gives_each_rows_sum_in_order(count: int) -> None:
    """`row_sums` of `count` vectors of 16 lanes (a pool's rows) is the
    vector of their sums, row r in lane r, whatever the count up to the
    width (pools of ROWS rows, fewer than the lanes)."""
    initialize()
    f32, lanes = ir.FloatType(), native_pools.LANES
    vector = ir.VectorType(f32, lanes)
    module = ir.Module("row_sums")
    ptr = ir.PointerType()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr]), "sums")
    b = ir.IRBuilder(fn.append_basic_block())
    i64 = ir.IntType(64)
    rows = [
        b.load(
            b.gep(fn.args[0], [ir.Constant(i64, r * lanes)], source_etype=f32),
            typ=vector,
        )
        for r in range(count)
    ]
    total = native_pools.row_sums(b, rows)
    assert total.type.count == count
    b.store(total, fn.args[1])
    b.ret_void()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(module)), machine)
    engine.finalize_object()
    rng = np.random.default_rng()
    values = rng.standard_normal((count, lanes)).astype(np.float32)
    out = np.full(count, np.nan, np.float32)
    ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(
        engine.get_function_address("sums")
    )(values.ctypes.data, out.ctypes.data)
    want = values.astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
