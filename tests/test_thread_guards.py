"""Thread guards (gpuc/targets/native/thread_guards.py): which kernel conditions the
native target may turn into the bound of its thread loop, and kernels run on
the native executor, each at a size that leaves threads past the bound, with
their outputs poisoned, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import gpuc
from gpuc.dialects.functions import FuncOp
from gpuc.driver import load_module
from gpuc.targets.native.thread_guards import thread_guards

F32 = "!gpuc.ptr<f32, global>"


def kernel(body: str, params: str = f"%x: {F32}, %y: {F32}, %n: i32") -> str:
    return f"gpuc.func @k({params}) kernel {{\n{body}\n  gpuc.return\n}}\n"


def guards_of(source: str) -> list[tuple[int, bool, tuple[str, ...]]]:
    func = next(op for op in load_module(source).ops if isinstance(op, FuncOp))
    return [
        (g.dim, g.signed, tuple(op.name for op in g.ops)) for g in thread_guards(func)
    ]


GUARDED = """
  %i = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %in = arith.cmpi {predicate}, {lhs}, {rhs} : index
  scf.if %in {{
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    gpuc.store %v, %y[%i] : !gpuc.ptr<f32, global>
  }}"""


@pytest.mark.parametrize(
    ("predicate", "lhs", "rhs", "signed"),
    [
        ("ult", "%i", "%nn", False),
        ("ugt", "%nn", "%i", False),
        ("slt", "%i", "%nn", True),
        ("sgt", "%nn", "%i", True),
    ],
)
def test_a_global_id_below_a_bound_is_a_thread_guard(
    predicate: str, lhs: str, rhs: str, signed: bool
) -> None:
    body = GUARDED.format(predicate=predicate, lhs=lhs, rhs=rhs)
    assert guards_of(kernel(body)) == [(0, signed, ("arith.index_cast",))]


@pytest.mark.parametrize(
    ("predicate", "lhs", "rhs"),
    [("ule", "%i", "%nn"), ("ult", "%nn", "%i"), ("ne", "%i", "%nn")],
)
def test_other_comparisons_are_not(predicate: str, lhs: str, rhs: str) -> None:
    body = GUARDED.format(predicate=predicate, lhs=lhs, rhs=rhs)
    assert guards_of(kernel(body)) == []


def test_each_conjunct_with_a_block_wide_bound_is_one() -> None:
    body = """
  %c3 = arith.constant 3 : index
  %gx = gpuc.global_id x
  %gy = gpuc.global_id y
  %t = gpuc.thread_id x
  %bd = gpuc.block_dim x
  %w = arith.index_cast %n : i32 to index
  %h = arith.muli %bd, %c3 : index
  %t1 = arith.addi %t, %c3 : index
  %a = arith.cmpi ult, %gx, %w : index
  %b = arith.cmpi ult, %gy, %h : index
  %c = arith.cmpi ult, %gx, %t1 : index
  %ab = arith.andi %a, %b : i1
  %abc = arith.andi %ab, %c : i1
  scf.if %abc {
    %v = gpuc.load %x[%gx] : !gpuc.ptr<f32, global>
    gpuc.store %v, %y[%gy] : !gpuc.ptr<f32, global>
  }"""
    assert guards_of(kernel(body)) == [
        (0, False, ("arith.index_cast",)),
        (1, False, ("arith.constant", "gpuc.block_dim", "arith.muli")),
    ]  # the third bound differs between threads


PREFIX = """
  %i = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %v0 = arith.constant 1.0 : f32
  %in = arith.cmpi ult, %i, %nn : index"""


@pytest.mark.parametrize(
    "body",
    [
        # a write before the guard: every thread must run it
        """
  gpuc.store %v0, %y[%i] : !gpuc.ptr<f32, global>
  scf.if %in {
    gpuc.store %v0, %x[%i] : !gpuc.ptr<f32, global>
  }""",
        # a write after it
        """
  scf.if %in {
    gpuc.store %v0, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.store %v0, %y[%i] : !gpuc.ptr<f32, global>""",
        # an else branch
        """
  scf.if %in {
    gpuc.store %v0, %x[%i] : !gpuc.ptr<f32, global>
  } else {
    gpuc.store %v0, %y[%i] : !gpuc.ptr<f32, global>
  }""",
        # a bound read from memory (another thread may have written it)
        """
  %c0 = arith.constant 0 : index
  %m = gpuc.load %x[%c0] : !gpuc.ptr<f32, global>
  %mi = arith.fptoui %m : f32 to i32
  %mm = arith.index_cast %mi : i32 to index
  %below = arith.cmpi ult, %i, %mm : index
  scf.if %below {
    gpuc.store %v0, %y[%i] : !gpuc.ptr<f32, global>
  }""",
        # a disjunction
        """
  %f = arith.constant false
  %either = arith.ori %in, %f : i1
  scf.if %either {
    gpuc.store %v0, %y[%i] : !gpuc.ptr<f32, global>
  }""",
    ],
    ids=["write-before", "write-after", "else", "bound-from-memory", "or"],
)
def test_guards_that_do_not_hold_every_effect_are_not(body: str) -> None:
    assert guards_of(kernel(PREFIX + body)) == []


def poisoned(n: int) -> np.ndarray:
    return np.full(n, np.nan, np.float32)


@pytest.mark.parametrize(("predicate", "n"), [("ult", 1000), ("slt", 700), ("slt", -3)])
def test_native_runs_exactly_the_threads_below_the_bound(
    predicate: str, n: int
) -> None:
    source = kernel(
        f"""
  %i = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %in = arith.cmpi {predicate}, %i, %nn : index
  scf.if %in {{
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %one = arith.constant 1.0 : f32
    %r = arith.addf %v, %one : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }}"""
    )
    mod = gpuc.compile(source, target="native")
    x = np.random.default_rng(1).standard_normal(4 * 256).astype(np.float32)
    y = poisoned(x.size)
    mod["k"][4, 256](x, y, np.int32(n))
    done = max(n, 0)
    np.testing.assert_array_equal(y[:done], x[:done] + 1)
    assert np.isnan(y[done:]).all()


def test_native_two_guards_on_x_and_guards_in_y_and_z() -> None:
    source = kernel(
        """
  %gx = gpuc.global_id x
  %gy = gpuc.global_id y
  %gz = gpuc.global_id z
  %w = arith.index_cast %nx : i32 to index
  %h = arith.index_cast %ny : i32 to index
  %d = arith.index_cast %nz : i32 to index
  %bd = gpuc.block_dim x
  %gd = gpuc.grid_dim x
  %c5 = arith.constant 5 : index
  %all = arith.muli %bd, %gd : index
  %most = arith.subi %all, %c5 : index
  %in_x = arith.cmpi ult, %gx, %w : index
  %in_x2 = arith.cmpi ugt, %most, %gx : index
  %in_y = arith.cmpi slt, %gy, %h : index
  %in_z = arith.cmpi ult, %gz, %d : index
  %a = arith.andi %in_x, %in_y : i1
  %b = arith.andi %in_z, %in_x2 : i1
  %in = arith.andi %a, %b : i1
  scf.if %in {
    %row = arith.muli %gy, %w : index
    %plane = arith.muli %gz, %h : index
    %plane_rows = arith.muli %plane, %w : index
    %r = arith.addi %row, %gx : index
    %at = arith.addi %plane_rows, %r : index
    %v = arith.index_cast %at : index to i32
    %f = arith.sitofp %v : i32 to f32
    gpuc.store %f, %out[%at] : !gpuc.ptr<f32, global>
  }""",
        params=f"%out: {F32}, %nx: i32, %ny: i32, %nz: i32",
    )
    func = next(op for op in load_module(source).ops if isinstance(op, FuncOp))
    assert sorted(g.dim for g in thread_guards(func)) == [0, 0, 1, 2]
    mod = gpuc.compile(source, target="native")
    grid, block = (3, 2, 2), (16, 8, 2)
    for nx in (37, 48):  # the second guard (48 - 5 = 43) binds when nx = 48
        nx_run, ny, nz = min(nx, 3 * 16 - 5), 13, 3
        out = poisoned(nx * ny * nz)
        mod["k"][grid, block](out, np.int32(nx), np.int32(ny), np.int32(nz))
        want = np.full((nz, ny, nx), np.nan, np.float32)
        index = np.arange(nx * ny * nz, dtype=np.float32).reshape(nz, ny, nx)
        want[:, :, :nx_run] = index[:, :, :nx_run]
        np.testing.assert_array_equal(out.reshape(nz, ny, nx), want)


def test_native_kernel_whose_threads_all_write_runs_them_all() -> None:
    source = kernel(
        """
  %i = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %nn : index
  %two = arith.constant 2.0 : f32
  scf.if %in {
    gpuc.store %two, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.store %two, %y[%i] : !gpuc.ptr<f32, global>"""
    )
    x, y = poisoned(512), poisoned(512)
    gpuc.compile(source, target="native")["k"][2, 256](x, y, np.int32(100))
    assert (x[:100] == 2).all() and np.isnan(x[100:]).all()
    assert (y == 2).all()


def test_native_kernel_of_several_blocks_has_no_guard_and_runs() -> None:
    source = kernel(
        """
  %i = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %nn : index
  cf.cond_br %in, ^write, ^done
^write:
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %y[%i] : !gpuc.ptr<f32, global>
  cf.br ^done
^done:"""
    )
    func = next(op for op in load_module(source).ops if isinstance(op, FuncOp))
    assert thread_guards(func) == []
    x, y = np.arange(512, dtype=np.float32), poisoned(512)
    gpuc.compile(source, target="native")["k"][2, 256](x, y, np.int32(300))
    np.testing.assert_array_equal(y[:300], x[:300])
    assert np.isnan(y[300:]).all()
