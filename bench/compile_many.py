"""`gpuc.compile_many` over 20 small variants as a user's script calls it
(issue 27): each mode in a fresh process that has imported gpuc and nothing
else, timing the call alone, as medians of interleaved rounds.

- serial: `jobs=1`, one variant after another in the calling process.
- default: no `executor`, no `jobs`: what gpuc picks.
- pool: a process pool of one worker per core, started for the call.
- warm pool: the same pool kept across calls (a sweep): the timed call is
  the second one on it.

The compile cache is off (GPUC_CACHE=0): every variant compiles. Goal: the
default never slower than serial.

    python bench/compile_many.py [--rounds 3] [--variants 20] [--target ptx]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A saxpy whose constant differs per variant, so that no two are one compile.
KERNEL = """
gpuc.func @scaled(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                  %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %k = arith.constant SCALE : f32
    %r = arith.mulf %k, %xi : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

RUN = """
import json, sys, time
import gpuc
from concurrent.futures import ProcessPoolExecutor
mode, count, target, kernel = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
todo = [
    {"source": kernel.replace("SCALE", f"{i + 1}.5"), "target": target}
    for i in range(count)
]
if mode == "warm pool":
    pool = ProcessPoolExecutor()
    gpuc.compile_many(todo, executor=pool)  # untimed: starts the workers
start = time.perf_counter()
if mode == "serial":
    gpuc.compile_many(todo, jobs=1)
elif mode == "default":
    gpuc.compile_many(todo)
elif mode == "pool":
    with ProcessPoolExecutor() as fresh:
        gpuc.compile_many(todo, executor=fresh)
else:
    gpuc.compile_many(todo, executor=pool)
print(json.dumps(time.perf_counter() - start))
"""

MODES = ("serial", "default", "pool", "warm pool")


def measure(mode: str, count: int, target: str) -> float:
    env = {**os.environ, "GPUC_CACHE": "0"}
    out = subprocess.run(
        [sys.executable, "-c", RUN, mode, str(count), target, KERNEL],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", type=int, default=20)
    parser.add_argument("--target", default="ptx")
    args = parser.parse_args()
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            times[mode].append(measure(mode, args.variants, args.target))
    print(
        f"compile_many, {args.variants} small {args.target} variants, "
        f"{os.cpu_count()} cores, median of {args.rounds} rounds (seconds):"
    )
    serial = statistics.median(times["serial"])
    for mode in MODES:
        median = statistics.median(times[mode])
        spread = ", ".join(f"{t:.2f}" for t in times[mode])
        print(f"  {mode:10s} {median:6.2f}  ({serial / median:.2f}x serial; {spread})")


if __name__ == "__main__":
    main()
