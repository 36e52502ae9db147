"""`gpuc run FILE`: the command line of the host runner (gpuc/host/runner.py),
which runs the module's host code in a thread of its own so that Ctrl-C ends
the command at once."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from gpuc.cli.command import UsageError
from gpuc.diagnostics import decode_source
from gpuc.host.runner import parse_host_module, run_host
from gpuc.targets import BrokenTarget, UnknownTarget, target_class


def run_command(path: str, target: str, entry: str) -> None:
    """`gpuc run PATH --target T --entry NAME` (PATH `-`: stdin)."""
    try:
        target_class(target)
    except (UnknownTarget, BrokenTarget) as e:
        raise UsageError(f"--target: {e}") from None
    if path == "-":
        text = decode_source(sys.stdin.buffer.read(), "<stdin>", "input")
        module = parse_host_module(text, "<stdin>")
    elif not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    else:
        module = parse_host_module(path)
    interruptible(lambda: run_host(module, target, entry=entry))


def interruptible(call: Callable[[], object]) -> None:
    """`call()` run in a thread of its own and waited for here, so that
    Ctrl-C ends the command at once even while a native kernel runs (JIT
    code, which never returns to the interpreter where Python's SIGINT
    handler would run): the KeyboardInterrupt is raised here, in the main
    thread; the command ends with status 130, and the process ends with it
    (gpuc.cli.client.exit_now), the runaway thread included. Its errors are
    raised here as its own."""
    import threading

    failed: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as e:
            failed.append(e)

    worker = threading.Thread(target=run, name="gpuc-run", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.25)
    if failed:
        raise failed[0]
