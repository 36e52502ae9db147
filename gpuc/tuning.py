"""`gpuc.autotune`: compile variants of a kernel, time each on its target's
executor, keep the fastest (as Triton's `@triton.autotune` does), and
remember the choice in the compile cache.

A variant is a mapping of `gpuc.compile`'s arguments, plus how to launch
it: `block`, and `grid` (or the call's `over=n`, which gives the grid
`gpuc.blocks(n, block)`), and optionally `shared`. The variants compile
through `compile_each` (in parallel where that is faster), then each runs
`warmup` launches and `runs` timed ones on a stream of its own, timed by the
stream's events (the device's clock; on native, the host's), and the median
counts. The choice is stored under the variants, the kernel, the arguments'
shapes and dtypes and integer values, gpuc's version and the machine: a later
call with the same finds it and compiles (from the cache) the chosen variant
alone. docs/autotune.md.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpuc.runtime.args import LaunchError

if TYPE_CHECKING:
    from concurrent.futures import Executor as PoolExecutor

    from gpuc.api import Module

LAUNCH_KEYS = ("grid", "block", "shared")
"""A variant's keys that say how to launch it rather than how to compile it."""
FORMAT = 1
"""The stored choice's format; a change makes every old choice a miss."""


@dataclass
class Tuned:
    """The fastest variant: its module, and its kernel configured as timed
    (`tuned(*args)` launches it)."""

    module: Module
    kernel: str
    index: int
    """The chosen variant's position among the variants."""
    variant: dict[str, Any]
    grid: object
    block: object
    shared: object = 0
    times_ms: list[float | None] = field(default_factory=list)
    """Each variant's median launch time, None where it failed; empty when
    the choice came from the cache."""
    errors: dict[int, Exception] = field(default_factory=dict)
    """Why a variant was left out: its compile's or its launch's error."""
    cached: bool = False
    """The choice came from the cache: nothing was timed."""

    def __call__(self, *args: object, stream: Any = None) -> None:
        self.module.launch(
            self.kernel, self.grid, self.block, args, stream=stream, shared=self.shared
        )


def autotune(
    variants: Sequence[Mapping[str, Any]],
    kernel: str,
    args: Sequence[object],
    *,
    over: object = None,
    warmup: int = 1,
    runs: int = 5,
    cache: bool | None = None,
    executor: PoolExecutor | None = None,
    jobs: int | None = None,
) -> Tuned:
    """The fastest of `variants` at launching `kernel` on `args` (the
    arguments every variant takes; what the kernel writes is written `warmup
    + runs` times per variant). `over`: the problem size that gives each
    variant's grid from its block, for variants without a `grid`. `cache`:
    use the stored choice and store this one (default: GPUC_CACHE)."""
    from gpuc.api import compile, compile_each
    from gpuc.cache import store as compile_cache

    if not variants:
        raise LaunchError(f"autotune '{kernel}': no variants to choose from")
    if warmup < 0 or runs < 1:
        raise LaunchError(
            f"autotune '{kernel}': warmup is at least 0 and runs at least 1, got "
            f"warmup={warmup}, runs={runs}"
        )
    splits = [_split(kernel, i, variant, over) for i, variant in enumerate(variants)]
    store = compile_cache.Cache() if compile_cache.enabled(cache) else None
    key = _key(kernel, splits, args)
    if store is not None:
        stored = store.get_bytes("autotune", key)
        choice = json.loads(stored) if stored is not None else None
        if isinstance(choice, dict) and choice.get("index", -1) in range(len(splits)):
            index = int(choice["index"])
            built, launch = splits[index]
            return _tuned(
                compile(**built), kernel, index, variants, launch, cached=True
            )
    times: list[float | None] = [None] * len(splits)
    errors: dict[int, Exception] = {}
    modules: dict[int, Module] = {}
    for index, outcome in compile_each(
        [built for built, _ in splits], executor=executor, jobs=jobs
    ):
        if isinstance(outcome, Exception):
            errors[index] = outcome
            continue
        modules[index] = outcome
        try:
            times[index] = _time(outcome, kernel, splits[index][1], args, warmup, runs)
        except LaunchError as error:
            errors[index] = error
    timed = [i for i, t in enumerate(times) if t is not None]
    if not timed:
        reasons = "; ".join(f"variant {i}: {e}" for i, e in sorted(errors.items()))
        raise LaunchError(f"autotune '{kernel}': no variant ran ({reasons})")
    best = min(timed, key=lambda i: times[i] or 0.0)
    if store is not None:
        store.put_bytes("autotune", key, json.dumps({"index": best}).encode())
    tuned = _tuned(modules[best], kernel, best, variants, splits[best][1])
    tuned.times_ms, tuned.errors = times, errors
    return tuned


def _split(
    kernel: str, index: int, variant: Mapping[str, Any], over: object
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A variant's compile arguments and its launch (grid, block, shared)."""
    from gpuc.api import blocks

    built = {k: v for k, v in variant.items() if k not in LAUNCH_KEYS}
    launch = {k: variant[k] for k in LAUNCH_KEYS if k in variant}
    if "block" not in launch:
        raise LaunchError(f"autotune '{kernel}': variant {index} needs a 'block'")
    if "grid" not in launch:
        if over is None:
            raise LaunchError(
                f"autotune '{kernel}': variant {index} has no 'grid': give it one, "
                "or pass over=n (the grid is then gpuc.blocks(n, block))"
            )
        launch["grid"] = blocks(over, launch["block"])
    return built, launch


def _time(
    module: Module,
    kernel: str,
    launch: Mapping[str, Any],
    args: Sequence[object],
    warmup: int,
    runs: int,
) -> float:
    """The median of `runs` launches' times in milliseconds, after `warmup`."""
    stream = module.stream()
    configured = module[kernel][
        launch["grid"], launch["block"], stream, launch.get("shared", 0)
    ]
    for _ in range(warmup):
        configured(*args)
    times: list[float] = []
    for _ in range(runs):
        start = stream.record()
        configured(*args)
        end = stream.record()
        end.synchronize()
        times.append(end.elapsed_ms(start))
    return statistics.median(times)


def _tuned(
    module: Module,
    kernel: str,
    index: int,
    variants: Sequence[Mapping[str, Any]],
    launch: Mapping[str, Any],
    cached: bool = False,
) -> Tuned:
    return Tuned(
        module,
        kernel,
        index,
        dict(variants[index]),
        launch["grid"],
        launch["block"],
        launch.get("shared", 0),
        cached=cached,
    )


def _key(
    kernel: str, splits: Sequence[tuple[dict[str, Any], dict[str, Any]]], args: Any
) -> str:
    """What a stored choice is under: the variants (a source path by its
    content), the kernel, the arguments, gpuc's version and the machine."""
    from gpuc.cache import store as compile_cache

    described = []
    for built, launch in splits:
        parts = {k: _source(v) if k == "source" else v for k, v in built.items()}
        described.append(repr(sorted({**parts, **launch}.items(), key=str)))
    return compile_cache.digest(
        "autotune",
        FORMAT,
        compile_cache.compiler_version(),
        compile_cache.host(),
        kernel,
        tuple(described),
        tuple(_argument(a) for a in args),
    )


def _source(source: object) -> object:
    """A source as what it compiles: a file's bytes, or the text."""
    if isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source and os.path.isfile(source)
    ):
        try:
            with open(source, "rb") as f:
                return f.read()
        except OSError:
            return str(source)
    return source


def _argument(value: object) -> object:
    """What of an argument decides a variant's speed: an array's shape and
    dtype, an integer's value (a size), a float's type."""
    import numpy as np

    if isinstance(value, bool | np.bool_):
        return ("bool", bool(value))
    if isinstance(value, int | np.integer):
        return ("int", int(value))
    shape = getattr(value, "shape", None)
    if shape is not None and not isinstance(value, np.generic):
        return ("array", tuple(shape), str(getattr(value, "dtype", "")))
    return (type(value).__name__,)
