"""The native launch entry's loop over x split at a kernel's `global_id x ==
u` tests (gpuc/targets/native/x_steps.py `edge_tests`, thread_loops.py), and
the split loop marked parallel where a derivative's private sums may add in
any order (`adds_in_any_order`). Kernels run on the native executor against
numpy, outputs poisoned; the IR is read for what the loop became."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import gpuc
import gpuc.autodiff
from gpuc.dialects.attrs import Dim
from gpuc.dialects.functions import FuncOp
from gpuc.driver import load_module
from gpuc.targets.native.private_sums import summed
from gpuc.targets.native.thread_guards import thread_guards
from gpuc.targets.native.x_steps import adds_in_any_order, edge_tests

ROOT = Path(__file__).resolve().parent.parent
F32 = "!gpuc.ptr<f32, global>"

EDGES = f"""
gpuc.func @edges(%in: {F32}, %out: {F32}, %nx: i32, %ny: i32, %u: i32) kernel {{
  %x = gpuc.global_id x
  %y = gpuc.global_id y
  %w = arith.index_cast %nx : i32 to index
  %h = arith.index_cast %ny : i32 to index
  %x_in = arith.cmpi ult, %x, %w : index
  %y_in = arith.cmpi ult, %y, %h : index
  %in_grid = arith.andi %x_in, %y_in : i1
  scf.if %in_grid {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %row = arith.muli %y, %w : index
    %c = arith.addi %row, %x : index
    %v = gpuc.load %in[%c] : {F32}
    %last = arith.subi %w, %c1 : index
    %ui = arith.index_cast %u : i32 to index
    %first = arith.cmpi eq, %x, %c0 : index
    %end = arith.cmpi eq, %last, %x : index
    %not_u = arith.cmpi ne, %x, %ui : index
    %one = arith.constant 1.0 : f32
    %ten = arith.constant 10.0 : f32
    %hundred = arith.constant 100.0 : f32
    %a = arith.select %first, %one, %v : f32
    %b = scf.if %end -> (f32) {{
      %s = arith.addf %a, %ten : f32
      scf.yield %s : f32
    }} else {{
      scf.yield %a : f32
    }}
    %r = scf.if %not_u -> (f32) {{
      scf.yield %b : f32
    }} else {{
      %s = arith.addf %b, %hundred : f32
      scf.yield %s : f32
    }}
    gpuc.store %r, %out[%c] : {F32}
  }}
  gpuc.return
}}
"""


def edges_want(field: np.ndarray, nx: int, ny: int, u: int) -> np.ndarray:
    want = field.reshape(ny, nx).copy()
    want[:, 0] = 1.0
    want[:, nx - 1] += 10.0
    if 0 <= u < nx:
        want[:, u] += 100.0
    return want.ravel()


def test_a_kernel_s_edge_tests_are_found() -> None:
    func = next(op for op in load_module(EDGES).ops if isinstance(op, FuncOp))
    bounds = [
        [op.name for op in edge.ops] for edge in edge_tests(func)
    ]  # x == 0, nx - 1 == x, x != u
    assert bounds == [
        ["arith.constant"],
        ["arith.index_cast", "arith.constant", "arith.subi"],
        ["arith.index_cast"],
    ]


@pytest.mark.parametrize(
    ("bound", "split"),
    [
        ("%w_less", True),
        ("%w_less_nsw", False),  # poison on overflow: no assumption of it
        ("%w_half", False),  # a division: the kernel may never compute it
    ],
)
def test_edge_bounds_the_entry_may_compute(bound: str, split: bool) -> None:
    source = f"""
gpuc.func @k(%out: {F32}, %nx: i32, %k: index) kernel {{
  %x = gpuc.global_id x
  %w = arith.index_cast %nx : i32 to index
  %c1 = arith.constant 1 : index
  %w_less = arith.subi %w, %c1 : index
  %w_less_nsw = arith.subi %w, %c1 overflow<nsw> : index
  %w_half = arith.divui %w, %k : index
  %at = arith.cmpi eq, %x, {bound} : index
  scf.if %at {{
    %one = arith.constant 1.0 : f32
    gpuc.store %one, %out[%x] : {F32}
  }}
  gpuc.return
}}
"""
    func = next(op for op in load_module(source).ops if isinstance(op, FuncOp))
    assert bool(edge_tests(func)) is split


@pytest.mark.parametrize(
    ("nx", "ny", "block", "u"),
    [
        (37, 21, (16, 16), 5),  # edges inside blocks, a partial last block
        (64, 9, (16, 4), 16),  # the last edge at a block's last thread, u first
        (40, 3, (8, 2), 39),  # u at the last edge: two tests of one thread
        (33, 5, (32, 1), -7),  # u before the grid
        (17, 4, (4, 4), 1000),  # u past it
        (1, 6, (16, 2), 0),  # one column: both edges and u at x = 0
    ],
)
def test_native_split_loop_runs_each_thread_once(
    nx: int, ny: int, block: tuple[int, int], u: int
) -> None:
    rng = np.random.default_rng(nx * 1000 + ny)
    field = rng.standard_normal(nx * ny).astype(np.float32)
    out = np.full(nx * ny + 32, np.nan, np.float32)
    grid = ((nx + block[0] - 1) // block[0], (ny + block[1] - 1) // block[1])
    gpuc.compile(EDGES, target="native")["edges"][grid, block](
        field, out, np.int32(nx), np.int32(ny), np.int32(u)
    )
    np.testing.assert_array_equal(out[: nx * ny], edges_want(field, nx, ny, u))
    assert np.isnan(out[nx * ny :]).all()


def function(ir_text: str, name: str) -> str:
    start = ir_text.index(f"define void @{name}(")
    return ir_text[start : ir_text.index("\n}\n", start)]


def test_stencil2d_reverse_loop_over_x_is_split_and_parallel() -> None:
    """Between the edges (x == 0, x == nx - 1) the reverse's inner rows are a
    loop without branches on x, marked parallel, whose overlapping
    read-add-writes into din LLVM then vectorizes whole; the primal's loop
    is split too, and neither keeps a masked access."""
    made = gpuc.autodiff.derivative_module(
        ROOT / "examples" / "stencil2d.mlir", "stencil2d", "reverse"
    )
    module = gpuc.compile(made, target="native")
    linked = function(module.llvm_ir, "__gpuc_launch_stencil2d_reverse")
    widths = [int(n) for n in re.findall(r"fadd reassoc nsz <(\d+) x float>", linked)]
    # din[c], [c +- 1] and [c +- nx] in the inner rows' vector loop (the
    # border rows' loop adds into din[c] only, the scalar loop would be
    # unrolled in pairs).
    assert widths.count(max(widths)) >= 5, widths
    assert "llvm.masked" not in linked
    assert "llvm.masked" not in function(module.llvm_ir, "__gpuc_launch_stencil2d")


def reverse_source(body: str) -> str:
    """A kernel shaped like a derivative: `body` inside its guard, adding
    into %din (summed)."""
    return f"""
gpuc.func @k(%in: {F32}, %din: {F32}, %nx: i32) kernel {{
  %x = gpuc.global_id x
  %w = arith.index_cast %nx : i32 to index
  %x_in = arith.cmpi ult, %x, %w : index
  scf.if %x_in {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %first = arith.cmpi eq, %x, %c0 : index
    %v = gpuc.load %in[%x] : {F32}
{body}
  }}
  gpuc.return
}}
"""


def reverse_kernel(body: str) -> FuncOp:
    """`reverse_source(body)`'s function."""
    source = reverse_source(body)
    return next(op for op in load_module(source).ops if isinstance(op, FuncOp))


ADD = "    %o = gpuc.atomic_rmw add %din[%x], %v {gpuc.regrouped} : " + F32


@pytest.mark.parametrize(
    ("body", "parallel"),
    [
        (ADD, True),
        (  # a branch on x but through the edge: no mask
            "    scf.if %first {\n  " + ADD + "\n    }",
            True,
        ),
        (  # a branch on y through an edge in y
            "    %y = gpuc.global_id y\n"
            "    %top = arith.cmpi eq, %y, %c0 : index\n"
            "    %either = arith.ori %first, %top : i1\n"
            "    scf.if %either {\n  " + ADD + "\n    }",
            True,
        ),
        (  # a branch on y otherwise: a branch the loop over x may mask
            "    %y = gpuc.global_id y\n"
            "    %low = arith.cmpi ult, %y, %c1 : index\n"
            "    scf.if %low {\n  " + ADD + "\n    }",
            False,
        ),
        (  # a branch on an argument: the same
            "    %few = arith.cmpi ult, %w, %c1 : index\n"
            "    scf.if %few {\n  " + ADD + "\n    }",
            False,
        ),
        (  # a branch on a value read from memory: masks
            "    %z = arith.constant 0.0 : f32\n"
            "    %pos = arith.cmpf ogt, %v, %z : f32\n"
            "    scf.if %pos {\n  " + ADD + "\n    }",
            False,
        ),
        (  # a branch on x itself: masks
            "    %two = arith.constant 2 : index\n"
            "    %odd = arith.remui %x, %two : index\n"
            "    %even = arith.cmpi eq, %odd, %c0 : index\n"
            "    scf.if %even {\n  " + ADD + "\n    }",
            False,
        ),
        (ADD.replace(" {gpuc.regrouped}", ""), False),  # an atomic add
        ("    gpuc.store %v, %din[%x] : " + F32, False),  # no private sum
        (  # private memory: one buffer for every thread of the loop
            "    %p = gpuc.private_alloc 4 : !gpuc.ptr<f32, local>\n"
            "    gpuc.store %v, %p[%c0] : !gpuc.ptr<f32, local>\n" + ADD,
            False,
        ),
    ],
)
def test_which_loops_over_x_are_parallel(body: str, parallel: bool) -> None:
    func = reverse_kernel(body)
    tests = edge_tests(func) + edge_tests(func, Dim.Y)
    known = [t.condition for t in tests] + [g.condition for g in thread_guards(func)]
    assert adds_in_any_order(func, summed(func), known) is parallel


SUM_INTO_ONE = f"""
gpuc.func @total(%in: {F32}, %sum: {F32}, %nx: i32) kernel {{
  %x = gpuc.global_id x
  %w = arith.index_cast %nx : i32 to index
  %x_in = arith.cmpi ult, %x, %w : index
  scf.if %x_in {{
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %x, %c0 : index
    %v = gpuc.load %in[%x] : {F32}
    %two = arith.constant 2.0 : f32
    %twice = arith.mulf %v, %two : f32
    %r = arith.select %first, %twice, %v : f32
    %o = gpuc.atomic_rmw add %sum[%c0], %r {{gpuc.regrouped}} : {F32}
  }}
  gpuc.return
}}
"""


def test_every_thread_adding_into_one_element_keeps_every_add() -> None:
    """A regrouped add that every thread of a row makes at one address (a
    scalar's adjoint) is no vector of distinct read-add-writes: its loop
    over x is split but not marked parallel."""
    func = next(op for op in load_module(SUM_INTO_ONE).ops if isinstance(op, FuncOp))
    known = [t.condition for t in edge_tests(func)]
    known += [g.condition for g in thread_guards(func)]
    assert not adds_in_any_order(func, summed(func), known)
    n = 1000
    field = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    total = np.zeros(1, np.float32)
    gpuc.compile(SUM_INTO_ONE, target="native")["total"][4, 256](
        field, total, np.int32(n)
    )
    want = field.astype(np.float64).sum() + field[0]
    np.testing.assert_allclose(total[0], want, rtol=1e-4, atol=1e-3)


def test_a_one_dimensional_derivative_s_loop_is_marked_parallel() -> None:
    """Without edge tests in y, every row's split loop over x is marked."""
    source = reverse_source(
        f"""    %o = gpuc.atomic_rmw add %din[%x], %v {{gpuc.regrouped}} : {F32}
    scf.if %first {{
      %p = gpuc.atomic_rmw add %din[%x], %v {{gpuc.regrouped}} : {F32}
    }} else {{
      %left = arith.subi %x, %c1 : index
      %q = gpuc.atomic_rmw add %din[%left], %v {{gpuc.regrouped}} : {F32}
    }}"""
    )
    module = gpuc.compile(source, target="native", opt_level=0)
    assert "llvm.loop.parallel_accesses" in module.llvm_ir
    n = 1000
    field = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    din = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    want = din.astype(np.float64) + field
    want[0] += field[0]
    want[:-1] += field[1:]
    gpuc.compile(source, target="native")["k"][4, 256](field, din, np.int32(n))
    np.testing.assert_allclose(din, want, rtol=1e-5, atol=1e-5)


MULTIBLOCK = f"""
gpuc.func @k(%out: {F32}, %nx: i32) kernel {{
  %x = gpuc.global_id x
  %w = arith.index_cast %nx : i32 to index
  %c0 = arith.constant 0 : index
  %e = arith.cmpi eq, %x, %c0 : index
  %in = arith.cmpi ult, %x, %w : index
  cf.cond_br %in, ^a, ^done
^a:
  cf.cond_br %e, ^b, ^c
^b:
  %one = arith.constant 1.0 : f32
  gpuc.store %one, %out[%x] : {F32}
  cf.br ^done
^c:
  %two = arith.constant 2.0 : f32
  gpuc.store %two, %out[%x] : {F32}
  cf.br ^done
^done:
  gpuc.return
}}
"""


def test_a_kernel_of_several_blocks_is_not_split_and_runs() -> None:
    """An edge test in a kernel whose body is a CFG (what an inlined
    multi-block helper leaves) splits nothing, and the kernel runs."""
    func = next(op for op in load_module(MULTIBLOCK).ops if isinstance(op, FuncOp))
    assert edge_tests(func) == []
    module = gpuc.compile(MULTIBLOCK, target="native", cache=False)
    n = int(np.random.default_rng().integers(40, 200))
    out = np.full(n, np.nan, np.float32)
    module["k"][(n + 31) // 32, 32](out, np.int32(n))
    want = np.full(n, 2.0, np.float32)
    want[0] = 1.0
    np.testing.assert_array_equal(out, want)


def test_an_address_made_by_a_long_chain_of_adds_compiles() -> None:
    """x_step gives up (unknown: block order) past MAX_DEPTH operands deep
    instead of exhausting Python's stack: 1,200 chained adds, an unrolled
    loop's index."""
    chain = [f"  %i{k} = arith.addi %i{k - 1}, %s : index" for k in range(1, 1201)]
    source = "\n".join(
        [
            f"gpuc.func @k(%out: {F32}, %s: index) kernel {{",
            "  %i0 = gpuc.global_id x",
            *chain,
            "  %one = arith.constant 1.0 : f32",
            f"  gpuc.store %one, %out[%i1200] : {F32}",
            "  gpuc.return",
            "}",
        ]
    )
    module = gpuc.compile(source, target="native", cache=False)
    out = np.zeros(256, np.float32)
    module["k"][2, 128](out, np.int64(0))
    assert (out == 1).all()


@pytest.mark.parametrize("bits", [8, 32])
def test_a_narrowed_thread_index_is_marked_parallel_only_if_wide(bits: int) -> None:
    """An add at din[x truncated to i8] repeats its addresses every 256
    threads: not one element further per thread, so its loop is not marked
    parallel; truncated to i32 it is (x would wrap past 2^31 threads)."""
    func = reverse_kernel(
        f"""
    %t = arith.index_cast %x : index to i{bits}
    %u = arith.extui %t : i{bits} to i64
    %i = arith.index_cast %u : i64 to index
    %o = gpuc.atomic_rmw add %din[%i], %v {{gpuc.regrouped}} : {F32}"""
    )
    tests = edge_tests(func) + edge_tests(func, Dim.Y)
    known = [t.condition for t in tests] + [g.condition for g in thread_guards(func)]
    assert adds_in_any_order(func, summed(func), known) is (bits == 32)
