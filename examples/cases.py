"""How to launch each example kernel, and what it must compute (numpy).

Used by tests/test_examples_run.py (every executor), bench/opencl_vs_c.py and
bench/device_check.py; needs numpy only, so it also runs on machines where
the compiler is not installed. Every output array is poisoned (NaN, or a
sentinel for integers) before the launch, so an element the kernel failed to
write fails the check; each check states its tolerance and why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
Array = np.ndarray[Any, Any]
Config = Mapping[str, int]
Launch = Callable[[str, tuple[int, ...], tuple[int, ...], Sequence[object]], None]
"""launch(kernel, grid, block, args): what every executor offers."""

INT_POISON = -(2**31) + 7


@dataclass
class Prepared:
    """One launch of an example: inputs made, outputs poisoned, and `check`
    comparing the outputs (in `args`, after the launch) with numpy."""

    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: tuple[object, ...]
    check: Callable[[], None]


@dataclass(frozen=True)
class Example:
    name: str
    prepare: Callable[[np.random.Generator, Config], Prepared]
    configs: tuple[Config, ...]
    """Sizes the tests run: several blocks, sizes that are not multiples."""
    bench: Config
    """A size for benchmarks."""
    unsupported: Mapping[str, str] = field(default_factory=dict)
    """target -> a fragment of the diagnostic compiling for it must give."""

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}.mlir"


def blocks_for(n: int, block: int) -> int:
    return -(-n // block)


def assert_within(got: Array, want: Array, bound: Array | float, what: str) -> None:
    """Elementwise |got - want| <= bound, NaN (an unwritten output) failing."""
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bad = ~(err <= bound)
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        limit = np.broadcast_to(bound, got.shape).ravel()[i]
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {got.size} elements off; first at flat "
            f"index {i}: got {got.ravel()[i]!r}, want {want.ravel()[i]!r} "
            f"(allowed {limit!r})"
        )


def assert_equal(got: Array, want: Array, what: str) -> None:
    if not np.array_equal(got, want):
        bad = np.flatnonzero((got != want).ravel())
        i = int(bad[0])
        raise AssertionError(
            f"{what}: {bad.size} of {got.size} elements differ; first at flat index "
            f"{i}: got {got.ravel()[i]!r}, want {want.ravel()[i]!r}"
        )


def fma_bound(product: Array, want: Array, got: Array) -> Array:
    """How far `got` = a*b+c may be from numpy's `want` = round(round(a*b)+c)
    when the compiler contracts it into an fma (gpuc's default, like nvcc's).
    Exactly: |got - want| <= |got - e1| + |e1 - e2| + |e2 - want|, where e1 =
    a*b+c and e2 = round(a*b)+c are exact; that is half an ulp of got, half an
    ulp of the product `product` = round(a*b), and half an ulp of want."""
    spacing = [np.spacing(np.abs(v.astype(np.float32))) for v in (product, want, got)]
    return (spacing[0] + spacing[1] + spacing[2]).astype(np.float64) / 2


def prepare_saxpy(rng: np.random.Generator, cfg: Config) -> Prepared:
    n, block = cfg["n"], cfg["block"]
    a = np.float32(rng.uniform(0.5, 2)) * rng.choice([-1, 1]).astype(np.float32)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    # y is both input and output: there is nothing to poison, but an unwritten
    # element keeps its input y, which differs from a*x+y as long as a*x != 0.
    x[x == 0] = 1
    product = a * x
    want = product + y

    def check() -> None:
        # Tolerance: a*x+y may be contracted into an fma (see fma_bound).
        assert_within(y, want, fma_bound(product, want, y), "saxpy y")

    return Prepared("saxpy", (blocks_for(n, block),), (block,), (a, x, y, n), check)


def prepare_reduce(rng: np.random.Generator, cfg: Config) -> Prepared:
    n, block = cfg["n"], cfg["block"]
    grid = blocks_for(n, block)
    # Positive inputs keep the sum far from 0, the value of an unwritten out[0].
    x = rng.uniform(0.5, 1.5, n).astype(np.float32)
    # out[0] accumulates (so starts at 0); out[1] is a NaN sentinel that the
    # kernel must leave alone.
    out = np.array([0.0, np.nan], np.float32)
    want = np.sum(x, dtype=np.float64)

    def check() -> None:
        # Tolerance: each term passes through at most log2(block) additions in
        # the block's tree and then `grid` atomic additions in any order, each
        # rounding to f32 (unit roundoff 2^-24); the recursive-summation bound
        # is (that depth) * 2^-24 * sum|x| (Higham, Accuracy and Stability,
        # 4.2). The reference is summed in f64.
        depth = int(np.log2(block)) + grid
        assert_within(
            out[:1], np.array([want]), depth * 2.0**-24 * want, "reduce out[0]"
        )
        if not np.isnan(out[1]):
            raise AssertionError(f"reduce wrote out[1] = {out[1]} past its output")

    return Prepared("reduce", (grid,), (block,), (x, out, n), check)


def prepare_stencil2d(rng: np.random.Generator, cfg: Config) -> Prepared:
    nx, ny, bx, by = cfg["nx"], cfg["ny"], cfg["bx"], cfg["by"]
    grid_in = rng.standard_normal((ny, nx), dtype=np.float32)
    out = np.full((ny, nx), np.nan, np.float32)
    want = grid_in.copy()
    if nx > 2 and ny > 2:
        g = grid_in
        s1 = g[1:-1, :-2] + g[1:-1, 2:]
        s2 = g[:-2, 1:-1] + g[2:, 1:-1]
        want[1:-1, 1:-1] = np.float32(0.5) * g[1:-1, 1:-1] + np.float32(0.125) * (
            s1 + s2
        )

    def check() -> None:
        # Tolerance: none. Both products scale by a power of two (exact), so
        # an fma computes the same value, and the kernel adds in numpy's order.
        assert_equal(out, want, "stencil2d out")

    grid = (blocks_for(nx, bx), blocks_for(ny, by))
    return Prepared("stencil2d", grid, (bx, by), (grid_in, out, nx, ny), check)


def prepare_matmul(rng: np.random.Generator, cfg: Config) -> Prepared:
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    magnitude = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)

    def check() -> None:
        # Tolerance: each element is a k-term dot product accumulated in f32 in
        # order (with or without fma): |error| <= k * 2^-24 * sum|a||b| (Higham,
        # Accuracy and Stability, 3.1), against an f64 reference; +1 for the
        # final rounding.
        assert_within(c, want, (k + 1) * 2.0**-24 * magnitude, "matmul c")

    grid = (blocks_for(n, 16), blocks_for(m, 16))
    return Prepared("matmul", grid, (16, 16), (a, b, c, m, n, k), check)


def prepare_histogram(rng: np.random.Generator, cfg: Config) -> Prepared:
    n, block, grid = cfg["n"], cfg["block"], cfg["grid"]
    data = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    # 256 bins accumulate (so start at 0); a 257th element is a sentinel the
    # kernel must leave alone.
    bins = np.zeros(257, np.int32)
    bins[256] = INT_POISON
    want = np.bincount(data.astype(np.int64) & 255, minlength=256)

    def check() -> None:
        # Tolerance: none (integer counts).
        assert_equal(bins[:256], want.astype(np.int32), "histogram bins")
        if bins[256] != INT_POISON:
            raise AssertionError(f"histogram wrote bins[256] = {bins[256]}")

    return Prepared("histogram", (grid,), (block,), (data, bins, n), check)


def prepare_deferred_helper(rng: np.random.Generator, cfg: Config) -> Prepared:
    n, block = cfg["n"], cfg["block"]
    x = rng.standard_normal(n, dtype=np.float32)
    bias = np.float32(rng.uniform(0.5, 2))
    square = x * x
    want = square + bias
    # x is updated in place; an unwritten element keeps x, which is not
    # x*x + bias for any x (that needs bias <= 1/4).

    def check() -> None:
        # Tolerance: x*x + bias may be contracted into an fma (see fma_bound).
        assert_within(x, want, fma_bound(square, want, x), "deferred_helper x")

    return Prepared(
        "deferred_helper", (blocks_for(n, block),), (block,), (x, bias, n), check
    )


def prepare_deferred_inline(rng: np.random.Generator, cfg: Config) -> Prepared:
    n, block = cfg["n"], cfg["block"]
    x = rng.standard_normal(n, dtype=np.float32)
    y = np.full(n, np.nan, np.float32)
    v = x.astype(np.float64)
    want = (3 * v + 2) * v + 1
    magnitude = 3 * v * v + 2 * np.abs(v) + 1

    def check() -> None:
        # Tolerance: Horner's rule for a degree-2 polynomial in f32, with or
        # without fma: |error| <= gamma_4 * sum |a_i| |x|^i (Higham, Accuracy
        # and Stability, 5.1), gamma_4 = 4u / (1 - 4u) < 5 * 2^-24, against
        # an f64 reference.
        assert_within(y, want, 5 * 2.0**-24 * magnitude, "deferred_inline y")

    return Prepared(
        "deferred_inline", (blocks_for(n, block),), (block,), (x, y, n), check
    )


def prepare_child_launch(rng: np.random.Generator, cfg: Config) -> Prepared:
    n, block = cfg["n"], cfg["block"]
    x = rng.standard_normal(n, dtype=np.float32)
    x[x == 0] = 1  # an unwritten element keeps x, which differs from 2x
    want = 2 * x

    def check() -> None:
        # Tolerance: none (doubling is exact).
        assert_equal(x, want, "child_launch x")

    return Prepared("child_launch", (1,), (block,), (x, n), check)


DEVICE_LAUNCH = "launches a kernel from the device"

EXAMPLES: dict[str, Example] = {
    e.name: e
    for e in (
        Example(
            "saxpy",
            prepare_saxpy,
            (
                {"n": 1, "block": 1},
                {"n": 1000, "block": 256},
                {"n": 4099, "block": 64},
                {"n": 70001, "block": 1024},
            ),
            {"n": 1 << 24, "block": 256},
        ),
        Example(
            "reduce",
            prepare_reduce,
            (
                {"n": 1, "block": 1},
                {"n": 1000, "block": 256},
                {"n": 4099, "block": 64},
                {"n": 3000, "block": 1024},
                {"n": 777, "block": 2},
            ),
            {"n": 1 << 22, "block": 256},
        ),
        Example(
            "stencil2d",
            prepare_stencil2d,
            (
                {"nx": 1, "ny": 1, "bx": 16, "by": 16},
                {"nx": 37, "ny": 23, "bx": 16, "by": 16},
                {"nx": 64, "ny": 64, "bx": 32, "by": 8},
                {"nx": 101, "ny": 3, "bx": 5, "by": 3},
            ),
            {"nx": 4096, "ny": 4096, "bx": 16, "by": 16},
        ),
        Example(
            "matmul",
            prepare_matmul,
            (
                {"m": 1, "n": 1, "k": 1},
                {"m": 16, "n": 16, "k": 16},
                {"m": 37, "n": 29, "k": 45},
                {"m": 64, "n": 48, "k": 100},
            ),
            {"m": 512, "n": 512, "k": 512},
        ),
        Example(
            "histogram",
            prepare_histogram,
            (
                {"n": 1, "block": 1, "grid": 1},
                {"n": 1000, "block": 256, "grid": 4},
                {"n": 5000, "block": 64, "grid": 7},
                {"n": 777, "block": 100, "grid": 3},
                {"n": 100_000, "block": 256, "grid": 8},
            ),
            {"n": 1 << 24, "block": 256, "grid": 64},
        ),
        Example(
            "deferred_helper",
            prepare_deferred_helper,
            (
                {"n": 1, "block": 1},
                {"n": 1000, "block": 256},
                {"n": 4099, "block": 96},
            ),
            {"n": 1 << 24, "block": 256},
        ),
        Example(
            "deferred_inline",
            prepare_deferred_inline,
            (
                {"n": 1, "block": 1},
                {"n": 1000, "block": 256},
                {"n": 4099, "block": 96},
            ),
            {"n": 1 << 24, "block": 256},
        ),
        Example(
            "child_launch",
            prepare_child_launch,
            (
                {"n": 1, "block": 1},
                {"n": 1000, "block": 1},
                {"n": 70001, "block": 32},
            ),
            {"n": 1 << 24, "block": 1},
            unsupported={
                "native": DEVICE_LAUNCH,
                "spirv": DEVICE_LAUNCH,
                "amdgpu": DEVICE_LAUNCH,
            },
        ),
    )
}


def run(
    example: Example, cfg: Config, launch: Launch, rng: np.random.Generator
) -> None:
    """Prepare, launch and check one configuration of `example`."""
    p = example.prepare(rng, cfg)
    launch(p.kernel, p.grid, p.block, p.args)
    p.check()
