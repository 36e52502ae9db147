"""Compile time against module size: n kernels, each with four helpers, for
ptx and spirv, next to the MLIR 16 C++ chain on the same kernels for nvptx64.

Kernel `@k{i}` guards a load, arithmetic and a store with `scf.if` and reaches
four helpers of its own: a `gpuc.call` to a plain helper, a `gpuc.call` to an
`always_inline` one, and two `gpuc.deferred_call` jobs, one
`#gpuc.job<helper, always_inline>` and one `#gpuc.job<helper>`. gpuc is timed
in-process after a warm-up compile per target (imports and first-use caches
are not timed): `gpuc.driver.compile_module` on the text, every stage from
parsing to the artefact, median of `--repeat` runs, each after a
`gc.collect()`. The chain gets the same kernels as `llvm.func` kernels
(`nvvm.kernel`, nvvm special registers, `llvm.ptr<1>` loads and stores) and
`func.func` helpers, and runs `mlir-opt-16 --inline --symbol-dce` plus the
conversions to the LLVM dialect, `mlir-translate-16 --mlir-to-llvmir`,
`opt-16 -O3`, `llc-16 -O3 -mcpu=sm_90`, one tool after the other through
files (no pipe parallelism), median of `--repeat` runs of the four.

Goals (the scaling issue): from 100 to 1,000 kernels gpuc grows at most 11x,
and at 1,000 kernels it takes at most 2x the chain's time.

    python bench/scale.py [--sizes 1,10,100,1000] [--targets ptx,spirv]
                          [--repeat 3] [--no-chain]
"""

from __future__ import annotations

import argparse
import gc
import math
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gpuc.driver import compile_module

CHAIN_TOOLS = ("mlir-opt-16", "mlir-translate-16", "opt-16", "llc-16")
LLVM16_BIN = Path("/usr/lib/llvm-16/bin")
MLIR_OPT_PASSES = (
    "--inline",
    "--symbol-dce",
    "--convert-scf-to-cf",
    "--convert-arith-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
)
GOAL_GROWTH = 11.0
GOAL_RATIO = 2.0

# The helpers of kernel i in both spellings: name, gpuc inline hint, body.
_HELPERS = (
    ("plain", "", ("mulf %v, %v", "addf %m, %b")),
    ("inl", " always_inline", ("mulf %v, %c", "subf %m, %b")),
    ("jinl", "", ("mulf %v, %b", "addf %m, %v")),
    ("job", "", ("divf %v, %b", "addf %m, %b")),
)


def _helpers(i: int, func: str, hint: bool, ret: str) -> list[str]:
    lines: list[str] = []
    for name, inline, (first, second) in _HELPERS:
        trailer = f" helper{inline}" if hint else ""
        lines += [
            f"{func} private @{name}{i}(%v: f32, %b: f32) -> f32{trailer} {{",
            f"  %c = arith.constant {i}.0 : f32",
            f"  %m = arith.{first} : f32",
            f"  %r = arith.{second} : f32",
            f"  {ret} %r : f32",
            "}",
        ]
    return lines


def gpuc_kernel(i: int) -> list[str]:
    ptr = "!gpuc.ptr<f32, global>"
    return [
        f"gpuc.func @k{i}(%x: {ptr}, %y: {ptr}, %a: f32, %n: i32) kernel {{",
        "  %i = gpuc.global_id x",
        "  %n_index = arith.index_cast %n : i32 to index",
        "  %in_range = arith.cmpi ult, %i, %n_index : index",
        "  scf.if %in_range {",
        f"    %xi = gpuc.load %x[%i] : {ptr}",
        f"    %yi = gpuc.load %y[%i] : {ptr}",
        f"    %p = gpuc.call @plain{i}(%xi, %a) : (f32, f32) -> f32",
        f"    %q = gpuc.call @inl{i}(%p, %yi) : (f32, f32) -> f32",
        f"    %r = gpuc.deferred_call @jinl{i}(%q, %a)"
        " #gpuc.job<helper, always_inline> : (f32, f32) -> f32",
        f"    %s = gpuc.deferred_call @job{i}(%r, %yi)"
        " #gpuc.job<helper> : (f32, f32) -> f32",
        f"    gpuc.store %s, %y[%i] : {ptr}",
        "  }",
        "  gpuc.return",
        "}",
        *_helpers(i, "gpuc.func", True, "gpuc.return"),
    ]


def chain_kernel(i: int) -> list[str]:
    ptr = "!llvm.ptr<1>"
    gep = f"({ptr}, i64) -> {ptr}, f32"
    return [
        f"llvm.func @k{i}(%x: {ptr}, %y: {ptr}, %a: f32, %n: i32)"
        " attributes {nvvm.kernel} {",
        "  %bid = nvvm.read.ptx.sreg.ctaid.x : i32",
        "  %bdim = nvvm.read.ptx.sreg.ntid.x : i32",
        "  %tid = nvvm.read.ptx.sreg.tid.x : i32",
        "  %bid64 = arith.extui %bid : i32 to i64",
        "  %bdim64 = arith.extui %bdim : i32 to i64",
        "  %tid64 = arith.extui %tid : i32 to i64",
        "  %base = arith.muli %bid64, %bdim64 : i64",
        "  %i = arith.addi %base, %tid64 : i64",
        "  %n64 = arith.extsi %n : i32 to i64",
        "  %in_range = arith.cmpi ult, %i, %n64 : i64",
        "  scf.if %in_range {",
        f"    %xp = llvm.getelementptr inbounds %x[%i] : {gep}",
        f"    %yp = llvm.getelementptr inbounds %y[%i] : {gep}",
        f"    %xi = llvm.load %xp : {ptr} -> f32",
        f"    %yi = llvm.load %yp : {ptr} -> f32",
        f"    %p = func.call @plain{i}(%xi, %a) : (f32, f32) -> f32",
        f"    %q = func.call @inl{i}(%p, %yi) : (f32, f32) -> f32",
        f"    %r = func.call @jinl{i}(%q, %a) : (f32, f32) -> f32",
        f"    %s = func.call @job{i}(%r, %yi) : (f32, f32) -> f32",
        f"    llvm.store %s, %yp : f32, {ptr}",
        "  }",
        "  llvm.return",
        "}",
        *_helpers(i, "func.func", False, "return"),
    ]


def module_text(n: int, kernel: Callable[[int], list[str]]) -> str:
    lines = ["builtin.module {"]
    for i in range(n):
        lines += ["  " + line for line in kernel(i)]
    return "\n".join([*lines, "}"]) + "\n"


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    times: list[float] = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def gpuc_seconds(n: int, target: str, repeat: int) -> float:
    text = module_text(n, gpuc_kernel)

    def run() -> None:
        result = compile_module(text, target)
        assert len(result.kernels) == n, f"{len(result.kernels)} kernels, not {n}"

    return median_seconds(run, repeat)


def chain_tools() -> dict[str, str] | str:
    """The chain's tools by name, or why the chain cannot run."""
    found: dict[str, str] = {}
    for tool in CHAIN_TOOLS:
        path = shutil.which(tool)
        if path is None and (LLVM16_BIN / tool.removesuffix("-16")).exists():
            path = str(LLVM16_BIN / tool.removesuffix("-16"))
        if path is None:
            return (
                f"{tool} not found on PATH or in {LLVM16_BIN} (install mlir-16-tools)"
            )
        found[tool] = path
    return found


def chain_seconds(n: int, tools: dict[str, str], repeat: int) -> dict[str, float]:
    """Median seconds of each tool of the chain (and `total`) on n kernels."""
    with tempfile.TemporaryDirectory() as tmp:
        src, lowered, ll, bc, ptx = (
            str(Path(tmp, name))
            for name in ("k.mlir", "l.mlir", "k.ll", "k.bc", "k.ptx")
        )
        Path(src).write_text(module_text(n, chain_kernel))
        steps = {
            "mlir-opt-16": [tools["mlir-opt-16"], *MLIR_OPT_PASSES, src, "-o", lowered],
            "mlir-translate-16": [
                tools["mlir-translate-16"], "--mlir-to-llvmir", lowered, "-o", ll,
            ],
            "opt-16": [tools["opt-16"], "-O3", ll, "-o", bc],
            "llc-16": [
                tools["llc-16"], "-O3", "-mtriple=nvptx64-nvidia-cuda",
                "-mcpu=sm_90", bc, "-o", ptx,
            ],
        }  # fmt: skip
        runs: dict[str, list[float]] = {name: [] for name in [*steps, "total"]}
        for _ in range(repeat):
            total = 0.0
            for name, argv in steps.items():
                start = time.perf_counter()
                subprocess.run(argv, check=True, capture_output=True)
                seconds = time.perf_counter() - start
                runs[name].append(seconds)
                total += seconds
            runs["total"].append(total)
        entries = Path(ptx).read_text().count(".entry ")
        assert entries == n, f"the chain's PTX has {entries} kernels, not {n}"
    return {name: statistics.median(times) for name, times in runs.items()}


def growth(times: dict[int, float], small: int, large: int) -> str:
    factor = times[large] / times[small]
    exponent = math.log(factor) / math.log(large / small)
    return f"t{large}/t{small} = {factor:5.2f}x, exponent {exponent:4.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100,1000")
    parser.add_argument("--targets", default="ptx,spirv")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-chain", action="store_true")
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    targets = args.targets.split(",")
    tools = "skipped (--no-chain)" if args.no_chain else chain_tools()
    for target in targets:
        compile_module(module_text(1, gpuc_kernel), target)  # warm-up
    how = (
        f"four tools one after the other, median of {args.repeat}"
        if isinstance(tools, dict)
        else tools
    )
    print(
        "gpuc: in-process after a warm-up compile per target, whole pipeline "
        f"(parse to artefact), median of {args.repeat}; chain: {how}"
    )
    header = f"{'kernels':>8}" + "".join(f" {t + ' s':>9}" for t in targets)
    if isinstance(tools, dict):
        header += f" {'chain s':>9} {targets[0] + '/chain':>10}"
    print(header)
    times: dict[str, dict[int, float]] = {t: {} for t in targets}
    chains: dict[int, dict[str, float]] = {}
    for n in sizes:
        line = f"{n:>8}"
        for target in targets:
            times[target][n] = gpuc_seconds(n, target, args.repeat)
            line += f" {times[target][n]:9.3f}"
        if isinstance(tools, dict):
            chains[n] = chain_seconds(n, tools, args.repeat)
            line += f" {chains[n]['total']:9.3f}"
            line += f" {times[targets[0]][n] / chains[n]['total']:9.2f}x"
        print(line, flush=True)
    if len(sizes) >= 2:
        small, large = (100, 1000) if {100, 1000} <= set(sizes) else sizes[-2:]
        for target in targets:
            line = f"{target}: {growth(times[target], small, large)}"
            if (small, large) == (100, 1000):
                met = times[target][1000] / times[target][100] <= GOAL_GROWTH
                line += f" (goal <= {GOAL_GROWTH:g}x: {'met' if met else 'missed'})"
            print(line)
        if chains:
            totals = {n: c["total"] for n, c in chains.items()}
            print(f"chain: {growth(totals, small, large)}")
    if chains:
        n = sizes[-1]
        parts = ", ".join(
            f"{name} {seconds:.3f}"
            for name, seconds in chains[n].items()
            if name != "total"
        )
        print(f"chain at {n} kernels, seconds per tool: {parts}")
        for target in targets:
            ratio = times[target][n] / chains[n]["total"]
            line = f"{target}/chain at {n} kernels: {ratio:.2f}x"
            if n == 1000:
                met = ratio <= GOAL_RATIO
                line += f" (goal <= {GOAL_RATIO:g}x: {'met' if met else 'missed'})"
            print(line)
    elif isinstance(tools, str):
        print(f"chain {tools}")


if __name__ == "__main__":
    main()
