"""Kernels with barriers that a review of the work-group functions found
wrong or crashing on native (each compared with numpy, on native and spirv):
a helper with barriers called with a uniform then a varying argument, and
with a value recomputed from the thread index; an outer loop-carried value
read inside a lane-grouped loop; a helper whose loop bound is uniform at one
call site and loaded at the next; a barrier loop bounded by another's
counter, bounds loaded from memory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gpuc

TARGETS = ["native", "spirv"]
KERNELS = Path(__file__).with_name("work_item_regressions")

HELPER_ARGUMENTS = (KERNELS / "helper_arguments.mlir").read_text()

OUTER_VALUE_IN_LANES = (KERNELS / "outer_value_in_lanes.mlir").read_text()

RECOMPUTED_ARGUMENT = (KERNELS / "recomputed_argument.mlir").read_text()

LOOP_BOUND_PER_CALL_SITE = (KERNELS / "loop_bound_per_call_site.mlir").read_text()

LOADED_NESTED_BOUNDS = (KERNELS / "loaded_nested_bounds.mlir").read_text()


@pytest.mark.parametrize("target", TARGETS)
def test_a_helper_called_with_a_uniform_then_a_varying_argument(target: str) -> None:
    n = 8
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    a, b = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    gpuc.compile(HELPER_ARGUMENTS, target=target)["k"][(1,), (n,)](x, a, b)
    np.testing.assert_array_equal(a, np.ones(n, np.float32))
    np.testing.assert_array_equal(b, x)


@pytest.mark.parametrize("target", TARGETS)
def test_an_outer_loop_value_read_in_a_lane_grouped_loop(target: str) -> None:
    n = 32
    x = np.random.default_rng().integers(-8, 8, n).astype(np.float32)
    want = x.astype(np.float64)
    for _ in range(2):
        want = want[:4].sum() + 4 * want
    out = np.full(n, np.nan, np.float32)
    gpuc.compile(OUTER_VALUE_IN_LANES, target=target)["k"][(1,), (n,)](x, out)
    np.testing.assert_array_equal(out, want.astype(np.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_a_helper_given_a_value_recomputed_from_the_thread_index(target: str) -> None:
    out = np.full(8, np.nan, np.float32)
    gpuc.compile(RECOMPUTED_ARGUMENT, target=target)["k"][(1,), (8,)](out)
    np.testing.assert_array_equal(out, 3 * np.arange(8, dtype=np.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_a_helper_loop_uniform_at_one_site_loaded_at_the_next(target: str) -> None:
    n = 32
    x = np.random.default_rng().integers(-8, 8, n).astype(np.float32)
    bound = int(np.random.default_rng().integers(0, 20))
    a, b = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    mod = gpuc.compile(LOOP_BOUND_PER_CALL_SITE, target=target)
    mod["k"][(1,), (n,)](x, a, b, np.array([bound], np.int32))
    np.testing.assert_array_equal(a, np.full(n, x[:4].sum()))
    np.testing.assert_array_equal(b, np.full(n, x[: bound + 1].sum()))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [0, 1, 4])
def test_barrier_loops_bounded_by_loaded_values(target: str, n: int) -> None:
    out = np.zeros(8, np.float32)
    mod = gpuc.compile(LOADED_NESTED_BOUNDS, target=target)
    mod["k"][(1,), (8,)](np.array([n], np.int32), out)
    np.testing.assert_array_equal(out, np.full(8, n * (n - 1) / 2, np.float32))


def test_a_small_launch_with_an_f16_scalar() -> None:
    """ctypes has no half type: such a launch goes through the worker (a
    direct ctypes call passed the f16 in the wrong register and crashed)."""
    src = """
gpuc.func @k(%s: f16, %out: !gpuc.ptr<f16, global>) kernel {
  %t = gpuc.global_id x
  gpuc.store %s, %out[%t] : !gpuc.ptr<f16, global>
  gpuc.return
}
"""
    out = np.zeros(4, np.float16)
    gpuc.compile(src, target="native")["k"][(1,), (4,)](np.float16(2.5), out)
    np.testing.assert_array_equal(out, np.full(4, 2.5, np.float16))


VECTORS_ACROSS_A_BARRIER = """
gpuc.func @k(%a: !gpuc.ptr<vector<4xf32>, global>,
             %b: !gpuc.ptr<vector<16xi8>, global>,
             %c: !gpuc.ptr<vector<2xf64>, global>,
             %out: !gpuc.ptr<vector<4xf32>, global>,
             %bytes: !gpuc.ptr<vector<16xi8>, global>,
             %doubles: !gpuc.ptr<vector<2xf64>, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %a[%i] : !gpuc.ptr<vector<4xf32>, global>
  %w = gpuc.load %b[%i] : !gpuc.ptr<vector<16xi8>, global>
  %d = gpuc.load %c[%i] : !gpuc.ptr<vector<2xf64>, global>
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %pos = arith.cmpf ogt, %v, %zero : vector<4xf32>
  gpuc.barrier
  %r = arith.select %pos, %v, %zero : vector<4xi1>, vector<4xf32>
  gpuc.store %r, %out[%i] : !gpuc.ptr<vector<4xf32>, global>
  gpuc.store %w, %bytes[%i] : !gpuc.ptr<vector<16xi8>, global>
  gpuc.store %d, %doubles[%i] : !gpuc.ptr<vector<2xf64>, global>
  gpuc.return
}
"""


def test_vectors_live_across_a_barrier() -> None:
    """Vector values (f32, i8, f64 and an i1 mask) kept across a barrier get
    context storage of their LLVM size; this was an internal error."""
    rng = np.random.default_rng()
    threads = 32
    a = rng.standard_normal(4 * threads).astype(np.float32)
    b = rng.integers(-128, 128, 16 * threads, dtype=np.int8)
    c = rng.standard_normal(2 * threads)
    out = np.full_like(a, np.nan)
    got_b = np.full_like(b, 7)
    got_c = np.full_like(c, np.nan)
    module = gpuc.compile(VECTORS_ACROSS_A_BARRIER, "native")
    module.launch("k", (2,), (threads // 2,), (a, b, c, out, got_b, got_c))
    np.testing.assert_array_equal(out, np.where(a > 0, a, 0))
    np.testing.assert_array_equal(got_b, b)
    np.testing.assert_array_equal(got_c, c)
