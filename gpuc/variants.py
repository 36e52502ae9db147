"""How `gpuc.compile_many` and `gpuc.compile_each` run a batch of variants:
on the caller's executor, on a pool of `jobs` workers, or, by default, where
it is fastest.

The default compiles the first two variants in the calling process: the
first pays the compiler's imports and first-use costs, the second shows
what one more variant costs once they are paid. The rest go to a process
pool only when it is estimated to finish sooner than going on here; the pool
is then kept for later calls (a sweep's next batch pays no start-up). Forked
from a process that has just compiled, its workers start warm; where workers
start fresh (spawn, forkserver), each pays the first variant's cost again,
which the estimate counts. docs/server.md.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Executor as PoolExecutor

    from gpuc.api import Module

Outcome = tuple[int, "Module | Exception"]
"""A variant's index and its Module, or the error its compile raised."""

FORK_START_SECONDS = 0.2
"""What starting a forked pool and shipping its first Module back costs,
about (bench/compile_many.py's warm pool against its serial run)."""
TASK_SECONDS = 0.03
"""What each variant costs on a pool besides its compile: submitting it,
pickling its Module back (measured on 2 cores: a 32 ms ptx variant took
60 ms of a worker's time)."""
MARGIN = 0.75
"""The pool is chosen only when estimated to take at most this part of the
time here: an estimate that is off must not make the default slower."""
_kept: tuple[int, ProcessPoolExecutor] | None = None


def target_weight(name: str) -> int:
    """How much more a variant for target `name` costs than others, roughly
    (`Target.compile_weight`; 0 for a target gpuc does not know)."""
    from gpuc.targets import DEFAULT_TARGET, UnknownTarget, target_class

    try:
        return target_class(name or DEFAULT_TARGET).compile_weight
    except UnknownTarget:
        return 0


def longest_first(variants: Sequence[Mapping[str, Any]]) -> list[int]:
    """The order to hand `variants` to a pool: most expensive first by a rough
    cost (optimization level times the target's weight), so that what is left
    at the end when workers run out of work is short. Submitted in the given
    order, a native -O3 variant last ran alone for a quarter of the call."""

    def cost(i: int) -> float:
        v = variants[i]
        level = v.get("opt_level", 3)
        weight = target_weight(str(v.get("target") or ""))
        return (1 + weight) * (1 + (level if isinstance(level, int) else 3))

    return sorted(range(len(variants)), key=lambda i: -cost(i))


def checked_variants(variants: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The variants as dicts, or an OptionError for one without a source that
    can go to another process."""
    todo = [dict(variant) for variant in variants]
    for i, variant in enumerate(todo):
        source = variant.get("source")
        if not isinstance(source, str | os.PathLike):
            from gpuc.driver import OptionError

            raise OptionError(
                f"compile_many: variant {i} needs a 'source' (a path or MLIR "
                f"text; a module object does not go to another process), got "
                f"{type(source).__name__}"
            )
    return todo


def each(
    todo: list[dict[str, Any]],
    executor: PoolExecutor | None = None,
    jobs: int | None = None,
) -> Iterator[Outcome]:
    """Each variant's outcome as it completes."""
    order = longest_first(todo)
    if executor is not None:
        yield from _on(executor, todo, order)
        return
    if jobs is not None:
        workers = min(jobs, len(todo))
        if workers <= 1:
            yield from (_here(todo, i) for i in order)
            return
        with ProcessPoolExecutor(workers) as pool:
            yield from _on(pool, todo, order)
        return
    if _kept is not None:
        yield from _on(_kept[1], todo, order, ship_environment=True)
        return
    yield from _adaptive(todo, order)


def _adaptive(todo: list[dict[str, Any]], order: list[int]) -> Iterator[Outcome]:
    """Two variants here, then the rest here or on a kept pool, whichever is
    estimated to take less time."""
    costs: list[float] = []
    for i in order[:2]:
        start = time.perf_counter()
        yield _here(todo, i)
        costs.append(time.perf_counter() - start)
    rest = order[2:]
    if not rest:
        return
    workers = min(os.cpu_count() or 1, len(rest))
    here = len(rest) * costs[-1]
    forked = multiprocessing.get_start_method() == "fork"
    start_up = FORK_START_SECONDS if forked else FORK_START_SECONDS + costs[0]
    parallel = min(workers, _idle_cores())
    pooled = start_up + len(rest) * (costs[-1] + TASK_SECONDS) / max(1, parallel)
    if workers <= 1 or pooled > MARGIN * here:
        yield from (_here(todo, i) for i in rest)
        return
    yield from _on(_kept_pool(workers), todo, rest, ship_environment=True)


def _idle_cores() -> float:
    """How many cores a pool would get: the cores less the other work in the
    run queue (the load average counts this process too)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system
        return cores
    return max(1.0, min(cores, cores - load + 1))


def _kept_pool(workers: int) -> ProcessPoolExecutor:
    global _kept
    if _kept is None or _kept[0] != workers:
        _kept = (workers, ProcessPoolExecutor(workers))
    return _kept[1]


def shutdown() -> None:
    """Stop the pool the default keeps between calls, if it started one."""
    global _kept
    if _kept is not None:
        _kept[1].shutdown()
        _kept = None


def _here(todo: list[dict[str, Any]], i: int) -> Outcome:
    try:
        return i, compile_variant(todo[i])
    except Exception as error:
        return i, error


def _on(
    executor: PoolExecutor,
    todo: list[dict[str, Any]],
    order: Sequence[int],
    ship_environment: bool = False,
) -> Iterator[Outcome]:
    """The variants of `order` on `executor`, as they complete. A kept pool's
    workers were forked earlier: each variant takes this process's GPUC_*
    variables and working directory along, as a fresh worker would have."""
    futures: dict[Future[Module], int] = {}
    for i in order:
        if ship_environment:
            env = {k: v for k, v in os.environ.items() if k.startswith("GPUC_")}
            future = executor.submit(_compile_with, todo[i], env, os.getcwd())
        else:
            future = executor.submit(compile_variant, todo[i])
        futures[future] = i
    pending = set(futures)
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                error = future.exception()
                if error is None:
                    yield futures[future], future.result()
                else:
                    yield futures[future], error  # type: ignore[misc]
    finally:
        for future in pending:  # the caller stopped iterating
            future.cancel()


def compile_variant(variant: dict[str, Any]) -> Module:
    """One variant, in a worker (a top-level function: workers import it)."""
    from gpuc.api import compile

    return compile(**variant)


def _compile_with(variant: dict[str, Any], env: dict[str, str], cwd: str) -> Module:
    for name in [k for k in os.environ if k.startswith("GPUC_") and k not in env]:
        del os.environ[name]
    os.environ.update(env)
    os.chdir(cwd)
    return compile_variant(variant)
