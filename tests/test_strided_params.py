"""What real frontends hand gpuc: kernels with strided memref parameters
(static and dynamic strides and offsets, launched on numpy views and device
arrays without copies), memrefs of more than three dimensions, host-side
views that outlining sinks into the kernel (xDSL's stencil pipeline, run
here), and linalg programs mlir-opt-22 lowered to outlined kernels whose
parameters are strided views and whose indices are `affine.apply`s. Each runs
on native and spirv (Intel's OpenCL CPU runtime) against numpy on fresh
random inputs with poisoned outputs, and compiles for ptx (ptxas), spirv
(spirv-val) and amdgpu. Rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kernel_modules import compiled, seeded
from test_outlining import host_value, launches
from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.ir import SSAValue

import gpuc
from gpuc.compiler import compile_module
from gpuc.reader.text import parse_foreign_module
from gpuc.transforms.import_foreign import outline_host_code

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_strided_params: GPUC_TEST_SEED={SEED}")
TARGETS = ["native", "spirv"]
HERE = Path(__file__).parent
SOURCE = (HERE / "strided_params_kernels.mlir").read_text()
STENCIL_PIPELINE = (
    "shape-inference",
    "convert-stencil-to-ll-mlir",
    "gpu-map-parallel-loops",
)
"""xDSL's passes from the stencil dialect to mapped loops, as xDSL's
stencil tests run them."""
LINALG = (HERE / "fixtures" / "linalg" / "programs.mlir22.mlir").read_text()
LINALG_TILED = (HERE / "fixtures" / "linalg" / "programs.tiled.mlir22.mlir").read_text()
LOWERED = {
    f"{form}-mlir{version}": (
        HERE / "fixtures" / "linalg" / f"programs{suffix}.mlir{version}.mlir"
    ).read_text()
    for version in (16, 22)
    for form, suffix in (("outlined", ""), ("tiled", ".tiled"))
}
LOWERED |= {
    f"{tiling}-mlir22": (
        HERE / "fixtures" / "linalg" / f"programs.{tiling}.mlir22.mlir"
    ).read_text()
    for tiling in ("tiled-outlined", "tiled-guarded")
}
"""The programs as mlir-opt-16 and -22 lower them, outlined and tiled (each
fixture's first line is the command that made it); and as
bench/mlir_nvvm_comparison.py hands them to MLIR's NVVM path, tiled then
converted and outlined by mlir-opt-22 (which leaves the loops whose inner
bounds are affine.mins, gpuc converts them), and tiled with
`no-min-max-bounds` (guarded tiles, which mlir-opt-22 outlines)."""


def rng(*key: object) -> np.random.Generator:
    return seeded(SEED, *key)


def views_args(r: np.random.Generator) -> tuple[np.ndarray[Any, Any], ...]:
    big = r.standard_normal((12, 40)).astype(np.float32)
    top, left = int(r.integers(0, 4)), int(r.integers(0, 8))
    a = big[top : top + 8 : 2, left : left + 24 : 3]  # strides (80, 3) elements
    flat = r.standard_normal(80).astype(np.float32)
    b = np.lib.stride_tricks.as_strided(flat[3:], (4, 8), (64, 8))  # [16, 2], 3
    c_base = np.full((6, 20), np.nan, np.float32)
    c = c_base[1:5, 4:12]
    return big, a, b, c_base, c


@pytest.mark.parametrize("target", TARGETS)
def test_strided_views_match_numpy(target: str) -> None:
    r = rng("views", target)
    big, a, b, c_base, c = views_args(r)
    out = np.full((4, 4, 8), np.nan, np.float32)
    compiled(SOURCE, target)["views"][(1,), (8, 4)](a, b, out, c)
    y, x = np.mgrid[0:4, 0:8]
    np.testing.assert_array_equal(out[0], a + b)
    np.testing.assert_array_equal(out[1], 2 * a)
    np.testing.assert_array_equal(out[2], b)
    np.testing.assert_array_equal(out[3], a[1 + 2 * (y % 2), 2 * (x % 3)])
    np.testing.assert_array_equal(c, a - b)
    untouched = np.ones(c_base.shape, bool)
    untouched[1:5, 4:12] = False
    assert np.isnan(c_base[untouched]).all()  # nothing written outside the view


@pytest.mark.parametrize("target", TARGETS)
def test_device_arrays_and_explicit_layout_arguments(target: str) -> None:
    """A device array is a contiguous view; the strides and offset may also
    be passed explicitly, and the launch checks them against the array."""
    mod = compiled(SOURCE, target)
    r = rng("device", target)
    big, a, b, _, _ = views_args(r)
    dense = np.ascontiguousarray(a)
    out = np.full((4, 4, 8), np.nan, np.float32)
    c = np.full((4, 8), np.nan, np.float32)
    da, dout, dc = mod.to_device(dense), mod.to_device(out), mod.to_device(c)
    mod["views"][(1,), (8, 4)](da, b, dout, dc)
    np.testing.assert_array_equal(dout.copy_to_host()[0], dense + b)
    np.testing.assert_array_equal(dc.copy_to_host(), dense - b)
    # a's stride0, stride1, offset and c's stride0, offset passed by hand.
    offset = (a.__array_interface__["data"][0] - big.ctypes.data) // 4
    c2 = np.full((4, 8), np.nan, np.float32)
    mod["views"][(1,), (8, 4)](a, 80, 3, offset, b, out, c2, 8, 0)
    np.testing.assert_array_equal(c2, a - b)
    with pytest.raises(gpuc.LaunchError, match="disagrees with argument 0"):
        mod["views"][(1,), (8, 4)](a, 81, 3, offset, b, out, c2, 8, 0)


def test_views_the_launch_refuses() -> None:
    mod = compiled(SOURCE, "native")
    r = rng("refused")
    _, a, b, _, c = views_args(r)
    out = np.zeros((4, 4, 8), np.float32)
    with pytest.raises(gpuc.LaunchError, match="non-negative multiples"):
        mod["views"][(1,), (8, 4)](a[::-1], b, out, c)
    with pytest.raises(gpuc.LaunchError, match=r"strided<\[16, 2\]>.*stride 16"):
        mod["views"][(1,), (8, 4)](a, np.ascontiguousarray(b), out, c)
    with pytest.raises(gpuc.LaunchError, match="stride 1"):
        mod["views"][(1,), (8, 4)](a, b, out, a)  # c's innermost stride is 3


@pytest.mark.parametrize("target", TARGETS)
def test_five_and_four_dimensional_memrefs(target: str) -> None:
    r = rng("rank5", target)
    h = int(r.integers(2, 6))
    t = r.standard_normal((2, 3, h, 4, 5)).astype(np.float32)
    nhwc = r.standard_normal((2, h, 4, 3)).astype(np.float32)
    v = nhwc.transpose(0, 3, 1, 2)  # NCHW view of NHWC data, not contiguous
    out = np.full_like(t, np.nan)
    compiled(SOURCE, target)["rank5"][(2,), (4, h, 3)](t, v, out)
    np.testing.assert_array_equal(out, t + v[..., None])


def stencil_module(tiles: str) -> Any:
    """A 2-D five-point stencil in xDSL's stencil dialect, lowered by xDSL's
    own pipeline (tiled by xDSL's scf-parallel-loop-tiling with `tiles`):
    its loads and stores go through host-side subviews."""
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.stencil import Stencil
    from xdsl.parser import Parser
    from xdsl.passes import PassPipeline
    from xdsl.transforms import get_all_passes

    ctx = Context()
    for dialect in (Builtin, Func, Arith, Stencil):
        ctx.load_dialect(dialect)
    text = (HERE / "fixtures" / "stencil" / "laplace.mlir").read_text()
    module = Parser(ctx, text).parse_module()
    tiling = f"scf-parallel-loop-tiling{{parallel-loop-tile-sizes={tiles}}}"
    spec = ",".join(
        [*STENCIL_PIPELINE[:2], *([tiling] if tiles else []), STENCIL_PIPELINE[2]]
    )
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    return module


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("tiles", ["", "8,5"])
def test_xdsl_stencil_pipeline_runs(tiles: str, target: str) -> None:
    """Untiled, the kernel takes the buffers (the views sunk into it); tiled,
    each tile's loop is bounded by an affine.min computed inside the mapped
    nest (xDSL's lower-affine leaves it), a grid-stride loop in the kernel."""
    module = stencil_module(tiles)
    assert "strided<[34, 1], offset: 35>" in str(module)  # the host-side views
    assert ("affine.min" in str(module)) == bool(tiles)
    mod = gpuc.compile(module, target=target)
    (name,) = list(mod)
    names = [p.name for p in mod.signatures[name].params]
    assert names == ["out", "in"]
    r = rng("stencil", tiles, target)
    a = r.standard_normal((66, 34)).astype(np.float32)
    o = np.full((66, 34), np.nan, np.float32)
    outline_host_code(Context(), module)
    ((kernel, grid, block, args),) = launches(module, "laplace", [a, o])
    assert block == ((5, 8, 1) if tiles else (1, 1, 1))
    mod.launch(kernel, grid=grid, block=block, args=args)
    c = a[1:-1, 1:-1]
    want = (a[:-2, 1:-1] + a[2:, 1:-1]) + (a[1:-1, 2:] + a[1:-1, :-2]) + c * -4
    np.testing.assert_allclose(o[1:-1, 1:-1], want, rtol=1e-5, atol=1e-6)


def evaluated(value: SSAValue, env: dict[SSAValue, Any]) -> Any:
    """A host value of the linalg programs: test_outlining's, and subviews."""
    op = value.owner
    if isinstance(op, memref.SubviewOp) and value not in env:
        source = evaluated(op.source, env)
        offsets = op.static_offsets.get_values()
        sizes = op.static_sizes.get_values()
        steps = op.static_strides.get_values()
        index = tuple(
            slice(o, o + n * s, s)
            for o, n, s in zip(offsets, sizes, steps, strict=True)
        )
        env[value] = source[index]
    return host_value(value, env)


def run_linalg(text: str, target: str, function: str, inputs: list[Any]) -> None:
    """Run host function `function` of `text` as its gpu.launch_funcs say,
    once gpuc's import has outlined what mlir-opt left as loops."""
    module = parse_foreign_module(text)
    outline_host_code(Context(), module)
    mod = compiled(text, target)
    host = next(
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == function
    )
    env = dict(zip(host.body.blocks[0].args, inputs, strict=True))
    for op in host.walk():
        for v in op.operands:
            if isinstance(v.owner, memref.SubviewOp):
                evaluated(v, env)
    for kernel, grid, block, args in launches(module, function, inputs, env):
        mod.launch(kernel, grid=grid, block=block, args=args)


@pytest.mark.parametrize(
    ("lowered", "target"),
    # MLIR 16's text and mlir-opt-22's outlining of tiled loops on native
    # only: they differ from the others in the import, not in what the
    # targets get.
    [
        (k, t)
        for k in LOWERED
        for t in TARGETS
        if t == "native" or ("22" in k and "tiled-outlined" not in k)
    ],
)
def test_mlir_lowered_linalg_programs(lowered: str, target: str) -> None:
    """mlir-opt-16's and -22's kernels (outlined: a strided slice parameter with
    affine.apply indices, 4-D NHWC convolution and NCHW pooling, batched
    and plain matmul, a depthwise convolution, an f16 row sum, a softmax),
    and the same programs tiled (4x3) and mapped, which their
    convert-parallel-loops-to-gpu mostly leaves as loops (each inner tile's bound is
    an affine.min computed inside the nest) and gpuc converts."""
    text = LOWERED[lowered]
    r = rng("linalg", lowered, target)
    a = r.standard_normal((16, 32)).astype(np.float32)
    b = np.full((8, 8), np.nan, np.float32)
    run_linalg(text, target, "scale_slice", [a, b])
    np.testing.assert_array_equal(b, a[2:10, 4:20:2] * 2)

    x = r.standard_normal((2, 6, 6, 3)).astype(np.float32)
    f = r.standard_normal((3, 3, 3, 4)).astype(np.float32)
    y = np.zeros((2, 4, 4, 4), np.float32)
    run_linalg(text, target, "conv_nhwc", [x, f, y])
    windows = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))
    want = np.einsum("nhwcij,ijcf->nhwf", windows, f)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)

    p = r.standard_normal((2, 3, 6, 6)).astype(np.float32)
    q = np.full((2, 3, 3, 3), -np.inf, np.float32)
    run_linalg(text, target, "pool_nchw", [p, np.zeros((2, 2), np.float32), q])
    np.testing.assert_array_equal(q, p.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))

    ba = r.standard_normal((3, 4, 5)).astype(np.float32)
    bb = r.standard_normal((3, 5, 6)).astype(np.float32)
    bc = np.zeros((3, 4, 6), np.float32)
    run_linalg(text, target, "bmm", [ba, bb, bc])
    np.testing.assert_allclose(bc, ba @ bb, rtol=1e-5, atol=1e-5)

    ma = r.standard_normal((5, 7)).astype(np.float32)
    mb = r.standard_normal((7, 6)).astype(np.float32)
    mc = np.zeros((5, 6), np.float32)
    run_linalg(text, target, "matmul", [ma, mb, mc])
    np.testing.assert_allclose(mc, ma @ mb, rtol=1e-5, atol=1e-5)

    d = r.standard_normal((1, 6, 6, 4)).astype(np.float32)
    df = r.standard_normal((3, 3, 4)).astype(np.float32)
    dout = np.zeros((1, 4, 4, 4), np.float32)
    run_linalg(text, target, "depthwise", [d, df, dout])
    dwin = np.lib.stride_tricks.sliding_window_view(d, (3, 3), axis=(1, 2))
    np.testing.assert_allclose(
        dout, np.einsum("nhwcij,ijc->nhwc", dwin, df), rtol=1e-4, atol=1e-5
    )

    h = r.standard_normal((6, 10)).astype(np.float16)
    sums = np.zeros(6, np.float32)
    run_linalg(text, target, "row_sum", [h, sums])
    np.testing.assert_allclose(sums, h.astype(np.float32).sum(1), rtol=1e-5, atol=1e-5)

    x = r.standard_normal((4, 9)).astype(np.float32)
    y = np.full((4, 9), np.nan, np.float32)
    mx = np.full(4, -np.inf, np.float32)
    total = np.zeros(4, np.float32)
    run_linalg(text, target, "softmax", [x, y, mx, total])
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_ptx_passes_ptxas() -> None:
    for source in (SOURCE, LINALG, LINALG_TILED, LOWERED["tiled-guarded-mlir22"]):
        assert compile_module(source, "ptx", sm=90, validate=True).artefact


def test_spirv_passes_spirv_val() -> None:
    for source in (SOURCE, LINALG, LINALG_TILED):
        assert compile_module(source, "spirv", validate=True).artefact


def test_amdgpu_compiles() -> None:
    for source in (SOURCE, LINALG, LINALG_TILED):
        assert compile_module(source, "amdgpu").artefact


STRIDED_DOUBLE = """
func.func @double(%v: memref<4x?xf32, strided<[?, 2], offset: ?>>)
    attributes {gpu.kernel} {
  %i = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
  %j = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
  %x = memref.load %v[%i, %j] : memref<4x?xf32, strided<[?, 2], offset: ?>>
  %y = arith.addf %x, %x : f32
  memref.store %y, %v[%i, %j] : memref<4x?xf32, strided<[?, 2], offset: ?>>
  func.return
}
"""


def test_ptx_executor_copies_the_span_of_a_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the ptx executor (tests/fake_cuda_driver.py standing in for a GPU),
    a strided parameter gets a device copy of the memory its view spans, its
    first element at the pointer, the strides and offset from the view, and
    the span is copied back: the view's elements change, the gaps do not."""
    pytest.importorskip("cuda.bindings")
    import ctypes

    import fake_cuda_core
    import fake_cuda_driver as f

    seen: list[tuple[int, ...]] = []

    def double(grid: Any, block: Any, args: list[int]) -> Any:
        ptr = f.read(args[0], ctypes.c_uint64)
        cols, row, offset = (f.read(a, ctypes.c_int64) for a in args[1:4])
        seen.append((cols, row, offset))
        span = f.device_array(ptr, np.float32, 1 + 3 * row + 2 * (cols - 1))
        for i in range(4):
            span[i * row : i * row + 2 * cols : 2] *= 2
        return f.OK

    double.arity = 4  # type: ignore[attr-defined]
    driver = f.FakeDriver({"double": double})
    fake_cuda_core.install(monkeypatch, driver)
    mod = gpuc.compile(STRIDED_DOUBLE, target="ptx")
    base = rng("ptx span").standard_normal((6, 20)).astype(np.float32)
    before = base.copy()
    view = base[1:5, 3:13:2]
    mod["double"][1, (5, 4)](view)
    assert seen == [(5, 20, 23)]
    expected = before.copy()
    expected[1:5, 3:13:2] *= 2
    np.testing.assert_array_equal(base, expected)
    assert driver.memory == {}
