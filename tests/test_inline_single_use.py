"""At opt_level >= 1 the pipeline's `inline` also inlines the private helpers
called once (as LLVM's inliner would), and erases them; at O0 it keeps them.
Helpers called twice, no_inline, recursive or address-taken stay. Kernels
calling each kind (a chain of helpers called once, one of several blocks, one
with shared memory and barriers, at the top level and in a loop) compute what
numpy does at O0 and O3, on
native, on spirv (Intel's OpenCL CPU runtime, where installed) and on ptx
(where a CUDA GPU is); the PTX and SPIR-V pass ptxas and spirv-val."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import gpuc
from gpuc.compiler import compile_module
from gpuc.dialects.functions import FuncOp

PTR = "!gpuc.ptr<f32, global>"
BLOCK = 64

# y[i] = never(twice(twice(scale(reverse_block(x)[i], a)))): scale and clamp
# (several blocks) are a chain of helpers called once, reverse_block (called
# once) takes shared memory and a barrier; twice has two call sites and
# never is no_inline.
HELPERS = f"""
gpuc.func private @reverse_block(%x: {PTR}, %i: index) -> f32 helper {{
  %s = gpuc.shared_alloc {BLOCK} : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %v = gpuc.load %x[%i] : {PTR}
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %bd = gpuc.block_dim x
  %one = arith.constant 1 : index
  %last = arith.subi %bd, %one : index
  %j = arith.subi %last, %t : index
  %w = gpuc.load %s[%j] : !gpuc.ptr<f32, shared>
  gpuc.return %w : f32
}}
gpuc.func private @scale(%v: f32, %a: f32) -> f32 helper {{
  %p = arith.mulf %v, %a : f32
  %q = gpuc.call @clamp(%p) : (f32) -> f32
  gpuc.return %q : f32
}}
gpuc.func private @clamp(%v: f32) -> f32 helper {{
  %lim = arith.constant 4.0 : f32
  %big = arith.cmpf ogt, %v, %lim : f32
  cf.cond_br %big, ^hi, ^lo
^hi:
  gpuc.return %lim : f32
^lo:
  gpuc.return %v : f32
}}
gpuc.func private @twice(%v: f32) -> f32 helper {{
  %t = arith.addf %v, %v : f32
  gpuc.return %t : f32
}}
gpuc.func private @never(%v: f32) -> f32 helper no_inline {{
  %one = arith.constant 1.0 : f32
  %r = arith.subf %v, %one : f32
  gpuc.return %r : f32
}}
gpuc.func @k(%x: {PTR}, %y: {PTR}, %a: f32) kernel {{
  %i = gpuc.global_id x
  %r = gpuc.call @reverse_block(%x, %i) : ({PTR}, index) -> f32
  %s = gpuc.call @scale(%r, %a) : (f32, f32) -> f32
  %t = gpuc.call @twice(%s) : (f32) -> f32
  %u = gpuc.call @twice(%t) : (f32) -> f32
  %w = gpuc.call @never(%u) : (f32) -> f32
  gpuc.store %w, %y[%i] : {PTR}
  gpuc.return
}}
"""

# y = x rotated left by 3 within each block: a helper called once, in a
# loop, with shared memory and two barriers (inlined at O3, the barriers land
# in the kernel's scf.for).
ROTATE = f"""
gpuc.func private @rotate(%v: f32) -> f32 helper {{
  %s = gpuc.shared_alloc {BLOCK} : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %bd = gpuc.block_dim x
  %one = arith.constant 1 : index
  %next = arith.addi %t, %one : index
  %j = arith.remui %next, %bd : index
  %w = gpuc.load %s[%j] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return %w : f32
}}
gpuc.func @k(%x: {PTR}, %y: {PTR}) kernel {{
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : {PTR}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %it = %c0 to %c3 step %c1 iter_args(%acc = %v) -> (f32) {{
    %w = gpuc.call @rotate(%acc) : (f32) -> f32
    scf.yield %w : f32
  }}
  gpuc.store %r, %y[%i] : {PTR}
  gpuc.return
}}
"""

# y[i] = offset(*(&offset)(pow_a(x[i], 3))): pow_b is called once, by pow_a,
# but on the cycle pow_a -> pow_b -> pow_a; offset's address is taken besides
# its one direct call. spirv refuses both recursion and function pointers.
RECURSIVE = f"""
gpuc.func private @pow_a(%v: f32, %n: i32) -> f32 helper {{
  %zero = arith.constant 0 : i32
  %done = arith.cmpi sle, %n, %zero : i32
  %r = scf.if %done -> (f32) {{
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  }} else {{
    %one_i = arith.constant 1 : i32
    %m = arith.subi %n, %one_i : i32
    %p = gpuc.call @pow_b(%v, %m) : (f32, i32) -> f32
    %q = arith.mulf %p, %v : f32
    scf.yield %q : f32
  }}
  gpuc.return %r : f32
}}
gpuc.func private @pow_b(%v: f32, %n: i32) -> f32 helper {{
  %r = gpuc.call @pow_a(%v, %n) : (f32, i32) -> f32
  gpuc.return %r : f32
}}
gpuc.func private @offset(%v: f32) -> f32 helper {{
  %h = arith.constant 0.5 : f32
  %r = arith.addf %v, %h : f32
  gpuc.return %r : f32
}}
gpuc.func @k(%x: {PTR}, %y: {PTR}, %n: index) kernel {{
  %i = gpuc.global_id x
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {{
    %v = gpuc.load %x[%i] : {PTR}
    %three = arith.constant 3 : i32
    %p = gpuc.call @pow_a(%v, %three) : (f32, i32) -> f32
    %f = gpuc.func_addr @offset : !gpuc.funcptr<(f32) -> f32>
    %o = gpuc.call_indirect %f(%p) : !gpuc.funcptr<(f32) -> f32>
    %r = gpuc.call @offset(%o) : (f32) -> f32
    gpuc.store %r, %y[%i] : {PTR}
  }}
  gpuc.return
}}
"""


def functions(module: ModuleOp) -> set[str]:
    return {op.sym_name.data for op in module.ops if isinstance(op, FuncOp)}


@pytest.mark.parametrize("target", ["ptx", "spirv", "native"])
def test_helpers_called_once_are_gone_at_o3_and_kept_at_o0(target: str) -> None:
    validate = target != "native"
    o3 = compile_module(HELPERS, target, validate=validate)
    assert functions(o3.module) == {"k", "twice", "never"}
    o0 = compile_module(HELPERS, target, opt_level=0, validate=validate)
    assert functions(o0.module) == {
        "k",
        "reverse_block",
        "scale",
        "clamp",
        "twice",
        "never",
    }
    rotate = compile_module(ROTATE, target, validate=validate)
    assert functions(rotate.module) == {"k"}


@pytest.mark.parametrize("target", ["ptx", "native"])
def test_recursive_and_address_taken_helpers_stay(target: str) -> None:
    validate = target != "native"
    for opt_level in (0, 3):
        result = compile_module(
            RECURSIVE, target, opt_level=opt_level, validate=validate
        )
        assert functions(result.module) == {"k", "pow_a", "pow_b", "offset"}


def launcher(target: str, text: str, opt_level: int) -> Callable[..., object]:
    """The compiled kernel's launch on `target`'s executor (skipped where it
    cannot run). No fp contraction: results compare exactly with numpy."""
    if target == "spirv":
        pytest.importorskip("pyopencl")
        from gpuc.runtime.opencl import intel_cpu_runtime

        if intel_cpu_runtime() is None:
            pytest.skip("intel-opencl-rt not installed")
    if target == "ptx":
        from gpuc.runtime.cuda import start_driver

        try:
            start_driver()
        except gpuc.LaunchError as error:
            pytest.skip(f"no GPU: {error}")
    compiled = gpuc.compile(text, target=target, opt_level=opt_level, fp_contract=False)
    return compiled.launch


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("target", ["native", "spirv", "ptx"])
def test_kernel_calling_helpers_runs_like_numpy(target: str, opt_level: int) -> None:
    launch = launcher(target, HELPERS, opt_level)
    rng = np.random.default_rng(22 + opt_level)
    grid = 5
    x = rng.uniform(-3, 3, grid * BLOCK).astype(np.float32)
    y = np.full_like(x, np.nan)
    a = np.float32(1.75)
    launch("k", grid=(grid,), block=(BLOCK,), args=(x, y, a))
    reversed_ = x.reshape(grid, BLOCK)[:, ::-1].ravel()
    scaled = reversed_ * a
    clamped = np.where(scaled > 4, np.float32(4), scaled)
    expected = (clamped + clamped) * np.float32(2) - np.float32(1)
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("target", ["native", "ptx"])
def test_recursive_and_addressed_helpers_run_like_numpy(
    target: str, opt_level: int
) -> None:
    launch = launcher(target, RECURSIVE, opt_level)
    rng = np.random.default_rng(7 + opt_level)
    n, block = 300, 64
    grid = -(-n // block)
    x = rng.uniform(-2, 2, n).astype(np.float32)
    y = np.full(grid * block, np.nan, np.float32)
    launch("k", grid=(grid,), block=(block,), args=(x, y, n))
    cube = ((np.float32(1) * x) * x) * x
    np.testing.assert_array_equal(y[:n], (cube + np.float32(0.5)) + np.float32(0.5))
    assert np.isnan(y[n:]).all(), "threads past n must not store"


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("target", ["native", "spirv", "ptx"])
def test_barrier_helper_called_in_a_loop_runs_like_numpy(
    target: str, opt_level: int
) -> None:
    launch = launcher(target, ROTATE, opt_level)
    rng = np.random.default_rng(5 + opt_level)
    grid = 4
    x = rng.standard_normal(grid * BLOCK).astype(np.float32)
    y = np.full_like(x, np.nan)
    launch("k", grid=(grid,), block=(BLOCK,), args=(x, y))
    np.testing.assert_array_equal(y, np.roll(x.reshape(grid, BLOCK), -3, 1).ravel())
