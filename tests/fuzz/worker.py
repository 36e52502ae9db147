"""A fuzz worker process, and `Runner`, which drives one with a timeout.

The worker reads one JSON request a line on stdin (`{"seed": S, "size": N,
"minimize": true}`), checks that program (`driver.check`) and answers one
JSON line on stdout. A program that hangs a target (a barrier the native
executor never releases, an endless loop in a back-end) is killed with its
worker after `timeout` seconds and reported as `timeout`; the next request
starts a fresh worker.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent


def serve() -> None:
    from . import driver

    checker = driver.Checker()
    out = sys.stdout
    sys.stdout = sys.stderr  # anything else printed must not break the protocol
    try:
        for line in sys.stdin:
            request = json.loads(line)
            seed, size = int(request["seed"]), int(request.get("size", 12))
            checker.targets = tuple(request.get("targets", driver.TARGETS))
            avoid = frozenset(request.get("avoid", ()))
            removed = frozenset(request.get("removed", ()))
            dropped = frozenset(request.get("dropped", ()))
            outcome = driver.check_seed(checker, seed, size, avoid, removed, dropped)
            answer: dict[str, Any] = {
                "seed": seed,
                "invalid": outcome.invalid,
                "findings": [f.__dict__ for f in outcome.findings],
            }
            if outcome.findings and request.get("minimize"):
                first = outcome.findings[0]
                text, library = driver.minimize(checker, seed, first, size, avoid)
                answer["minimized"] = {
                    "target": first.target,
                    "text": text,
                    "library": library,
                }
            if outcome.findings or outcome.invalid:
                answer["text"] = outcome.text
                answer["library"] = outcome.library
            out.write(json.dumps(answer) + "\n")
            out.flush()
    finally:
        checker.close()


class Runner:
    """Sends seeds to a worker process, restarting it after a timeout."""

    def __init__(self, timeout: float = 60.0, nice: int = 0) -> None:
        self.timeout = timeout
        self.nice = nice
        self.proc: subprocess.Popen[str] | None = None
        self.log = tempfile.TemporaryFile("w+")
        """The workers' stderr: what LLVM or a crash printed goes with a finding."""

    def _start(self) -> subprocess.Popen[str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(TESTS), *filter(None, [env.get("PYTHONPATH")])]
        )
        env.setdefault("PYTHONWARNINGS", "ignore")
        cmd = [sys.executable, "-X", "faulthandler", "-m", "fuzz.worker"]
        if self.nice:
            cmd = ["nice", "-n", str(self.nice), *cmd]
        return subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
            cwd=TESTS.parent,
        )

    def check(
        self,
        seed: int,
        size: int = 12,
        minimize: bool = False,
        timeout: float | None = None,
        targets: tuple[str, ...] | None = None,
        avoid: frozenset[str] = frozenset(),
        removed: frozenset[int] = frozenset(),
        dropped: frozenset[str] = frozenset(),
    ) -> dict[str, Any]:
        start = self.log.seek(0, os.SEEK_END)
        answer = self._ask(
            seed, size, minimize, timeout, targets, avoid, removed, dropped
        )
        self.log.seek(start)
        printed = self.log.read()
        self.log.seek(0, os.SEEK_END)
        if answer["findings"] and printed.strip():
            answer["findings"][0]["detail"] += "\nstderr: " + printed[-3000:]
        return answer

    def _ask(
        self,
        seed: int,
        size: int,
        minimize: bool,
        timeout: float | None,
        targets: tuple[str, ...] | None,
        avoid: frozenset[str],
        removed: frozenset[int],
        dropped: frozenset[str],
    ) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        request: dict[str, Any] = {"seed": seed, "size": size, "minimize": minimize}
        if targets is not None:
            request["targets"] = list(targets)
        if avoid:
            request["avoid"] = sorted(avoid)
        if removed or dropped:
            request["removed"], request["dropped"] = sorted(removed), sorted(dropped)
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        limit = (timeout or self.timeout) * (6 if minimize else 1)
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(limit)
        if ready:
            line = proc.stdout.readline()
            if line:
                return dict(json.loads(line))
            status = proc.wait()
            self.proc = None
            return {
                "seed": seed,
                "invalid": None,
                "findings": [
                    {
                        "target": "?",
                        "kind": "crash",
                        "detail": f"the worker died (exit status {status})",
                    }
                ],
            }
        self.close()
        return {
            "seed": seed,
            "invalid": None,
            "findings": [
                {
                    "target": "?",
                    "kind": "timeout",
                    "detail": f"no answer within {limit:.0f} s",
                }
            ],
        }

    def minimize(
        self,
        seed: int,
        size: int,
        avoid: frozenset[str],
        target: str,
        kind: str,
        budget: float = 180.0,
    ) -> str:
        """A smaller program of `seed` that still makes `target` show `kind`,
        one worker request a try: for a crash or a hang, which end the
        worker, so that `driver.minimize` cannot run in it."""
        import time

        from . import driver, generator

        deadline = time.monotonic() + budget
        program = generator.generate(seed, size, avoid)
        count = len(driver.numbered(program))
        names = [f.name for f in program.functions()]
        del count
        removed: set[int] = set()
        dropped: set[str] = set()

        def fails() -> bool:
            self.close()  # a fresh worker: a crash may follow an earlier corruption
            answer = self.check(
                seed,
                size,
                timeout=None,
                targets=(target,),
                avoid=avoid,
                removed=frozenset(removed),
                dropped=frozenset(dropped),
            )
            return any(f["kind"] == kind for f in answer["findings"])

        kernels = {k.name for k in program.kernels}
        for name in names:
            if time.monotonic() > deadline:
                break
            if name in kernels and len(kernels - dropped) == 1:
                continue
            dropped.add(name)
            if not fails():
                dropped.discard(name)
        for i in range(len(driver.numbered(program))):
            if time.monotonic() > deadline:
                break
            removed.add(i)
            if not fails():
                removed.discard(i)
        driver.reduce(program, frozenset(removed), frozenset(dropped))
        return driver.drop_unused_constants(program.text())

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None


if __name__ == "__main__":
    serve()
