"""`gpuc.autodiff.forward(fn)` / `reverse(fn)` on Python kernels and device
functions (gpuc/python/derivatives.py): the same `autodiff` jobs, compiled
and launched like any other, checked against central finite differences in
float64 on native and spirv, on fresh random inputs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gpuc
import gpuc.autodiff
from gpuc.driver import OptionError
from gpuc.runtime.args import LaunchError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import autodiff_python_kernels as K  # noqa: E402

SHAPE = (13, 37)
LAUNCH = ((3, 4), (16, 4))
STEPS = np.int32(4)


def targets() -> list[str]:
    return ["native", "spirv"]


def _need(target: str) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")


def _loss(target: str, a: float, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    out = np.full(SHAPE, np.nan)
    mod = gpuc.compile(K.blend, target=target)
    mod["blend"][LAUNCH](a, x, y, out, STEPS)
    return float(np.sum(w * out))


def _central(target: str, at: tuple, along: tuple, w: np.ndarray) -> float:
    """dL/dh at h = 0 of L(at + h * along), by central differences."""
    h = 1e-6
    plus = [p + h * t for p, t in zip(at, along, strict=True)]
    minus = [p - h * t for p, t in zip(at, along, strict=True)]
    return (_loss(target, *plus, w) - _loss(target, *minus, w)) / (2 * h)


def _point(
    rng: np.random.Generator,
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    return (
        float(rng.uniform(0.5, 1.5)),
        rng.uniform(-0.9, 0.9, SHAPE),
        rng.standard_normal(SHAPE),
        rng.standard_normal(SHAPE),
    )


@pytest.mark.parametrize("target", targets())
def test_reverse_of_a_python_kernel_matches_finite_differences(target: str) -> None:
    _need(target)
    rng = np.random.default_rng()
    a, x, y, w = _point(rng)
    d = gpuc.autodiff.reverse(K.blend, target=target)
    dx, dy, da = np.zeros(SHAPE), np.zeros(SHAPE), np.zeros(1)
    out, dout = np.full(SHAPE, np.nan), w.copy()
    # A view of y's transpose's transpose: strides from a Fortran-ordered
    # array, for the strided variant.
    yf = np.asfortranarray(y)
    dyf = np.asfortranarray(dy)
    d[LAUNCH](a, x, dx, yf, dyf, out, dout, STEPS, da)
    ta, tx, ty = rng.standard_normal(), *(rng.standard_normal(SHAPE) for _ in range(2))
    fd = _central(target, (a, x, y), (ta, tx, ty), w)
    terms = np.concatenate([[da[0] * ta], (dx * tx).ravel(), (dyf * ty).ravel()])
    got = float(terms.sum())
    assert abs(got - fd) <= 1e-6 * float(np.abs(terms).sum()), (got, fd)
    assert np.all(dout == 0)  # the store's adjoint zeroes the output's shadow


@pytest.mark.parametrize("target", targets())
def test_forward_of_a_python_kernel_matches_finite_differences(target: str) -> None:
    _need(target)
    rng = np.random.default_rng()
    a, x, y, w = _point(rng)
    d = gpuc.autodiff.forward(K.blend, target=target)
    ta, tx, ty = rng.standard_normal(), *(rng.standard_normal(SHAPE) for _ in range(2))
    out, tout = np.full(SHAPE, np.nan), np.full(SHAPE, np.nan)
    d[LAUNCH](a, ta, x, tx, y, ty, out, tout, STEPS)
    fd = _central(target, (a, x, y), (ta, tx, ty), w)
    got = float(np.sum(w * tout))
    assert abs(got - fd) <= 1e-6 * float(np.abs(w * tout).sum()), (got, fd)
    assert abs(_loss(target, a, x, y, w) - float(np.sum(w * out))) <= 1e-12 * float(
        np.abs(w * out).sum()
    )


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_device_function_derivatives_match_finite_differences(
    target: str, mode: str
) -> None:
    _need(target)
    rng = np.random.default_rng()
    n = 300
    x, y = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)

    def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x * x * y + np.exp(-y) * np.cos(x)

    h = 1e-6
    fx = (f(x + h, y) - f(x - h, y)) / (2 * h)
    fy = (f(x, y + h) - f(x, y - h)) / (2 * h)
    launch = ((n + 127) // 128, 128)
    if mode == "reverse":
        gx, gy = np.full(n, np.nan), np.full(n, np.nan)
        gpuc.autodiff.reverse(K.poly, target=target)[launch](x, y, gx, gy, np.int32(n))
        np.testing.assert_allclose(gx, fx, rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(gy, fy, rtol=1e-7, atol=1e-7)
    else:
        tx, ty = rng.standard_normal(n), rng.standard_normal(n)
        t = np.full(n, np.nan)
        gpuc.autodiff.forward(K.poly, target=target)[launch](
            x, tx, y, ty, t, np.int32(n)
        )
        np.testing.assert_allclose(t, fx * tx + fy * ty, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("target", targets())
def test_reverse_of_a_python_kernel_with_shared_memory(target: str) -> None:
    _need(target)
    rng = np.random.default_rng()
    n = 250
    x, w = rng.uniform(-1, 1, n), rng.standard_normal(n)
    launch = ((n + 63) // 64, 64)
    dx, out, dout = np.zeros(n), np.full(n, np.nan), w.copy()
    gpuc.autodiff.reverse(K.pairs, target=target)[launch](x, dx, out, dout)
    mod = gpuc.compile(K.pairs, target=target)

    def loss(x: np.ndarray) -> float:
        out = np.full(n, np.nan)
        mod["pairs"][launch](x, out)
        return float(np.sum(w * out))

    t, h = rng.standard_normal(n), 1e-6
    fd = (loss(x + h * t) - loss(x - h * t)) / (2 * h)
    terms = dx * t
    assert abs(float(terms.sum()) - fd) <= 1e-6 * float(np.abs(terms).sum())


def test_python_derivatives_are_the_autodiff_jobs() -> None:
    d = gpuc.autodiff.reverse(K.blend)
    text = str(d.source_module())
    params = '{mode = "reverse", always_inline = true}'
    job = f'#gpuc.job<helper, generator = "autodiff" {params}>'
    assert f"gpuc.deferred_kernel @blend_reverse = @blend {job}" in text
    assert "blend_reverse" in d.module(target="native").signatures


def test_wrong_arguments_are_launch_errors() -> None:
    d = gpuc.autodiff.reverse(K.blend, target="native")
    x = np.zeros(SHAPE)
    with pytest.raises(
        LaunchError,
        match=r"takes 9 argument\(s\) \(a, x, dx, y, dy, out, dout, steps, da\), got 2",
    ):
        d[LAUNCH](1.0, x)
    with pytest.raises(LaunchError, match="the shadow dx must have the shape"):
        d[LAUNCH](1.0, x, np.zeros((2, 2)), x, x, x, x, STEPS, np.zeros(1))
    with pytest.raises(LaunchError, match=r"launch it as d\[grid, block\]"):
        d[4]
    with pytest.raises(OptionError, match="drop the name"):
        gpuc.autodiff.reverse(K.blend, "blend")


def test_shadows_of_windows_are_summed_per_os_thread() -> None:
    # Big enough for native to split the launch over OS threads: a shadow
    # the derivative only adds into (dy: y is read at two places) is summed
    # per OS thread, each but the first into a zeroed copy of the buffer the
    # kernel indexes, added into it after the launch. For arrays that are
    # windows of bigger ones (strides with gaps), that buffer spans the gaps:
    # the elements outside the window must stay as they were, bit for bit
    # (-0.0 included: the sums touch only elements a copy added to), and the
    # adjoints must be those of contiguous arrays.
    rng = np.random.default_rng()
    shape = (190, 200)
    launch = ((13, 48), (16, 4))
    a = float(rng.uniform(0.5, 1.5))
    x, y, w = (rng.uniform(-0.9, 0.9, shape) for _ in range(3))
    d = gpuc.autodiff.reverse(K.blend, target="native")
    dx, dy, da = np.zeros(shape), np.zeros(shape), np.zeros(1)
    out, dout = np.full(shape, np.nan), w.copy()
    d[launch](a, x, dx, y, dy, out, dout, STEPS, da)
    big = [rng.standard_normal((190, 400)) for _ in range(4)]
    bx, bdx, by, bdy = big
    bdx[:, ::3] = bdy[:, ::3] = -0.0  # a sign the executor must not touch
    before = [b.copy() for b in big]
    win = (slice(None), slice(100, 300))
    bx[win], bdx[win], by[win], bdy[win] = x, 0.0, y, 0.0
    wda, wout, wdout = np.zeros(1), np.full(shape, np.nan), w.copy()
    d[launch](a, bx[win], bdx[win], by[win], bdy[win], wout, wdout, STEPS, wda)
    np.testing.assert_allclose(bdx[win], dx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bdy[win], dy, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(wda, da, rtol=1e-12)
    for b, b0 in zip(big, before, strict=True):
        b[win] = b0[win]
        np.testing.assert_array_equal(b.view(np.uint64), b0.view(np.uint64))
