"""PTX code quality: gpuc's saxpy and block reduction next to nvcc's for the
same CUDA C, compiled side by side in one run.

    python bench/code_quality.py [--sm 90]

For each kernel: PTX instructions (every instruction line of the `.entry`
body: no directives, labels, braces or comments) and the registers `ptxas -v`
reports. The CUDA C comes in two spellings: `size_t` indices, which compute
what gpuc's kernels compute (gpuc's `index` is 64-bit on ptx and `n` is
sign-extended into it), and the usual `int` indices, which let nvcc work in
32 bits. Goal (against the equivalent spelling): registers no more than
nvcc's, instructions within 1.1x nvcc's.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpuc.compiler import compile_module
from gpuc.tools import ptxas

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CUDA = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)(long)n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void saxpy_int(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void reduce(const float* x, float* out, int n) {
  __shared__ float partial[1024];
  size_t t = threadIdx.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + t;
  partial[t] = i < (size_t)(long)n ? x[i] : 0.0f;
  __syncthreads();
  for (size_t s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, partial[0]);
}
extern "C" __global__ void reduce_int(const float* x, float* out, int n) {
  __shared__ float partial[1024];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, partial[0]);
}
"""
ENTRY = re.compile(r"^\.(?:visible\s+)?\.entry\s+(\w+)")


def instructions(ptx: str) -> dict[str, int]:
    """Instruction lines per `.entry` (directives, labels, braces, comments and
    the `.param` scaffolding of calls do not count)."""
    counts: dict[str, int] = {}
    kernel: str | None = None
    for raw in ptx.splitlines():
        line = raw.strip()
        if match := ENTRY.match(line):
            kernel = match.group(1)
            counts[kernel] = 0
        elif (
            kernel is not None
            and line
            and not (
                line.startswith((".", "//", "{", "}", "(", ")", "$"))
                or line.endswith((":", ","))
            )
        ):
            counts[kernel] += 1
    return counts


def registers(ptx: str, sm: int) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        result = subprocess.run(
            [
                str(ptxas()),
                f"-arch=sm_{sm}",
                "-v",
                str(path),
                "-o",
                str(Path(tmp) / "k.o"),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found: dict[str, int] = {}
    kernel = ""
    for line in (result.stdout + result.stderr).splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            kernel = m.group(1)
        elif m := re.search(r"Used (\d+) registers", line):
            found[kernel] = int(m.group(1))
    return found


def nvcc_ptx(sm: int) -> str:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "kernels.cu"
        source.write_text(CUDA)
        out = Path(tmp) / "kernels.ptx"
        subprocess.run(
            [nvcc, "-ptx", f"-arch=sm_{sm}", "-O3", str(source), "-o", str(out)],
            check=True,
        )
        return out.read_text()


def verdict(met: bool) -> str:
    return "met" if met else "MISS"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sm", type=int, default=90)
    args = parser.parse_args()

    reference = nvcc_ptx(args.sm)
    nv_instr, nv_regs = instructions(reference), registers(reference, args.sm)
    print(f"sm_{args.sm}: PTX instructions / ptxas registers per kernel")
    header = (
        f"{'kernel':<8} {'gpuc':>11} {'nvcc size_t':>12} {'nvcc int':>10} "
        f"{'instr ratio':>12} {'goal':>5}"
    )
    print(header)
    ok = True
    for kernel in ("saxpy", "reduce"):
        ptx = compile_module(EXAMPLES / f"{kernel}.mlir", "ptx", sm=args.sm).artefact
        assert isinstance(ptx, str)
        g_instr, g_regs = instructions(ptx)[kernel], registers(ptx, args.sm)[kernel]
        wide = (nv_instr[kernel], nv_regs[kernel])
        narrow = (nv_instr[f"{kernel}_int"], nv_regs[f"{kernel}_int"])
        ratio = g_instr / wide[0]
        met = g_regs <= wide[1] and ratio <= 1.1
        ok &= met
        print(
            f"{kernel:<8} {g_instr:>5} / {g_regs:<3} {wide[0]:>6} / {wide[1]:<3} "
            f"{narrow[0]:>4} / {narrow[1]:<3} {ratio:>11.2f}x {verdict(met):>5}"
        )
    print(
        "goal (registers <= nvcc's, instructions <= 1.1x nvcc's, equivalent CUDA C):",
        "met" if ok else "missed",
    )


if __name__ == "__main__":
    main()
