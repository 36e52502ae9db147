"""Differential fuzzing of gpuc: random valid kernels compiled for native,
spirv and ptx, run on the native executor and Intel's OpenCL CPU runtime
against tests/fuzz's reference interpreter, and validated by ptxas.

    python bench/fuzz.py --count 2000 --seed S [--size N] [--timeout T]

Program i has seed S + i; a finding prints that seed, what disagreed and a
minimized program (rerun one with `--seed SEED --count 1`). A program that
crashes or hangs a worker is retried per target to say which one. The last
line sums up: programs checked, findings by target and kind.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fuzz.generator import KNOWN  # noqa: E402
from fuzz.worker import Runner  # noqa: E402

TARGETS = ("native", "spirv", "ptx")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--size", type=int, default=12, help="statements per kernel, about (default 12)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds one program may take (default 60)",
    )
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument(
        "--avoid",
        default="",
        help="comma-separated known bugs not to generate, or "
        "'known' for all of them: " + ", ".join(KNOWN),
    )
    args = parser.parse_args()
    avoid = frozenset(
        KNOWN if args.avoid == "known" else filter(None, args.avoid.split(","))
    )
    unknown = avoid - set(KNOWN)
    if unknown:
        parser.error(f"--avoid: no known bug named {', '.join(sorted(unknown))}")
    runner = Runner(timeout=args.timeout)
    findings: Counter[tuple[str, str]] = Counter()
    invalid = 0
    start = time.monotonic()
    try:
        for seed in range(args.seed, args.seed + args.count):
            answer = runner.check(
                seed, args.size, minimize=not args.no_minimize, avoid=avoid
            )
            if answer.get("invalid"):
                invalid += 1
                print(
                    f"seed {seed}: the generator made an invalid program: "
                    f"{answer['invalid']}",
                    flush=True,
                )
            found = answer["findings"]
            if found and found[0]["target"] == "?":  # crashed or hung: whose?
                found = []
                for target in TARGETS:
                    alone = runner.check(
                        seed, args.size, targets=(target,), avoid=avoid
                    )
                    for f in alone["findings"]:
                        f["target"] = target if f["target"] == "?" else f["target"]
                        found.append(f)
            for f in found:
                findings[(f["target"], f["kind"])] += 1
                print(
                    f"seed {seed}: {f['target']} {f['kind']}:\n  "
                    + f["detail"].replace("\n", "\n  "),
                    flush=True,
                )
            if found and "minimized" in answer:
                m = answer["minimized"]
                print(f"seed {seed}: minimized program ({m['target']}):\n{m['text']}")
                if m["library"]:
                    print(f"library:\n{m['library']}")
            elif found and not args.no_minimize:  # a crash or a hang
                f = found[0]
                text = runner.minimize(seed, args.size, avoid, f["target"], f["kind"])
                print(
                    f"seed {seed}: minimized program ({f['target']} "
                    f"{f['kind']}):\n{text}"
                )
            done = seed - args.seed + 1
            if done % 50 == 0:
                print(
                    f"... {done} programs, {sum(findings.values())} findings, "
                    f"{time.monotonic() - start:.0f} s",
                    flush=True,
                )
    finally:
        runner.close()
    summary = ", ".join(f"{t} {k}: {n}" for (t, k), n in sorted(findings.items()))
    print(
        f"fuzz: {args.count} programs (seeds {args.seed}..{args.seed + args.count - 1}"
        f", size {args.size}, avoiding "
        f"{', '.join(sorted(avoid)) or 'nothing'}) "
        f"in {time.monotonic() - start:.0f} s; "
        f"{invalid} invalid; findings: {summary or 'none'}"
    )
    return 1 if findings or invalid else 0


if __name__ == "__main__":
    sys.exit(main())
