"""The `autodiff` generator: derivatives checked against central finite
differences in float64 (tests/autodiff_check.py) on native and spirv, on fresh
random inputs; the conventions' types; the seed's clean-up with autodiff's
wrappers; and a located diagnostic for whatever it cannot differentiate.

Inputs differ per run: the base seed is printed and in every failure message;
rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from xdsl.ir import Operation

import gpuc
import gpuc.autodiff
from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError
from gpuc.dialects.functions import FuncOp
from gpuc.tools import run_spirv_dis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import autodiff_kernels as K  # noqa: E402
from autodiff_check import In, Out, check, to_f64  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_autodiff: GPUC_TEST_SEED={BASE_SEED}")


def example(name: str) -> str:
    return (ROOT / "examples" / f"{name}.mlir").read_text()


def elementwise(n: int) -> tuple[tuple[int, int], object]:
    return ((n + 63) // 64, 64), lambda r: [
        In(r.standard_normal(n)),
        Out(r.standard_normal(n)),
        np.int32(n),
    ]


def _saxpy(r: np.random.Generator) -> list:
    return [
        float(r.standard_normal()),
        In(r.standard_normal(300)),
        Out(r.standard_normal(300)),
        np.int32(300),
    ]


def _stencil(r: np.random.Generator) -> list:
    return [
        In(r.standard_normal(37 * 21)),
        Out(r.standard_normal(37 * 21)),
        np.int32(37),
        np.int32(21),
    ]


def _matmul(r: np.random.Generator) -> list:
    m, n, k = 20, 18, 35
    return [
        In(r.standard_normal(m * k)),
        In(r.standard_normal(k * n)),
        Out(r.standard_normal(m * n)),
        np.int32(m),
        np.int32(n),
        np.int32(k),
    ]


def _reduce(r: np.random.Generator) -> list:
    return [In(r.standard_normal(700)), Out(r.standard_normal(1)), np.int32(700)]


def _loop(r: np.random.Generator) -> list:
    n = 200
    return [
        In(r.uniform(-0.9, 0.9, n)),
        Out(r.standard_normal(n)),
        Out(r.standard_normal(n)),
        np.int32(n),
    ]


def _softmax(r: np.random.Generator) -> list:
    return [In(r.standard_normal(5 * 64)), Out(r.standard_normal(5 * 64))]


def _rows(r: np.random.Generator) -> list:
    return [
        In(r.standard_normal(37 * 21)),
        In(r.standard_normal(37 * 21)),
        Out(r.standard_normal(37 * 21)),
        np.int32(37),
        np.int32(21),
    ]


def _scratch(r: np.random.Generator) -> list:
    n = 250
    return [In(r.uniform(-0.9, 0.9, n)), Out(r.standard_normal(n)), np.int32(n)]


def _dot(r: np.random.Generator) -> list:
    n, m = 200, 9
    return [
        In(r.standard_normal(m)),
        In(r.standard_normal(n)),
        Out(r.standard_normal(n)),
        np.int32(n),
        np.int32(m),
    ]


KERNELS = {
    "saxpy": (example("saxpy"), (5, 64), _saxpy),
    "stencil2d": (example("stencil2d"), ((3, 2), (16, 16)), _stencil),
    "matmul": (example("matmul"), ((2, 2), (16, 16)), _matmul),
    "reduce": (example("reduce"), (3, 256), _reduce),
    "loop": (K.LOOP, (4, 64), _loop),
    "branches": (K.BRANCHES, *elementwise(200)),
    "helpers": (K.HELPERS, *elementwise(200)),
    "softmax": (K.SOFTMAX, (5, 64), _softmax),
    "pointer_helpers": (K.POINTER_HELPERS, *elementwise(200)),
    "rows": (K.ROWS, ((3, 2), (16, 16)), _rows),
    "scratch": (K.SCRATCH, (4, 64), _scratch),
    "tile": (K.SCRATCH, (4, 64), _scratch),
    "grow": (K.GROW, (4, 64), _scratch),
    "dot": (K.DOT, (4, 64), _dot),
}


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_derivatives_match_finite_differences(name: str, target: str) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")
    source, launch, make_args = KERNELS[name]
    seed = zlib.crc32(f"{BASE_SEED}:{name}:{target}".encode())
    try:
        check(source, name, launch, make_args, target, seed=seed)
    except AssertionError as error:
        raise AssertionError(f"{error} (GPUC_TEST_SEED={BASE_SEED})") from None


def test_calls_through_traceable_function_pointers() -> None:
    # spirv refuses function pointers by design (the primal kernel has them).
    seed = zlib.crc32(f"{BASE_SEED}:pointers".encode())
    launch, make_args = elementwise(200)
    check(K.POINTERS, "pointers", launch, make_args, "native", seed=seed)


def test_an_untraceable_function_pointer_is_a_diagnostic() -> None:
    text = """
gpuc.func private @h(%a: f32) -> f32 helper {
  %s = math.sin %a : f32
  gpuc.return %s : f32
}
gpuc.func private @k(%v: f32, %c: i1) -> f32 helper {
  %fh = gpuc.func_addr @h : !gpuc.funcptr<(f32) -> f32>
  %fs = gpuc.func_addr @k2 : !gpuc.funcptr<(f32) -> f32>
  %f = arith.select %c, %fh, %fs : !gpuc.funcptr<(f32) -> f32>
  %a = gpuc.call_indirect %f(%v) : !gpuc.funcptr<(f32) -> f32>
  gpuc.return %a : f32
}
gpuc.func private @k2(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}
gpuc.func @main(%x: !gpuc.ptr<f32, global>, %c: i1) kernel {
  %v = gpuc.load %x : !gpuc.ptr<f32, global>
  %d = gpuc.deferred_call @k(%v, %c) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32, i1) -> f32
  gpuc.store %d, %x : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501
    message = _diagnostic(text)
    assert "<source>:10:8: error: 'gpuc.call_indirect' op" in message
    assert "only when the pointer is a gpuc.func_addr" in message


def test_f64_kernels_are_differentiated_like_f32() -> None:
    seed = zlib.crc32(f"{BASE_SEED}:f64".encode())
    check(
        K.BRANCHES,
        "branches",
        *elementwise(200),
        "native",
        seed=seed,
        dtype=np.float64,
        rtol=1e-9,
    )


def test_recursion_through_a_no_inline_helper() -> None:
    """On native against finite differences; compiled for ptx (checked by
    ptxas) and amdgpu; spirv refuses recursion with its diagnostic."""
    seed = zlib.crc32(f"{BASE_SEED}:recursion".encode())
    check(K.RECURSION, "recursion", *elementwise(200), "native", seed=seed)
    ptx = gpuc.autodiff.reverse(
        K.RECURSION, "recursion", target="ptx", cache=False, validate=True
    )
    assert isinstance(ptx.artefact, str) and ".func" in ptx.artefact
    amdgpu = gpuc.autodiff.forward(
        K.RECURSION, "recursion", target="amdgpu", cache=False
    )
    assert isinstance(amdgpu.artefact, bytes) and amdgpu.artefact[:4] == b"\x7fELF"
    with pytest.raises(OpError, match="OpenCL kernels cannot recurse"):
        gpuc.autodiff.reverse(K.RECURSION, "recursion", target="spirv", cache=False)


FUNCTIONS = """
gpuc.func @poly(%x: f32) -> f32 helper {
  %c = arith.constant 0.5 : f32
  %x2 = arith.mulf %x, %x : f32
  %x3 = arith.mulf %x2, %x : f32
  %s = math.sin %x : f32
  %h = arith.mulf %c, %x3 : f32
  %r = arith.addf %h, %s : f32
  gpuc.return %r : f32
}
gpuc.func @pair(%x: f32, %y: f32, %k: i32) -> f32 helper {
  %e = math.exp %y : f32
  %p = arith.mulf %x, %e : f32
  %d = arith.divf %p, %y : f32
  %kf = arith.sitofp %k : i32 to f32
  %r = arith.addf %d, %kf : f32
  gpuc.return %r : f32
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_device_function_derivatives_match_numpy(target: str) -> None:
    """Reverse on `(f32) -> f32` is `(f32) -> f32`; forward is `(f32, f32) ->
    f32`; reverse on two floats returns both adjoints (two results)."""
    if target == "spirv":
        pytest.importorskip("pyopencl")
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:functions:{target}".encode()))
    n = 100
    x = rng.uniform(0.5, 2.0, n).astype(np.float32)
    y = rng.uniform(0.5, 2.0, n).astype(np.float32)
    k = rng.integers(-3, 3, n).astype(np.int32)
    dpoly = 1.5 * x.astype(np.float64) ** 2 + np.cos(x.astype(np.float64))
    rev = gpuc.autodiff.reverse(FUNCTIONS, "poly", target=target, cache=False)
    out = np.full(n, np.nan, np.float32)
    rev["poly_reverse"][(2,), (64,)](x, out, np.int32(n))
    np.testing.assert_allclose(out, dpoly, rtol=2e-6 * 8, atol=1e-6)
    fwd = gpuc.autodiff.forward(FUNCTIONS, "poly", target=target, cache=False)
    t = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    fwd["poly_forward"][(2,), (64,)](x, t, out, np.int32(n))
    np.testing.assert_allclose(out, dpoly * t, rtol=2e-6 * 8, atol=1e-6)
    rev = gpuc.autodiff.reverse(FUNCTIONS, "pair", target=target, cache=False)
    dx, dy = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    rev["pair_reverse"][(2,), (64,)](x, y, k, dx, dy, np.int32(n))
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_allclose(dx, np.exp(y64) / y64, rtol=1e-5)
    # d/dy (x e^y / y) = x e^y / y - x e^y / y^2: the tolerance follows the
    # size of the two terms, which cancel near y = 1.
    terms = np.abs(x64 * np.exp(y64) / y64) + np.abs(x64 * np.exp(y64) / y64**2)
    assert np.all(np.abs(dy - x64 * np.exp(y64) * (y64 - 1) / y64**2) <= 1e-5 * terms)


def _resolved(text: str) -> str:
    from gpuc.cli.opt import main  # noqa: F401  (the command's parser and passes)
    from gpuc.context import make_context
    from gpuc.reader.text import parse_foreign_module
    from gpuc.transforms.resolve_deferred import resolve_deferred

    module = parse_foreign_module(text, make_context())
    resolve_deferred(module)
    return str(module)


CALLS = (
    FUNCTIONS
    + """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %one = arith.constant 1.0 : f32
  %a = gpuc.deferred_call @poly(%v) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32) -> f32
  %b = gpuc.deferred_call @poly(%v, %one) #gpuc.job<helper, generator = "autodiff" {mode = "forward"}> : (f32, f32) -> f32
  %c:2 = gpuc.deferred_call @pair(%v, %a, %n) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32, f32, i32) -> (f32, f32)
  %s = arith.addf %a, %b : f32
  %t = arith.addf %s, %c#1 : f32
  gpuc.store %t, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501
)


def test_forward_and_reverse_jobs_have_distinct_names_and_the_conventions_types() -> (
    None
):
    text = _resolved(CALLS)
    assert "@poly.helper.autodiff.mode_reverse(%x: f32) -> f32 helper" in text
    assert "@poly.helper.autodiff.mode_forward(%x: f32, %dx: f32) -> f32 helper" in text
    assert re.search(
        r"@pair\.helper\.autodiff\.mode_reverse"
        r"\(%x: f32, %y: f32, %k: i32\) -> \(f32, f32\)",
        text,
    )


HELPER_CHAIN = """
gpuc.func private @leaf(%a: f32) -> f32 helper {
  %s = math.sin %a : f32
  gpuc.return %s : f32
}
gpuc.func private @mid(%a: f32) -> f32 helper {
  %r = gpuc.call @leaf(%a) : (f32) -> f32
  %m = arith.mulf %r, %a : f32
  gpuc.return %m : f32
}
gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %d = gpuc.deferred_call @mid(%v) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32) -> f32
  gpuc.store %d, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501


def test_a_callee_derivative_is_a_job_of_its_own() -> None:
    text = _resolved(HELPER_CHAIN)
    assert "gpuc.call @leaf.helper.autodiff.mode_reverse.seed(" in text
    assert (
        "@leaf.helper.autodiff.mode_reverse.seed(%a: f32, %0: f32) -> f32 helper"
        in text.replace("%1: f32", "%0: f32")
        or re.search(
            r"@leaf\.helper\.autodiff\.mode_reverse\.seed\(%a: f32, %\d+: f32\) -> f32",
            text,
        )
    )


SEED = (
    (ROOT / "examples" / "deferred_inline.mlir")
    .read_text()
    .replace(
        '"mock_autodiff" {always_inline = true}',
        '"autodiff" {mode = "reverse", always_inline = true}',
    )
)


def test_the_seed_with_autodiff_leaves_one_function_per_kernel() -> None:
    """GPUCompiler.jl PR #928's check with a real generator: the always-inline
    derivative is inlined and removed at the dialect level on every target."""
    assert "autodiff" in SEED
    spirv = compile_module(SEED, "spirv", validate=True, cache=False).artefact
    assert isinstance(spirv, bytes)
    assert run_spirv_dis(spirv).count(" OpFunction ") == 1
    ptx = compile_module(SEED, "ptx", validate=True, cache=False).artefact
    assert isinstance(ptx, str)
    assert (
        len(re.findall(r"^\.visible \.entry ", ptx, re.M)) == 1 and ".func" not in ptx
    )
    native = compile_module(SEED, "native", cache=False).llvm_ir
    assert re.findall(r"^define [^@]*@([\w.$]+)\(", native, re.M) == [
        "__gpuc_launch_deferred_inline"
    ]
    amdgpu = compile_module(SEED, "amdgpu", cache=False).llvm_ir
    assert len(re.findall(r"^define ", amdgpu, re.M)) == 1


def test_the_seed_with_autodiff_computes_the_derivative() -> None:
    mod = gpuc.compile(SEED, "native", cache=False)
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:seed".encode()))
    x = rng.standard_normal(500).astype(np.float32)
    y = np.full(500, np.nan, np.float32)
    mod["deferred_inline"][(2,), (256,)](x, y, np.int32(500))
    np.testing.assert_allclose(y, 6 * x.astype(np.float64) + 2, rtol=1e-5, atol=1e-5)


def test_explain_says_which_job_made_the_derivative_and_why_it_is_gone() -> None:
    from gpuc.explain import explain

    e = explain(SEED, "ptx")
    made = e["poly.helper.autodiff.always_inline.mode_reverse"]
    assert made.origin["generator"] == "autodiff"
    assert made.origin["params"] == {
        "mode": '"reverse"',
        "always_inline": "true",
    } or made.origin["params"] == {"always_inline": "true", "mode": '"reverse"'}
    assert made.status == "removed" and made.removed_by == "inline"
    assert made.inlined_into == {"deferred_inline": 1}


def _reverse_job(source: str | Path, name: str) -> FuncOp:
    """The reverse derivative of kernel `name` that the autodiff job makes."""
    from gpuc.context import make_context
    from gpuc.transforms.resolve_deferred import ResolveDeferred

    module = gpuc.autodiff.derivative_module(source, name, "reverse")
    ResolveDeferred().apply(make_context(), module)
    (made,) = [
        f for f in module.ops if isinstance(f, FuncOp) and "autodiff" in f.sym_name.data
    ]
    return made


def test_reverse_matmul_has_no_repeated_barriers() -> None:
    # The tile loop is folded into its adjoint (fold.py), and its body's
    # primal ends with the barrier its adjoint starts with: one is kept (each
    # is one more pass over the block on native).
    from gpuc.dialects.index import BarrierOp

    made = _reverse_job(ROOT / "examples" / "matmul.mlir", "matmul")
    barriers = [op for op in made.walk() if isinstance(op, BarrierOp)]
    assert len(barriers) == 4  # 2 shadow zeroings, 2 per folded tile
    for op in barriers:
        prev = op.prev_op
        while prev is not None and prev.dialect_name() == "arith":
            prev = prev.prev_op
        assert not isinstance(prev, BarrierOp)


def test_a_guarded_kernel_derivative_is_one_guarded_if() -> None:
    # The primal and adjoint sweeps of stencil2d's `scf.if %in_grid` are
    # fused into one, without results or else branch: the shape native's
    # thread guards run without masked loads and stores.
    from xdsl.dialects import scf

    from gpuc.dialects.functions import ReturnOp

    made = _reverse_job(ROOT / "examples" / "stencil2d.mlir", "stencil2d")
    ifs = [op for op in made.body.block.ops if isinstance(op, scf.IfOp)]
    assert len(ifs) == 1
    (guard,) = ifs
    assert not guard.results and not guard.false_region.blocks
    assert isinstance(guard.next_op, ReturnOp)


AXPBY = """
gpuc.func @axpby(%a: f32, %b: f32, %x: !gpuc.ptr<f32, global>,
                 %y: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in = arith.cmpi slt, %i, %n_index : index
  scf.if %in {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %yi = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
    %ax = arith.mulf %a, %xi : f32
    %by = arith.mulf %b, %yi : f32
    %r = arith.addf %ax, %by : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""


@pytest.mark.parametrize("blocks", [5, 9])
def test_derivative_kernel_block_sums_with_threads_past_the_bound(blocks: int) -> None:
    # Native runs the derivative kernel's guarded body for the threads below
    # the bound only (signed `global_id x < n`), and sums both scalar
    # adjoints in vector lanes (regrouped adds): a partial last block, and
    # blocks wholly past n (blocks = 9), add nothing for those threads.
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:axpby:{blocks}".encode()))
    n = 300
    mod = gpuc.autodiff.reverse(AXPBY, "axpby", target="native")
    a, b = (np.float32(rng.standard_normal()) for _ in range(2))
    x, y, w = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    dx0, da0, db0 = (rng.standard_normal(k).astype(np.float32) for k in (n, 1, 1))
    y_out, dx, dy = y.copy(), dx0.copy(), w.copy()
    da, db = da0.copy(), db0.copy()
    mod["axpby_reverse"][blocks, 64](a, b, x, dx, y_out, dy, np.int32(n), da, db)
    w64, x64, y64 = (v.astype(np.float64) for v in (w, x, y))
    tol = dict(rtol=1e-5, atol=1e-5 * n)
    np.testing.assert_allclose(y_out, a * x64 + b * y64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dx, dx0 + a * w64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dy, b * w64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(da, da0 + w64 @ x64, **tol)
    np.testing.assert_allclose(db, db0 + w64 @ y64, **tol)


def _stencil_adjoint(w: np.ndarray, nx: int, ny: int) -> np.ndarray:
    """d(sum w * out)/d(in) for examples/stencil2d.mlir, by numpy (float64):
    each interior point's weight scattered to the inputs it reads."""
    w = w.reshape(ny, nx).astype(np.float64)
    g = w.copy()
    g[1:-1, 1:-1] = 0.0
    inner = w[1:-1, 1:-1]
    for dy, dx, coefficient in (
        (0, 0, 0.5),
        (0, -1, 0.125),
        (0, 1, 0.125),
        (-1, 0, 0.125),
        (1, 0, 0.125),
    ):
        g[1 + dy : ny - 1 + dy, 1 + dx : nx - 1 + dx] += coefficient * inner
    return g.ravel()


def test_shadows_summed_by_several_os_threads() -> None:
    # Above the native executor's split threshold, with 4 OS threads: the
    # shadows the derivatives only add into (stencil2d's din, matmul's dA
    # and dB) are summed parameters, each OS thread but the first adding
    # into a zeroed copy that is added into the array after the launch.
    # Shadows start random (adjoints are added into them), outputs poisoned.
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:summed".encode()))
    nx, ny = 512, 500
    stencil = gpuc.autodiff.reverse(
        ROOT / "examples" / "stencil2d.mlir", "stencil2d", target="native"
    )
    sig = stencil.signatures["stencil2d_reverse"]
    assert [p.summed for p in sig.params] == [False, True, False, False, False, False]
    stencil.executor.workers = 4
    field, w, din0 = (rng.standard_normal(nx * ny).astype(np.float32) for _ in range(3))
    out, din, dout = np.full_like(field, np.nan), din0.copy(), w.copy()
    grid = (((nx + 15) // 16, (ny + 15) // 16), (16, 16))
    stencil["stencil2d_reverse"][grid](
        field, din, out, dout, np.int32(nx), np.int32(ny)
    )
    np.testing.assert_allclose(din, din0 + _stencil_adjoint(w, nx, ny), atol=1e-5)
    np.testing.assert_array_equal(dout, 0)  # the store's adjoint read it
    assert not np.isnan(out).any()
    # Again: the copies the first launch kept are zero again.
    din, dout = din0.copy(), w.copy()
    stencil["stencil2d_reverse"][grid](
        field, din, out, dout, np.int32(nx), np.int32(ny)
    )
    np.testing.assert_allclose(din, din0 + _stencil_adjoint(w, nx, ny), atol=1e-5)
    # In checked mode the adds stay atomic, into the caller's array only.
    checked = gpuc.autodiff.reverse(
        ROOT / "examples" / "stencil2d.mlir", "stencil2d", target="native", checked=True
    )
    checked.executor.workers = 4
    din, dout = din0.copy(), w.copy()
    checked["stencil2d_reverse"][grid](
        field, din, out, dout, np.int32(nx), np.int32(ny)
    )
    np.testing.assert_allclose(din, din0 + _stencil_adjoint(w, nx, ny), atol=1e-5)

    m, n, k = 200, 190, 40
    matmul = gpuc.autodiff.reverse(
        ROOT / "examples" / "matmul.mlir", "matmul", target="native"
    )
    sig = matmul.signatures["matmul_reverse"]
    assert [p.summed for p in sig.params[:6]] == [
        False,
        True,
        False,
        True,
        False,
        False,
    ]
    matmul.executor.workers = 4
    a, b = (rng.standard_normal(s).astype(np.float32) for s in (m * k, k * n))
    wc, da0, db0 = (
        rng.standard_normal(s).astype(np.float32) for s in (m * n, m * k, k * n)
    )
    c, da, db, dc = (
        np.full(m * n, np.nan, np.float32),
        da0.copy(),
        db0.copy(),
        wc.copy(),
    )
    grid = (((n + 15) // 16, (m + 15) // 16), (16, 16))
    sizes = (np.int32(m), np.int32(n), np.int32(k))
    matmul["matmul_reverse"][grid](a, da, b, db, c, dc, *sizes)
    W, A, B = wc.reshape(m, n).astype(np.float64), a.reshape(m, k), b.reshape(k, n)
    np.testing.assert_allclose(
        c, (A.astype(np.float64) @ B).ravel(), rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(da, da0 + (W @ B.T).ravel(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, db0 + (A.T @ W).ravel(), rtol=1e-4, atol=1e-4)


def test_reversed_tile_loop_vectorizes_across_lanes() -> None:
    # matmul's reversed inner loop adds into the shadow tiles: native runs
    # it over groups of lanes and keeps LLVM from vectorizing it across its
    # iterations (gathers from the tiles, scatters into the shadow tiles).
    # The x past the block's last group of 16 lanes (none in a block of 16)
    # run it per thread (blocks `t.x.*`), where LLVM may gather a column.
    from gpuc.autodiff import derivative_module

    module = derivative_module(ROOT / "examples" / "matmul.mlir", "matmul", "reverse")
    ir = compile_module(module, "native", cache=False).llvm_ir
    body = ir[ir.index("define void @__gpuc_launch_matmul_reverse") :]
    body = body[: body.index("\n}\n")]
    assert "masked.scatter" not in body
    for block in re.split(r"\n(?=[\w.]+:)", body):
        if "masked.gather" in block:
            assert block.startswith("t.x."), block.split(":")[0]


DROPS_DA = (
    example("saxpy")
    + """
gpuc.func @saxpy_xy(%a: f32, %x: !gpuc.ptr<f32, global>,
                    %dx: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                    %dy: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %da = gpuc.deferred_call @saxpy(%a, %x, %dx, %y, %dy, %n)
      #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}>
      : (f32, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>,
         !gpuc.ptr<f32, global>, i32) -> f32
  gpuc.return
}
"""
)


def test_a_dropped_scalar_adjoint_leaves_a_thread_guard() -> None:
    # The derivative's guard yields da, which this kernel drops: native
    # still runs only the threads below n (no masked loads or stores), and
    # the threads past it (a partial block, a block wholly past n) do nothing.
    ir = compile_module(DROPS_DA, "native", cache=False).llvm_ir
    body = ir[ir.index("define void @__gpuc_launch_saxpy_xy") :]
    body = body[: body.index("\n}\n")]
    assert "masked" not in body
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:drops_da".encode()))
    n = 300
    a = np.float32(rng.standard_normal())
    x, y, w, dx0 = (rng.standard_normal(n).astype(np.float32) for _ in range(4))
    y_out, dx, dy = y.copy(), dx0.copy(), w.copy()
    gpuc.compile(DROPS_DA, "native")["saxpy_xy"][6, 64](
        a, x, dx, y_out, dy, np.int32(n)
    )
    np.testing.assert_allclose(
        y_out, a * x.astype(np.float64) + y, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(dx, dx0 + a * w.astype(np.float64), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(dy, w)


def test_guarded_index_arithmetic_is_recomputed_not_cached() -> None:
    # matmul's tile loads compute their indices (row * k + col) inside
    # guards: the adjoint sweep computes them again instead of reading them
    # from the guards' caches, so no scf.if yields an index (on native, an
    # index read back from a value kept per thread hides that it is affine
    # in the thread index, and the shadow updates it addresses stay scalar).
    from xdsl.dialects import scf
    from xdsl.dialects.builtin import IndexType

    made = _reverse_job(ROOT / "examples" / "matmul.mlir", "matmul")
    ifs = [op for op in made.walk() if isinstance(op, scf.IfOp)]
    assert ifs
    assert not any(isinstance(r.type, IndexType) for op in ifs for r in op.results)


def test_an_invariant_shadow_update_leaves_its_loop() -> None:
    # dx[i] is updated in every reversed iteration: summed in a loop-carried
    # value and added once after the loop; dw[k] stays an atomic per
    # iteration.
    from xdsl.dialects import scf

    from gpuc.dialects.memory import AtomicRMWOp

    made = _reverse_job(K.DOT, "dot")
    atomics = {
        str(op.ptr.name_hint): op for op in made.walk() if isinstance(op, AtomicRMWOp)
    }
    in_loop = {
        name: any(isinstance(p, scf.ForOp) for p in _ancestors(op))
        for name, op in atomics.items()
    }
    assert in_loop == {"dw": True, "dx": False}


def _ancestors(op: Operation) -> list[Operation]:
    out, current = [], op.parent_op()
    while current is not None:
        out.append(current)
        current = current.parent_op()
    return out


def _diagnostic(text: str) -> str:
    with pytest.raises(OpError) as info:
        compile_module(text, "native", cache=False)
    return str(info.value)


def _job(body: str, signature: str, params: str) -> str:
    return f"""
gpuc.func @f{signature} helper {{
{body}
}}
gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {{
  %v = gpuc.load %x : !gpuc.ptr<f32, global>
  %d = gpuc.deferred_call @f(%v) #gpuc.job<helper, generator = "autodiff" {params}> : (f32) -> f32
  gpuc.store %d, %x : !gpuc.ptr<f32, global>
  gpuc.return
}}
"""  # noqa: E501


SQUARE = "  %r = arith.mulf %a, %a : f32\n  gpuc.return %r : f32"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("{}", '\'mode\' must be "forward" or "reverse" (given: none)'),
        ('{mode = "sideways"}', '\'mode\' must be "forward" or "reverse"'),
        ('{mode = "reverse", fast}', "unknown parameter(s) fast; autodiff takes mode"),
        (
            '{mode = "forward"}',
            "the forward derivative of @f (f32) -> f32 has the type (f32, f32) -> f32",
        ),
    ],
)
def test_bad_jobs_are_diagnostics_listing_what_is_accepted(
    params: str, message: str
) -> None:
    text = _diagnostic(_job(SQUARE, "(%a: f32) -> f32", params))
    assert message in text
    assert "'gpuc.deferred_call' op" in text


def test_an_op_without_a_rule_is_a_located_diagnostic_naming_op_and_job() -> None:
    body = (
        "  %b = arith.bitcast %a : f32 to i32\n"
        "  %r = arith.bitcast %b : i32 to f32\n"
        "  gpuc.return %r : f32"
    )
    text = _diagnostic(_job(body, "(%a: f32) -> f32", '{mode = "reverse"}'))
    assert "<source>:4:8: error: 'arith.bitcast' op" in text
    assert 'job @f #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}>' in text
    assert "has no derivative rule for 'arith.bitcast'" in text
    text = _diagnostic(
        _job(body, "(%a: f32) -> f32", '{mode = "forward"}')
        .replace("@f(%v)", "@f(%v, %v)")
        .replace("(f32) -> f32", "(f32, f32) -> f32")
    )
    assert "<source>:3:8: error: 'arith.bitcast' op" in text
    assert "cannot differentiate through 'arith.bitcast'" in text


def test_max_atomic_has_no_rule() -> None:
    text = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %v: f32) kernel {
  %o = gpuc.atomic_rmw max %x, %v : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @g(%x: !gpuc.ptr<f32, global>, %dx: !gpuc.ptr<f32, global>, %v: f32, %dv: !gpuc.ptr<f32, global>) kernel {
  %d = gpuc.deferred_call @k(%x, %dx, %v) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, f32) -> f32
  gpuc.store %d, %dv : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501
    message = _diagnostic(text)
    assert "<source>:3:8: error: 'gpuc.atomic_rmw' op" in message
    assert "has no derivative rule for 'gpuc.atomic_rmw'" in message


def test_a_while_condition_computed_with_a_store_is_refused() -> None:
    # Reverse mode rotates a while loop whose condition passes on computed
    # values by running its 'before' region again: not one that writes.
    text = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %v: f32) -> f32 helper {
  %limit = arith.constant 4.0 : f32
  %w = scf.while (%u = %v) : (f32) -> f32 {
    %g = arith.addf %u, %u : f32
    gpuc.store %g, %x : !gpuc.ptr<f32, global>
    %small = arith.cmpf olt, %u, %limit : f32
    scf.condition(%small) %g : f32
  } do {
  ^bb0(%h: f32):
    scf.yield %h : f32
  }
  gpuc.return %w : f32
}
gpuc.func @g(%x: !gpuc.ptr<f32, global>, %dx: !gpuc.ptr<f32, global>, %v: f32, %dv: !gpuc.ptr<f32, global>) kernel {
  %d = gpuc.deferred_call @k(%x, %dx, %v) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, f32) -> f32
  gpuc.store %d, %dv : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501
    message = _diagnostic(text)
    assert "<source>:6:5: error: 'gpuc.store' op" in message
    assert "compute it in the 'do' region" in message


def test_several_float_results_need_a_seed_in_reverse_mode() -> None:
    text = """
gpuc.func @two(%a: f32) -> (f32, f32) helper {
  %s = math.sin %a : f32
  gpuc.return %s, %a : f32, f32
}
gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {
  %v = gpuc.load %x : !gpuc.ptr<f32, global>
  %d = gpuc.deferred_call @two(%v) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32) -> f32
  gpuc.store %d, %x : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501
    assert (
        "reverse mode needs one adjoint seed for each: add 'seed = true'"
        in _diagnostic(text)
    )
    seeded = (
        text.replace('{mode = "reverse"}', '{mode = "reverse", seed = true}')
        .replace("@two(%v)", "@two(%v, %v, %v)")
        .replace("(f32) -> f32", "(f32, f32, f32) -> f32")
    )
    mod = gpuc.compile(seeded, "native", cache=False)
    x = np.array([0.7], np.float32)
    mod["k"][(1,), (1,)](x)
    # d/da (sin a * 0.7 + a * 0.7) at a = 0.7
    np.testing.assert_allclose(x[0], np.cos(0.7) * 0.7 + 0.7, rtol=1e-6)


def test_vector_arguments_are_a_diagnostic() -> None:
    text = """
gpuc.func @f(%a: vector<4xf32>) -> f32 helper {
  %s = vector.extract %a[0] : f32 from vector<4xf32>
  gpuc.return %s : f32
}
gpuc.func @k(%x: !gpuc.ptr<vector<4xf32>, global>, %y: !gpuc.ptr<f32, global>) kernel {
  %v = gpuc.load %x : !gpuc.ptr<vector<4xf32>, global>
  %d = gpuc.deferred_call @f(%v) #gpuc.job<helper, generator = "autodiff" {mode = "forward"}> : (vector<4xf32>) -> f32
  gpuc.store %d, %y : !gpuc.ptr<f32, global>
  gpuc.return
}
"""  # noqa: E501
    assert "not vectors or pointers to pointers" in _diagnostic(text)


def test_a_load_whose_memory_changes_after_it_in_a_loop_is_refused() -> None:
    """Reverse mode recomputes loop iterations; a load of memory the loop
    overwrites would recompute another value, so it is a diagnostic."""
    text = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %n: index) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %v = gpuc.load %x[%c0] : !gpuc.ptr<f32, global>
    %s = arith.mulf %v, %v : f32
    gpuc.store %s, %x[%c0] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
gpuc.func @g(%x: !gpuc.ptr<f32, global>, %dx: !gpuc.ptr<f32, global>, %n: index) kernel {
  gpuc.deferred_call @k(%x, %dx, %n) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index) -> ()
  gpuc.return
}
"""  # noqa: E501
    message = _diagnostic(text)
    assert "<source>:6:10: error: 'gpuc.load' op" in message
    assert "recomputes this load inside a loop" in message


def test_f64_twin_is_well_formed() -> None:
    assert "f64" in to_f64(K.LOOP) and "f32" not in to_f64(K.LOOP)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("name", ["saxpy", "stencil2d", "matmul", "reduce"])
def test_derivative_kernels_compile_for_ptx_and_amdgpu(name: str, mode: str) -> None:
    """ptxas accepts the derivative kernels' PTX; ld.lld links amdgpu's."""
    make = gpuc.autodiff.forward if mode == "forward" else gpuc.autodiff.reverse
    ptx = make(example(name), name, target="ptx", cache=False, validate=True)
    assert isinstance(ptx.artefact, str) and f".entry {name}_{mode}" in ptx.artefact
    amdgpu = make(example(name), name, target="amdgpu", cache=False)
    assert isinstance(amdgpu.artefact, bytes)


HALF = """
gpuc.func @h(%x: f16) -> f16 helper {
  %x2 = arith.mulf %x, %x : f16
  %c = arith.constant 3.0 : f16
  %r = arith.mulf %x2, %c : f16
  %w = arith.extf %r : f16 to f32
  %s = math.sin %w : f32
  %t = arith.truncf %s : f32 to f16
  gpuc.return %t : f16
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_f16_is_differentiated_in_its_own_type(target: str) -> None:
    """d/dx sin(3 x^2) = 6 x cos(3 x^2), through f16 ops and extf/truncf; the
    tolerance is a few f16 roundings of the terms (2^-11 each)."""
    if target == "spirv":
        pytest.importorskip("pyopencl")
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:f16:{target}".encode()))
    x = rng.uniform(0.1, 0.9, 64).astype(np.float16)
    out = np.full(64, np.nan, np.float16)
    mod = gpuc.autodiff.reverse(HALF, "h", target=target, cache=False)
    mod["h_reverse"][(1,), (64,)](x, out, np.int32(64))
    x64 = x.astype(np.float64)
    want = 6 * x64 * np.cos(3 * x64**2)
    tol = 6 * 2.0**-11 * (6 * x64 + np.abs(want))
    assert np.all(np.abs(out.astype(np.float64) - want) <= tol)


CHAIN_SEED = (
    K.HELPERS.split("gpuc.func @helpers")[0]
    + """
gpuc.func @chain(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                 %n: i32) kernel {
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %two = arith.constant 2 : i32
    %d = gpuc.deferred_call @h1(%v, %two)
        #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}>
        : (f32, i32) -> f32
    gpuc.store %d, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""
)


def test_the_seed_with_a_chain_of_helpers_leaves_one_function() -> None:
    """The always-inline derivative and every helper job it drew in (the
    callees' derivatives and their primal calls) are inlined and removed at
    the dialect level: one OpFunction in SPIR-V, one .entry and no .func in
    PTX; and the derivative matches central differences of numpy's f64."""
    spirv = compile_module(CHAIN_SEED, "spirv", validate=True, cache=False).artefact
    assert isinstance(spirv, bytes)
    assert run_spirv_dis(spirv).count(" OpFunction ") == 1
    ptx = compile_module(CHAIN_SEED, "ptx", validate=True, cache=False).artefact
    assert isinstance(ptx, str) and ".func" not in ptx
    rng = np.random.default_rng(zlib.crc32(f"{BASE_SEED}:chain".encode()))
    x = rng.uniform(0.5, 2.0, 100).astype(np.float32)
    y = np.full(100, np.nan, np.float32)
    gpuc.compile(CHAIN_SEED, "native", cache=False)["chain"][(2,), (64,)](
        x, y, np.int32(100)
    )

    def h1(a: np.ndarray) -> np.ndarray:
        b = 2 * a
        return np.tanh(np.sqrt(b) * b) / b + np.log(a)

    x64, h = x.astype(np.float64), 1e-6
    fd = (h1(x64 + h) - h1(x64 - h)) / (2 * h)
    np.testing.assert_allclose(y, fd, rtol=1e-4, atol=1e-5)


def test_the_cli_reports_what_autodiff_cannot_do_without_a_traceback(
    tmp_path: Path,
) -> None:
    """`gpuc compile` of a module whose derivative job cannot be made: the
    located diagnostic, exit status 1, no output file."""
    source = tmp_path / "bad.mlir"
    source.write_text(
        _job(
            "  %b = arith.bitcast %a : f32 to i32\n"
            "  %r = arith.bitcast %b : i32 to f32\n"
            "  gpuc.return %r : f32",
            "(%a: f32) -> f32",
            '{mode = "reverse"}',
        )
    )
    out = tmp_path / "out.ptx"
    result = subprocess.run(
        [sys.executable, "-m", "gpuc.cli", "compile", str(source), "-o", str(out)],
        capture_output=True,
    )
    assert result.returncode == 1
    text = result.stderr.decode()
    assert "Traceback" not in text
    assert f"{source}:4:8: error: 'arith.bitcast' op generator 'autodiff'" in text
    assert not out.exists()


def test_gpuc_autodiff_names_what_it_needs() -> None:
    with pytest.raises(gpuc.OptionError, match="defines no gpuc.func @nope"):
        gpuc.autodiff.reverse(FUNCTIONS, "nope", target="native")
