"""MLIR's GPU integration tests through gpuc: compile, run, match CHECK lines.

    python bench/frontend_corpus.py DIR [--jobs N] [--timeout S] [-v]

For each `.mlir` file under DIR (recursively), as MLIR's lit would run it:

1. `mlir-opt-16 --mlir-print-op-generic --mlir-print-debuginfo FILE` (xDSL
   reads gpu ops in generic form only; the locations are kept, as the RUN
   line's mlir-opt keeps them, for the messages that quote them: a failing
   assert's). A file mlir-opt-16 cannot parse is counted apart, not in the
   denominator. Of the RUN line's pipeline, the passes that change what the
   program means before it is lowered (`FRONTEND_PASSES`: today
   `-convert-vector-to-gpu`, which makes per-thread vector code a warp's
   matrix ops) run in this same mlir-opt, as a frontend would run them; the
   lowering itself (to NVVM, ROCDL, SPIR-V, LLVM) is gpuc's, and gpuc
   outlines `gpu.launch` regions itself (`gpu-kernel-outlining`).
2. A file whose RUN line runs no program (no `mlir-cpu-runner`/`mlir-runner`:
   its CHECK lines are about MLIR's own PTX or ptxas command lines) is a
   compile-only test: counted apart too.
3. Compile its kernels with gpuc for ptx, spirv and native.
4. `gpuc run` it on native and on spirv (Intel's OpenCL CPU runtime), each in
   its own process, and match its output (stdout, and stderr where the RUN
   line pipes `2>&1`) against the file's CHECK lines with `filecheck` (the
   Python FileCheck clone, a test dependency of gpuc). A file whose RUN
   line pipes into no FileCheck passes, as under lit, when the program
   exits with status 0.

It prints a line per file and the totals: per target, compiled; per executor,
ran (exit status 0) and matched CHECK. `--newer mlir-opt-22` prints the files
mlir-opt-16 cannot parse with a newer mlir-opt and runs them as well, counted
apart (gpuc reads MLIR 16 to 22's text). It also counts the files mlir-opt-16
itself lowers to PTX (`gpu-kernel-outlining`, `convert-gpu-to-nvvm`, then
mlir-translate-16 and llc-16 on each gpu.module) for comparison.

The corpus is llvm-project's, not gpuc's, and stays out of this repository:
fetch `mlir/test/Integration/GPU/` (CUDA, SPIRV, Vulkan, SYCL, LevelZero,
ROCM) from llvm-project into a directory outside the tree, e.g. with
`git clone --depth 1 --filter=blob:none --sparse https://github.com/llvm/llvm-project
&& cd llvm-project && git sparse-checkout set mlir/test/Integration/GPU`, and
pass that directory.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILE_TARGETS = ("ptx", "spirv", "native")
RUN_TARGETS = ("native", "spirv")
RUNNERS = ("mlir-cpu-runner", "mlir-runner")
PRINT = ("--mlir-print-op-generic", "--mlir-print-debuginfo")
FRONTEND_PASSES = ("-convert-vector-to-gpu",)
"""RUN-line passes run before gpuc: they change the program's meaning, not its
target (without it, the vector code of CUDA/TensorCore/wmma-matmul-f16-
elementwise.mlir reads and writes one matrix from 32 threads at once)."""


def frontend_passes(command: str) -> list[str]:
    """The FRONTEND_PASSES the RUN line's `command` runs, in its order."""
    found = [(command.find(p + " "), p) for p in FRONTEND_PASSES]
    return [p for at, p in sorted(found) if at >= 0]


@dataclass
class Result:
    path: str
    status: str = "run test"
    """'mlir-opt-16 cannot parse', 'compile-only test' or 'run test'."""
    compiled: dict[str, str] = field(default_factory=dict)
    """Per target: '' when it compiled, else the first line of the error."""
    ran: dict[str, str] = field(default_factory=dict)
    matched: dict[str, str] = field(default_factory=dict)
    mlir_ptx: bool = False


def run_line(text: str) -> str:
    """The file's RUN lines, joined where they continue with a backslash."""
    lines = [m.group(1) for m in re.finditer(r"^\s*//\s*RUN:(.*)$", text, re.M)]
    return " ".join(line.rstrip().rstrip("\\") for line in lines)


def first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:200]
    lines = [line for line in text.splitlines() if line.strip()]
    return (lines[-1].strip() if lines else "no output")[:200]


def gpuc_command() -> list[str]:
    found = shutil.which("gpuc")
    return [found] if found else [sys.executable, "-m", "gpuc.cli"]


def compile_kernels(generic: str, target: str) -> str:
    """'' when gpuc compiles the kernels of the module for `target` (the
    host runner's way: outlined, gpu.modules compiled; none is a success)."""
    from xdsl.context import Context

    from gpuc.host.runner import compile_kernels as compile_them
    from gpuc.host.runner import parse_host_module
    from gpuc.transforms.import_foreign import outline_host_code

    try:
        module = parse_host_module(generic, "input.mlir")
        outline_host_code(Context(), module)
        compile_them(module, target)
    except Exception as e:  # noqa: BLE001 - every failure is a result here
        return first_error(str(e)) or type(e).__name__
    return ""


def mlir_lowers_to_ptx(path: Path, scratch: Path, frontend: list[str]) -> bool:
    """Whether MLIR 16 itself turns every gpu.module of the file into PTX
    (after the RUN line's `frontend` passes)."""
    from gpuc.reader.host_text import gpu_module_spans

    if frontend:
        prepared = subprocess.run(
            ["mlir-opt-16", str(path), *frontend], capture_output=True, text=True
        )
        if prepared.returncode != 0:
            return False
        path = scratch / "prepared.mlir"
        path.write_text(prepared.stdout)
    lowered = subprocess.run(
        [
            "mlir-opt-16",
            str(path),
            "-pass-pipeline=builtin.module(gpu-kernel-outlining,gpu.module("
            "strip-debuginfo,convert-gpu-to-nvvm,reconcile-unrealized-casts))",
        ],
        capture_output=True,
        text=True,
    )
    if lowered.returncode != 0:
        return False
    spans = gpu_module_spans(lowered.stdout)
    if not spans:
        return False
    for i, span in enumerate(spans):
        body = lowered.stdout[span.start : span.end]
        standalone = re.sub(r"^gpu\.module\s+@[\w$.]+", "module", body.lstrip())
        source = scratch / f"dev{i}.mlir"
        source.write_text(standalone)
        llvm = subprocess.run(
            [
                "mlir-translate-16",
                "--allow-unregistered-dialect",
                "--mlir-to-llvmir",
                str(source),
            ],
            capture_output=True,
            text=True,
        )
        if llvm.returncode != 0:
            return False
        ptx = subprocess.run(
            ["llc-16", "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_70", "-o", "-"],
            input=llvm.stdout,
            capture_output=True,
            text=True,
        )
        if ptx.returncode != 0 or ".entry" not in ptx.stdout:
            return False
    return True


def check_one(path: Path, timeout: float, newer: str | None) -> Result:
    result = Result(str(path))
    text = path.read_text()
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        frontend = frontend_passes(run_line(text))
        printed = subprocess.run(
            ["mlir-opt-16", *PRINT, str(path), *frontend],
            capture_output=True,
            text=True,
        )
        if printed.returncode != 0:
            result.status = "mlir-opt-16 cannot parse"
            result.compiled["-"] = first_error(printed.stderr)
            if newer is None:
                return result
            printed = subprocess.run(
                [newer, *PRINT, str(path), *frontend],
                capture_output=True,
                text=True,
            )
            if printed.returncode != 0:
                result.compiled["-"] += f"; {newer} cannot either"
                return result
            result.status = f"printed by {newer}"
            result.compiled.clear()
        else:
            result.mlir_ptx = mlir_lowers_to_ptx(path, scratch, frontend)
        command = run_line(text)
        if not any(runner in command for runner in RUNNERS):
            printed_by = "" if result.status == "run test" else f" ({result.status})"
            result.status = "compile-only test" + printed_by
            return result
        generic = scratch / path.name
        generic.write_text(printed.stdout)
        for target in COMPILE_TARGETS:
            result.compiled[target] = compile_kernels(printed.stdout, target)
        both = "2>&1" in command
        for target in RUN_TARGETS:
            if result.compiled[target]:
                result.ran[target] = "not compiled"
                continue
            try:
                done = subprocess.run(
                    [*gpuc_command(), "run", str(generic), "--target", target],
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired:
                result.ran[target] = f"timed out after {timeout:g} s"
                continue
            output = done.stdout + (done.stderr if both else "")
            result.ran[target] = (
                "" if done.returncode == 0 else first_error(done.stderr + done.stdout)
            )
            if "FileCheck" not in command:
                result.matched[target] = result.ran[target]
                continue
            out = scratch / f"{target}.out"
            # LLVM's FileCheck matches against the output with each run of
            # spaces and tabs as one space; the Python clone does not.
            out.write_text(re.sub(r"[ \t]+", " ", output))
            matched = subprocess.run(
                ["filecheck", str(path), "--input-file", str(out)],
                capture_output=True,
                text=True,
            )
            result.matched[target] = (
                "" if matched.returncode == 0 else first_error(matched.stderr)
            )
    return result


def report(results: list[Result], verbose: bool) -> None:
    for r in results:
        if r.status != "run test" and not r.status.startswith("printed by"):
            note = r.compiled.get("-", "")
            print(f"{r.status:<26} {r.path}" + (f": {note}" if note else ""))
            continue
        cells = [
            f"{t}:{'ok' if not r.compiled[t] else 'FAIL'}" for t in COMPILE_TARGETS
        ] + [
            f"run-{t}:{'ok' if not r.ran[t] else 'FAIL'}"
            f"/{'match' if r.matched.get(t) == '' else 'NO'}"
            for t in RUN_TARGETS
        ]
        print(f"{' '.join(cells)}  {r.path}")
        reasons = {
            *(v for v in r.compiled.values() if v),
            *(v for v in r.ran.values() if v and v != "not compiled"),
            *(v for v in r.matched.values() if v),
        }
        if verbose or not all(r.matched.get(t) == "" for t in RUN_TARGETS):
            for reason in sorted(reasons):
                print(f"    {reason}")
    newer = [r for r in results if r.status.startswith("printed by")]
    runs = [r for r in results if r.status == "run test"]
    statuses = Counter(r.status for r in results)
    print()
    print(
        f"{len(results)} files: {statuses['run test']} run tests, "
        f"{statuses['compile-only test']} compile-only tests mlir-opt-16 parses, "
        f"{statuses['mlir-opt-16 cannot parse'] + len(newer)} that mlir-opt-16 "
        f"cannot parse ({len(newer)} of them printed by a newer mlir-opt)"
    )
    totals("run tests mlir-opt-16 parses", runs)
    if newer:
        totals(f"run tests only {newer[0].status[len('printed by ') :]} parses", newer)
    parsed = [r for r in results if r.status in ("run test", "compile-only test")]
    print(
        f"mlir-opt-16 itself lowers to PTX: {sum(r.mlir_ptx for r in parsed)} / "
        f"{len(parsed)} files it parses ({sum(r.mlir_ptx for r in runs)} / "
        f"{len(runs)} run tests)"
    )


def totals(title: str, runs: list[Result]) -> None:
    print(f"{title}:")
    for t in COMPILE_TARGETS:
        ok = sum(not r.compiled[t] for r in runs)
        print(f"  compiled for {t:<7} {ok:>3} / {len(runs)}")
    for t in RUN_TARGETS:
        ran = sum(r.ran[t] == "" for r in runs)
        matched = sum(r.matched.get(t) == "" for r in runs)
        share = 100 * matched / len(runs) if runs else 0
        print(
            f"  ran on {t:<7} {ran:>3} / {len(runs)}; matched CHECK {matched:>3} / "
            f"{len(runs)} ({share:.0f}%)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "dir", help="a copy of llvm-project's mlir/test/Integration/GPU"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument(
        "--newer",
        metavar="MLIR_OPT",
        help="print the files mlir-opt-16 cannot parse with this mlir-opt "
        "(e.g. mlir-opt-22) and run them too, counted apart",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    for tool in ("mlir-opt-16", "mlir-translate-16", "llc-16", "filecheck"):
        if shutil.which(tool) is None:
            sys.exit(f"frontend_corpus: {tool} is not installed")
    files = sorted(Path(args.dir).rglob("*.mlir"))
    if not files:
        sys.exit(f"frontend_corpus: no .mlir files under {args.dir}")
    os.environ.setdefault("GPUC_SERVER", "0")
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(
            pool.map(partial(check_one, timeout=args.timeout, newer=args.newer), files)
        )
    report(results, args.verbose)


if __name__ == "__main__":
    main()
