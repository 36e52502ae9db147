"""The native executor's construction in a fresh process, with its JIT object
cache off, cold (compile, then store) and warm (load the stored object).

    python bench/native_jit_cache.py [--repeat N] [example ...]

Each measurement is a new Python process that compiles the example (the
compile cache off, so only the executor differs) and times `Module.executor`
(parse the IR, link the glue, then MCJIT's code generation or the cached
object). Medians over `--repeat` processes per variant, interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
import gpuc
m = gpuc.compile(sys.argv[1], target="native", cache=False)
start = time.perf_counter()
ex = m.executor
print(json.dumps({"seconds": time.perf_counter() - start, "jit": ex.jit_cache}))
"""


def construct(example: Path, directory: str, enabled: bool) -> tuple[float, str]:
    env = dict(os.environ, GPUC_CACHE_DIR=directory, GPUC_CACHE="1" if enabled else "0")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(example)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return float(found["seconds"]), str(found["jit"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("examples", nargs="*", default=["saxpy", "matmul", "reduce"])
    args = parser.parse_args()
    print("executor construction in a fresh process (median ms)")
    print(f"{'example':12} {'cache off':>10} {'cold':>10} {'warm':>10} {'warm/off':>9}")
    for name in args.examples:
        example = ROOT / "examples" / f"{name}.mlir"
        times: dict[str, list[float]] = {"off": [], "cold": [], "warm": []}
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as directory:
                times["off"].append(construct(example, directory, False)[0])
                cold, how = construct(example, directory, True)
                assert how == "miss", how
                times["cold"].append(cold)
                warm, how = construct(example, directory, True)
                assert how == "hit", how
                times["warm"].append(warm)
        m = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(
            f"{name:12} {m['off']:10.1f} {m['cold']:10.1f} {m['warm']:10.1f} "
            f"{m['warm'] / m['off']:9.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
