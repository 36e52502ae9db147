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
    )
}


def run(
    example: Example, cfg: Config, launch: Launch, rng: np.random.Generator
) -> None:
    """Prepare, launch and check one configuration of `example`."""
    p = example.prepare(rng, cfg)
    launch(p.kernel, p.grid, p.block, p.args)
    p.check()
