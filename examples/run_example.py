"""Compile an example kernel, run it on the CPU and check it against numpy.

    python examples/run_example.py saxpy                  # native JIT (default)
    python examples/run_example.py reduce --target spirv  # Intel's OpenCL CPU runtime
    python examples/run_example.py matmul --python        # examples/python/matmul.py

Inputs are fresh random numbers every run (the seed is printed) and outputs
are poisoned first, so an element the kernel did not write fails the check.
Exit status 0 when the results match numpy within the stated tolerance; 1
when they do not, or when the target's executor cannot run here (a message
says what to install).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import EXAMPLES  # noqa: E402

import gpuc  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example", choices=sorted(EXAMPLES))
    from gpuc.targets import target_class, target_names

    runnable = [n for n in target_names() if target_class(n).executor is not None]
    parser.add_argument("--target", default="native", choices=runnable)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--python",
        action="store_true",
        help="run the kernel written in Python (examples/python/) instead",
    )
    args = parser.parse_args(argv)

    example = EXAMPLES[args.example]
    if args.target in example.unsupported:
        print(
            f"{example.name} does not run on {args.target}: "
            f"{example.unsupported[args.target]}"
        )
        return 1
    seed = (
        args.seed
        if args.seed is not None
        else int(np.random.SeedSequence().entropy % 2**32)
    )
    rng = np.random.default_rng(seed)

    start = time.perf_counter()
    source: object = example.path
    if args.python:
        import importlib

        sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
        source = getattr(importlib.import_module(example.name), example.name)
    module = gpuc.compile(source, target=args.target)
    compiled = time.perf_counter()
    for cfg in example.configs:
        prepared = example.prepare(rng, cfg)
        try:
            module.launch(prepared.kernel, prepared.grid, prepared.block, prepared.args)
        except (gpuc.LaunchError, ImportError) as e:
            print(cannot_run(args.target, e), file=sys.stderr)
            return 1
        try:
            prepared.check()
        except AssertionError as e:
            print(
                f"FAIL {example.name} on {args.target} {dict(cfg)} (seed {seed}): {e}"
            )
            return 1
        print(
            f"ok   {example.name} on {args.target} {dict(cfg)}: grid {prepared.grid}, "
            f"block {prepared.block}, matches numpy"
        )
    print(
        f"compiled in {1e3 * (compiled - start):.0f} ms; all {len(example.configs)} "
        f"launches match numpy (seed {seed})"
    )
    return 0


def cannot_run(target: str, error: Exception) -> str:
    """Why the kernel could not be launched on `target` here."""
    message = f"run_example.py: error: cannot run on {target}: {error}"
    if isinstance(error, ImportError):
        message += (
            f"\n  the {target} executor needs a package that is not installed; "
            "gpuc's test extra brings the runtimes (pip install -e '.[test]')"
        )
    return message


if __name__ == "__main__":
    sys.exit(main())
