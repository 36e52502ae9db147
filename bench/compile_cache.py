"""The compile cache, measured side by side in one run (interleaved rounds,
medians):

- first: `gpuc compile examples/saxpy.mlir --target ptx -o ...` as a whole
  process on an empty cache (every stage runs; the entries are written);
- second: the same command, a new process, on the cache the first filled;
- no cache: the same with GPUC_CACHE=0, for reference;
- `nvcc -ptx` on the same kernel in CUDA C, where nvcc exists.

Goals: second at most 0.5x first, and below nvcc -ptx. Then a cache hit with
`--dump-dir`: its directory must hold every stage (the dialect passes, the LLVM
IR translated, linked and optimized, the PTX), each file as the miss wrote it.

    python bench/compile_cache.py [--rounds 11]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "examples" / "saxpy.mlir"
SAXPY_CU = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)(long)n) y[i] = a * x[i] + y[i];
}
"""


def timed(argv: Sequence[str], env: dict[str, str]) -> float:
    """Milliseconds `argv` took as a process (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def expected_stages() -> list[str]:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.transforms.gpuc_pipeline import GpucPipeline

    # saxpy has nothing to import: the pipeline leaves the import's passes out
    names = ["parse", *(p.name for p in GpucPipeline().passes(ModuleOp([])))]
    names += ["translate", "link", "optimize", "emit"]
    exts = {"translate": "ll", "link": "ll", "optimize": "ll", "emit": "ptx"}
    return [f"{i:02d}-{n}.{exts.get(n, 'mlir')}" for i, n in enumerate(names)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    gpuc = shutil.which("gpuc") or str(Path(sys.executable).parent / "gpuc")
    nvcc = shutil.which("nvcc")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "saxpy.ptx")
        command = [gpuc, "compile", str(SAXPY), "--target", "ptx", "-o", out]
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("GPUC_")}
        off = {**base_env, "GPUC_CACHE": "0"}
        cu = Path(tmp) / "saxpy.cu"
        cu.write_text(SAXPY_CU)
        nvcc_command = [nvcc or "nvcc", "-ptx", "-arch=sm_90", str(cu), "-o", out]
        times: dict[str, list[float]] = {
            "first": [],
            "second": [],
            "off": [],
            "nvcc": [],
        }
        timed(command, off)  # warm the file-system cache
        if nvcc:
            timed(nvcc_command, base_env)
        reference = subprocess.run(
            command[:-2] + ["--no-cache"], check=True, capture_output=True, env=off
        ).stdout
        for r in range(args.rounds):
            env = {**base_env, "GPUC_CACHE_DIR": os.path.join(tmp, f"cache{r}")}
            times["first"].append(timed(command, env))
            first = Path(out).read_bytes()
            times["second"].append(timed(command, env))
            second = Path(out).read_bytes()
            if not first == second == reference:
                sys.exit("error: a cached compile's PTX differs from a fresh one")
            times["off"].append(timed(command, off))
            if nvcc:
                times["nvcc"].append(timed(nvcc_command, base_env))
        med = {k: statistics.median(v) for k, v in times.items() if v}
        print(f"saxpy --target ptx, whole process, median of {args.rounds} rounds:")
        print(f"  first, empty cache       {med['first']:8.1f} ms")
        print(
            f"  second, warm cache       {med['second']:8.1f} ms   "
            f"{med['second'] / med['first']:.2f}x first (goal <= 0.50x)"
        )
        print(f"  GPUC_CACHE=0             {med['off']:8.1f} ms")
        if "nvcc" in med:
            below = "below" if med["second"] < med["nvcc"] else "NOT below"
            print(
                f"  nvcc -ptx saxpy.cu       {med['nvcc']:8.1f} ms   "
                f"second is {below} nvcc ({med['second'] / med['nvcc']:.2f}x)"
            )
        else:
            print("  nvcc -ptx                (nvcc not found)")

        env = {**base_env, "GPUC_CACHE_DIR": os.path.join(tmp, "dumps-cache")}
        miss_dir, hit_dir = Path(tmp) / "miss", Path(tmp) / "hit"
        subprocess.run([*command, "--dump-dir", str(miss_dir)], check=True, env=env)
        hit = subprocess.run(
            [*command, "--dump-dir", str(hit_dir), "-v"],
            check=True,
            env=env,
            capture_output=True,
            text=True,
        )
        stages = expected_stages()
        found = sorted(p.name for p in (hit_dir / "saxpy").iterdir())
        missing = [s for s in stages if s not in found]
        differ = [
            s
            for s in stages
            if s not in missing
            and (hit_dir / "saxpy" / s).read_bytes()
            != (miss_dir / "saxpy" / s).read_bytes()
        ]
        print(f"\na cache hit with --dump-dir ({hit.stderr.strip()}):")
        for line in (hit_dir / "saxpy" / "stages.txt").read_text().splitlines():
            print(f"  {line}")
        verdict = "every stage" if not missing else f"MISSING {', '.join(missing)}"
        same = (
            "as the miss wrote them"
            if not differ
            else f"DIFFERENT: {', '.join(differ)}"
        )
        print(
            f"  {len(stages) - len(missing)} of {len(stages)} stages: {verdict}, {same}"
        )


if __name__ == "__main__":
    main()
