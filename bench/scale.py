"""Compile time against module size: n kernels, each with four helpers, for
ptx and spirv, next to the MLIR 16 C++ chain on the same kernels for nvptx64,
stage by stage (parse, dialect, translate, optimize, emit), with the growth
exponent of each from the smallest size to the largest.

Kernel `@k{i}` guards a load, arithmetic and a store with `scf.if` and reaches
four helpers of its own: a `gpuc.call` to a plain helper, a `gpuc.call` to an
`always_inline` one, and two `gpuc.deferred_call` jobs, one
`#gpuc.job<helper, always_inline>` and one `#gpuc.job<helper>`. gpuc is timed
in-process after a warm-up compile per target (imports and first-use caches
are not timed): `gpuc.compiler.compile_module` on the text, every stage from
parsing to the artefact, median of `--repeat` runs, each after a
`gc.collect()`. The chain gets the same kernels as `llvm.func` kernels
(`nvvm.kernel`, nvvm special registers, `llvm.ptr<1>` loads and stores) and
`func.func` helpers, and runs `mlir-opt-16 --inline --symbol-dce` plus the
conversions to the LLVM dialect, `mlir-translate-16 --mlir-to-llvmir`,
`opt-16 -O3`, `llc-16 -O3 -mcpu=sm_90`, one tool after the other through
files (no pipe parallelism), median of `--repeat` runs of the four. The
runs go in rounds, each round one run of every size for gpuc and for the
chain, so that a machine whose speed drifts over the minutes of a run moves
the small and the large sizes alike, not the growth and the ratio. The
chain's stages: parse is `mlir-opt-16` with no pass (parse, verify, print),
dialect is the rest of its `mlir-opt-16` run, translate is
`mlir-translate-16`, optimize `opt-16`, emit `llc-16`; gpuc's translate
includes linking. The parse goal compares gpuc's parse of the gpuc module
with `mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic`
parsing and printing the same module in generic form (when mlir-opt-22 is
installed).

`--clock cpu` counts CPU time, not wall time: for gpuc, that of the bench's
process and of the processes it starts, so spirv's emit, which runs in a
child process of an emitter server (gpuc/targets/spirv/isolation.py), is
counted in full (`cpu_time`); for the chain, that of each tool.

Goals (the scaling issue): from 100 to 1,000 kernels gpuc grows at most 11x,
at 1,000 kernels it takes at most 2x the chain's time, and parsing 300
kernels takes at most 4x mlir-opt-22's generic parse-and-print.

    python bench/scale.py [--sizes 10,100,1000,3000] [--targets ptx,spirv]
                          [--repeat 3] [--no-chain] [--parse-kernels 300]
                          [--clock wall|cpu]
"""

from __future__ import annotations

import argparse
import gc
import io
import math
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from xdsl.printer import Printer

from gpuc.driver import (
    CompileOptions,
    kernel_infos,
    load_module,
    make_options,
    run,
)

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
GOAL_PARSE = 4.0

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


GPUC_STAGES = ("parse", "dialect", "translate", "optimize", "emit")
"""gpuc's stages as the bench reports them (link is counted in translate)."""
CHAIN_STAGES = {
    "parse": "parse",
    "mlir-opt-16": "dialect",
    "mlir-translate-16": "translate",
    "opt-16": "optimize",
    "llc-16": "emit",
}


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {name: statistics.median(r[name] for r in runs) for name in runs[0]}


def cpu_time() -> float:
    """The CPU seconds (user and system, all threads) of this process and of
    the processes it started: those that ended (getrusage's children) and
    spirv's emitter server, which is still running, with the emit jobs it
    forked and waited for (its own and its children's times in /proc). The
    SPIR-V back-end emits in those processes (gpuc/targets/spirv/isolation.py),
    so without them spirv's emit would count next to nothing."""
    from gpuc.targets.spirv.isolation import server_pid

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = time.process_time() + children.ru_utime + children.ru_stime
    pid = server_pid()
    if pid is not None:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return seconds
        # utime, stime, cutime, cstime: fields 14-17, after `pid (name) state`.
        fields = stat.rsplit(")", 1)[1].split()
        ticks = sum(int(f) for f in fields[11:15])
        seconds += ticks / os.sysconf("SC_CLK_TCK")
    return seconds


CLOCK = {"wall": time.perf_counter, "cpu": cpu_time}
"""How gpuc's stages are timed (`--clock`); the chain's tools are timed the
same way (wall time, or the CPU time of the processes and all their threads:
for gpuc, spirv's emitter processes included, see `cpu_time`)."""


def gpuc_stage_run(
    text: str, options: CompileOptions, n: int, clock: str = "wall"
) -> dict[str, float]:
    """Seconds of each gpuc stage (and `total`) of one compile of `text`."""
    now = CLOCK[clock]
    gc.collect()
    times: dict[str, float] = dict.fromkeys(GPUC_STAGES, 0.0)
    last = [now()]

    def after(name: str, c: object) -> None:
        at = now()
        times["translate" if name == "link" else name] += at - last[0]
        last[0] = at

    start = now()
    c = run(text, options, stop_after="emit", after_stage=after)
    times["total"] = now() - start
    assert c.module is not None
    kernels = len(kernel_infos(c.module))
    assert kernels == n, f"{kernels} kernels, not {n}"
    return times


def gpuc_stage_seconds(
    n: int, target: str, repeat: int, clock: str = "wall"
) -> dict[str, float]:
    """Median seconds of each gpuc stage (and `total`) on n kernels, the
    compile cache not involved (the stages are run directly)."""
    text = module_text(n, gpuc_kernel)
    options = make_options(target, {})
    runs = [gpuc_stage_run(text, options, n, clock) for _ in range(repeat)]
    return medians(runs)


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


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def cpu_timed(argv: list[str]) -> float:
    """The CPU seconds (user and system, all threads) the command used."""
    before = os.times()
    subprocess.run(argv, check=True, capture_output=True)
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def chain_seconds(
    n: int, tools: dict[str, str], repeat: int, clock: str = "wall"
) -> dict[str, float]:
    """Median seconds of each stage of the chain (and `total`) on n kernels."""
    with tempfile.TemporaryDirectory() as tmp:
        src, lowered, ll, bc, ptx = (
            str(Path(tmp, name))
            for name in ("k.mlir", "l.mlir", "k.ll", "k.bc", "k.ptx")
        )
        Path(src).write_text(module_text(n, chain_kernel))
        steps = {
            "parse": [tools["mlir-opt-16"], src, "-o", os.devnull],
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
        runs: list[dict[str, float]] = []
        for _ in range(repeat):
            timer = cpu_timed if clock == "cpu" else timed
            times = {CHAIN_STAGES[name]: timer(argv) for name, argv in steps.items()}
            # mlir-opt's run parses too: its dialect stage is what is left.
            times["dialect"] = max(times["dialect"] - times["parse"], 0.0)
            times["total"] = sum(times.values())
            runs.append(times)
        entries = Path(ptx).read_text().count(".entry ")
        assert entries == n, f"the chain's PTX has {entries} kernels, not {n}"
    return medians(runs)


def exponent(times: dict[int, float], small: int, large: int) -> str:
    """The growth exponent, '-' where the smaller time is under a millisecond
    (the chain's dialect stage at a few kernels: a difference of two runs)."""
    if times[small] < 1e-3 or times[large] < 1e-3:
        return "-"
    return f"{math.log(times[large] / times[small]) / math.log(large / small):.2f}"


def parse_comparison(n: int, repeat: int) -> str:
    """gpuc's parse of n kernels against mlir-opt-22's generic parse-and-print."""
    text = module_text(n, gpuc_kernel)
    load_module(module_text(1, gpuc_kernel))
    runs: list[float] = []
    cpu_runs: list[float] = []
    for _ in range(repeat):
        gc.collect()
        start, cpu_start = time.perf_counter(), time.process_time()
        load_module(text)
        runs.append(time.perf_counter() - start)
        cpu_runs.append(time.process_time() - cpu_start)
    gpuc_parse = statistics.median(runs)
    gpuc_cpu = statistics.median(cpu_runs)
    line = f"parse of {n} kernels: gpuc {gpuc_parse:.3f} s"
    mlir_opt = shutil.which("mlir-opt-22") or (
        "/usr/lib/llvm-22/bin/mlir-opt"
        if Path("/usr/lib/llvm-22/bin/mlir-opt").exists()
        else None
    )
    if mlir_opt is None:
        return line + "; mlir-opt-22 not installed (apt-get install mlir-22-tools)"
    generic = io.StringIO()
    Printer(stream=generic, print_generic_format=True).print_op(load_module(text))
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "k.mlir")
        src.write_text(generic.getvalue())
        argv = [
            mlir_opt,
            "--allow-unregistered-dialect",
            "--mlir-print-op-generic",
            str(src),
            "-o",
            os.devnull,
        ]
        mlir = statistics.median(timed(argv) for _ in range(repeat))
        mlir_cpu = statistics.median(cpu_timed(argv) for _ in range(repeat))
    ratio = gpuc_parse / mlir
    met = "met" if ratio <= GOAL_PARSE else "missed"
    # CPU time (all threads) as well: a busy machine stretches wall time, and
    # mlir-opt's threads make its wall time smaller than its work.
    return (
        f"{line}, mlir-opt-22 generic parse-and-print {mlir:.3f} s: "
        f"{ratio:.2f}x (goal <= {GOAL_PARSE:g}x: {met}); CPU time: gpuc "
        f"{gpuc_cpu:.3f} s, mlir-opt-22 {mlir_cpu:.3f} s: {gpuc_cpu / mlir_cpu:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,3000")
    parser.add_argument("--targets", default="ptx,spirv")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-chain", action="store_true")
    parser.add_argument("--parse-kernels", type=int, default=300)
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCK),
        default="wall",
        help="time stages by wall clock or by CPU time (steadier on a busy machine)",
    )
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    targets = args.targets.split(",")
    tools = "skipped (--no-chain)" if args.no_chain else chain_tools()
    for target in targets:
        gpuc_stage_seconds(1, target, 1)  # warm-up: imports, first-use caches
    how = (
        f"the five tools one after the other, median of {args.repeat}"
        if isinstance(tools, dict)
        else tools
    )
    print(
        "gpuc: in-process after a warm-up compile per target, the stages run "
        f"directly (no compile cache), median of {args.repeat}; chain: {how}; "
        f"{args.clock} time; the runs in rounds of one run of each size and "
        "compiler"
    )
    columns = {t: {} for t in targets}  # type: dict[str, dict[int, dict[str, float]]]
    if isinstance(tools, dict):
        columns["chain"] = {}
    header = f"{'who':>6} {'kernels':>8}" + "".join(
        f" {s:>9}" for s in (*GPUC_STAGES, "total")
    )
    print(header)
    # Round by round, each round one run of every size and compiler, so that
    # a machine that speeds up or slows down over the minutes of a run moves
    # the small and the large sizes alike, not the growth and the ratio.
    runs: dict[tuple[str, int], list[dict[str, float]]] = {
        (who, n): [] for n in sizes for who in columns
    }
    for _ in range(args.repeat):
        for n in sizes:
            for who in columns:
                if who == "chain":
                    assert isinstance(tools, dict)
                    row = chain_seconds(n, tools, 1, args.clock)
                else:
                    row = gpuc_stage_seconds(n, who, 1, args.clock)
                runs[who, n].append(row)
    for n in sizes:
        for who in columns:
            row = columns[who][n] = medians(runs[who, n])
            print(
                f"{who:>6} {n:>8}"
                + "".join(f" {row[s]:9.3f}" for s in (*GPUC_STAGES, "total")),
                flush=True,
            )
    if len(sizes) >= 2:
        small, large = sizes[0], sizes[-1]
        print(f"growth exponent from {small} to {large} kernels (1.00 is linear):")
        for who, rows in columns.items():
            print(
                f"{who:>6} {'':>8}"
                + "".join(
                    f" {exponent({n: rows[n][s] for n in sizes}, small, large):>9}"
                    for s in (*GPUC_STAGES, "total")
                )
            )
    if {100, 1000} <= set(sizes):
        for target in targets:
            total = {n: r["total"] for n, r in columns[target].items()}
            factor = total[1000] / total[100]
            met = "met" if factor <= GOAL_GROWTH else "missed"
            print(
                f"{target}: t1000/t100 = {factor:.2f}x "
                f"(goal <= {GOAL_GROWTH:g}x: {met})"
            )
            if "chain" in columns:
                ratio = total[1000] / columns["chain"][1000]["total"]
                met = "met" if ratio <= GOAL_RATIO else "missed"
                print(
                    f"{target}/chain at 1000 kernels: {ratio:.2f}x "
                    f"(goal <= {GOAL_RATIO:g}x: {met})"
                )
    if isinstance(tools, str):
        print(f"chain {tools}")
    if args.parse_kernels:
        print(parse_comparison(args.parse_kernels, args.repeat))


if __name__ == "__main__":
    main()
