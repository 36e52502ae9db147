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


def fma_bound(product: Array, result: Array) -> Array:
    """How far a*b+c may be from numpy's two-rounding value when the compiler
    contracts it into an fma (gpuc's default, like nvcc's): the fma skips the
    rounding of a*b (half an ulp of it) and rounds the sum once (half an ulp
    of the result)."""
    return np.spacing(np.abs(product)) / 2 + np.spacing(np.abs(result)) / 2


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
        assert_within(y, want, fma_bound(product, want), "saxpy y")

    return Prepared("saxpy", (blocks_for(n, block),), (block,), (a, x, y, n), check)


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
    )
}


def run(
    example: Example, cfg: Config, launch: Launch, rng: np.random.Generator
) -> None:
    """Prepare, launch and check one configuration of `example`."""
    p = example.prepare(rng, cfg)
    launch(p.kernel, p.grid, p.block, p.args)
    p.check()
