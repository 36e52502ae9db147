"""Async GPU work of host code: each independent token chain on its own stream.

MLIR's `gpu.launch_func async [%t]`, `gpu.memcpy async`, `gpu.wait async`
and friends return `!gpu.async.token`s; its CUDA and ROCm runtimes give an op
without dependencies a new stream, an op with dependencies the stream of the
first (waiting for the others' events), and `gpu.wait [%t...]` synchronizes
the tokens' streams (everything queued on them so far). gpuc's host runner
does the same: a token is a `Token` naming its `Chain` and the future of the
work it stands for; a chain is a stream of the kernels' executor
(`mod.stream()`) and one worker thread that runs the chain's work in order,
so that work on two chains runs at the same time, as two CUDA streams'
kernels do (the native executor calls into JIT code without the GIL; an
OpenCL queue per chain runs beside the others).

A chain's failure is sticky: the work queued on it after a failed launch
fails with the same error, and `wait` raises it (the first error of the
tokens waited for). The end of the host function waits for every chain's
work (`finish`), and so does an error leaving it (`drain`): a kernel that
spins forever keeps `gpuc run` from ending, as it keeps a CUDA program.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

Work = Callable[[Any], None]
"""What runs on a chain, given the chain's stream (None: the default one)."""


@dataclass(eq=False)
class Chain:
    """An in-order stream of async work, run by a worker thread of its own
    while it has work (so that a program making many chains holds no idle
    threads)."""

    stream: Any
    _work: deque[tuple[Future[None], Work, list[Future[None]]]] = field(
        default_factory=deque
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _running: bool = False
    _failed: BaseException | None = None
    _last: Future[None] | None = None
    """The latest work queued (the chain runs in order: once it is done, all
    queued so far is)."""

    def submit(self, work: Work, after: Sequence[Future[None]] = ()) -> Future[None]:
        """Queue `work` to run once the chain's earlier work and `after` are
        done; the future of its completion."""
        done: Future[None] = Future()
        with self._lock:
            self._work.append((done, work, list(after)))
            self._last = done
            if not self._running:
                self._running = True
                threading.Thread(
                    target=self._run, name="gpuc-host-stream", daemon=True
                ).start()
        return done

    def queued(self) -> Future[None]:
        """The completion of all the work queued on the chain so far."""
        with self._lock:
            return self._last or DONE

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._work:
                    self._running = False
                    return
                done, work, after = self._work.popleft()
            try:
                for future in after:
                    future.result()
                if self._failed is not None:
                    raise self._failed
                work(self.stream)
            except BaseException as error:  # noqa: BLE001 - handed to the waiter
                self._failed = self._failed or error
                done.set_exception(error)
            else:
                done.set_result(None)


DONE: Future[None] = Future()
DONE.set_result(None)


@dataclass(frozen=True, eq=False)
class Token:
    """An `!gpu.async.token`: the chain its work went to, and that work."""

    chain: Chain
    done: Future[None] = DONE


class Streams:
    """The chains of one run of host code, on the streams `new_stream` makes
    (the kernels' executor's; None where there are no kernels)."""

    def __init__(self, new_stream: Callable[[], Any]) -> None:
        self.new_stream = new_stream
        self.pending: list[Future[None]] = []

    def token(self, dependencies: Iterable[Any]) -> Token:
        """`gpu.wait async [deps]`: a token done when its dependencies are,
        on the first one's chain (on a new chain without any)."""
        deps = tokens(dependencies)
        if len(deps) == 1:
            return deps[0]
        if not deps:
            return Token(Chain(self.new_stream()))
        return self.submit(deps, lambda _: None)

    def submit(self, dependencies: Iterable[Any], work: Work) -> Token:
        """Async work after `dependencies`: queued on the first one's chain
        (a new chain without any), waiting for the others."""
        deps = tokens(dependencies)
        chain = deps[0].chain if deps else Chain(self.new_stream())
        after = [d.done for d in deps if d.chain is not chain]
        done = chain.submit(work, after)
        self.pending.append(done)
        return Token(chain, done)

    def drain(self) -> None:
        """Wait for every chain's work, its errors ignored: before an error
        leaves the run, so that no kernel still writes the program's arrays
        (nor runs as the process exits)."""
        pending, self.pending = self.pending, []
        for future in pending:
            future.exception()

    def finish(self) -> None:
        """Wait for every chain's work (at the end of the host function);
        raise the first error, which no `gpu.wait` raised."""
        pending, self.pending = self.pending, []
        _raise_first(pending)


def tokens(values: Iterable[Any]) -> list[Token]:
    """The gpu tokens among `values` (async.execute's tokens are None: their
    work has run)."""
    return [v for v in values if isinstance(v, Token)]


def wait(dependencies: Iterable[Any]) -> None:
    """`gpu.wait [deps]`: block until the streams of the tokens have done all
    the work queued on them so far, as MLIR's lowering synchronizes each
    token's stream (`mgpuStreamSynchronize`): a token stands for its stream,
    so work queued after `%t = gpu.wait async` with `[%t]` is waited for by
    `gpu.wait [%t]`. Raise the first error among them."""
    _raise_first([token.chain.queued() for token in tokens(dependencies)])


def _raise_first(futures: Iterable[Future[None]]) -> None:
    errors = [e for e in (f.exception() for f in futures) if e is not None]
    if errors:
        raise errors[0]
