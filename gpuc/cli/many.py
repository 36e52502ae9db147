"""`gpuc compile A.mlir B.mlir ... -j N -o DIR`: several inputs, each
compiled as its own `gpuc compile` with the same options, N at a time in
separate processes (sharing the compile cache), each output written to
`DIR/<input's stem>.<emit>` (the --emit kind, else the --target's artefact,
else `out`). Each input's diagnostics are its own; the exit status is 1 if
any input failed (the others are still written).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gpuc.cli.command import UsageError

VALUED = ("-o", "-j", "--jobs")
"""The options this replaces (and their values) in each input's command."""


def compile_several(
    parser: argparse.ArgumentParser,
    argv: Sequence[str],
    args: argparse.Namespace,
    extra: Sequence[str],
) -> int:
    """Compile `args.file` and the further inputs in `extra`; the exit status.
    Anything in `extra` that is not an input is the parser's error."""
    if args.command != "compile" or any(e.startswith("-") and e != "-" for e in extra):
        parser.parse_args(list(argv))  # raises the usual UsageError
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
    inputs = [args.file, *extra]
    if "-" in inputs:
        raise UsageError("stdin (-) cannot be one of several inputs")
    if args.output in (None, "-"):
        raise UsageError(
            "several inputs: name the directory their outputs go to with -o DIR"
        )
    stems: dict[str, str] = {}
    for name in inputs:
        stem = os.path.splitext(os.path.basename(name))[0]
        if stem in stems:
            raise UsageError(
                f"inputs {stems[stem]} and {name} would both write {stem}.*; "
                "compile them in separate commands"
            )
        stems[stem] = name
    suffix = output_suffix(args)
    try:
        os.makedirs(args.output, exist_ok=True)
    except OSError as e:
        raise UsageError(f"-o {args.output}: {e.strerror or e}") from None
    rest = without(argv, set(inputs))
    commands = {
        name: [*rest, name, "-o", os.path.join(args.output, f"{stem}.{suffix}")]
        for stem, name in stems.items()
    }
    progress = Progress(len(commands)) if sys.stderr.isatty() else None
    status = 0
    if args.jobs <= 1:
        for name, command in commands.items():
            done = compile_one(command, collect=True)
            status = max(status, done)
            if progress is not None:
                progress.step(name, done)
        return status
    from concurrent.futures import ProcessPoolExecutor, as_completed

    sys.stdout.flush()
    sys.stderr.flush()
    with ProcessPoolExecutor(min(args.jobs, len(commands))) as pool:
        futures = {pool.submit(compile_one, c): name for name, c in commands.items()}
        for future in as_completed(futures):
            status = max(status, future.result())
            if progress is not None:
                progress.step(futures[future], future.result())
    return status


class Progress:
    """One line on standard error per input done, in a terminal: how many of
    how many, and which (whole lines, so that a worker's diagnostics printed
    meanwhile never land inside one)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0

    def step(self, name: str, status: int) -> None:
        self.done += 1
        what = "compiled" if status == 0 else "failed"
        sys.stderr.write(f"[{self.done}/{self.total}] {what} {name}\n")
        sys.stderr.flush()


def output_suffix(args: argparse.Namespace) -> str:
    if args.emit:
        return str(args.emit)
    if args.target:
        from gpuc.targets import BrokenTarget, UnknownTarget, target_class

        try:
            return target_class(args.target).artefacts[0]
        except (UnknownTarget, BrokenTarget) as e:
            raise UsageError(f"--target: {e}") from None
    return "out"


def without(argv: Sequence[str], inputs: set[str]) -> list[str]:
    """`argv` less the inputs, `-o`, `-j` and their values."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in VALUED:
            skip = True
        elif arg in inputs or arg.startswith(("-o", "-j", "--jobs=")):
            continue
        else:
            kept.append(arg)
    return kept


def compile_one(argv: list[str], collect: bool = False) -> int:
    """One input's `gpuc compile` (in a worker process, or here, after which
    `collect` frees what it left: the command line runs with the cycle
    collector off, gpuc.cli.client.fewer_collections)."""
    from gpuc.cli.main import main

    status = main(argv)
    if collect:
        import gc

        gc.collect()
    sys.stdout.flush()
    sys.stderr.flush()
    return status
