"""privatize + symbol-dce on an n-function module, gpuc against mlir-opt-16.

Both sides see the same module of `func.func`s: `@main` (kept public) calls
`@f0`, and `@fi` calls `@f(2i+1)` and `@f(2i+2)` while those are in the first
half, so about half the functions die. Pass time only: gpuc's passes run on
an in-memory clone (parsing and cloning are not timed); mlir-opt's figure is
the sum of the SymbolPrivatize and SymbolDCE lines of `--mlir-timing`.

    python bench/symbol_dce.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gpuc.context import make_context
from gpuc.transforms.symbol_dce import symbol_dce
from gpuc.transforms.symbol_privatize import privatize_symbols

MLIR_OPT = "mlir-opt-16"


def module_text(n: int) -> str:
    lines = [
        "module {",
        "  func.func @main(%a: i32) -> i32 {",
        "    %r = func.call @f0(%a) : (i32) -> i32",
        "    func.return %r : i32",
        "  }",
    ]
    for i in range(n):
        lines += [
            f"  func.func @f{i}(%a: i32) -> i32 {{",
            "    %c = arith.constant 1 : i32",
            "    %b = arith.addi %a, %c : i32",
        ]
        last = "%b"
        for j, callee in enumerate((2 * i + 1, 2 * i + 2)):
            if callee < n // 2:
                lines.append(f"    %r{j} = func.call @f{callee}({last}) : (i32) -> i32")
                last = f"%r{j}"
        lines += [f"    func.return {last} : i32", "  }"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def gpuc_times(text: str, repeat: int) -> tuple[list[float], int]:
    module = Parser(make_context(), text).parse_module()
    times: list[float] = []
    kept = 0
    for _ in range(repeat):
        work = module.clone()
        assert isinstance(work, ModuleOp)
        gc.collect()
        start = time.perf_counter()
        privatize_symbols(work, {"main"})
        symbol_dce(work)
        times.append(time.perf_counter() - start)
        kept = len(list(work.ops))
    return times, kept


_TIMING = re.compile(r"^\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+(SymbolPrivatize|SymbolDCE)\s*$")


def mlir_times(text: str, repeat: int) -> tuple[list[float], int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "module.mlir")
        path.write_text(text)
        times: list[float] = []
        kept = 0
        for _ in range(repeat):
            run = subprocess.run(
                [
                    MLIR_OPT,
                    "--symbol-privatize=exclude=main",
                    "--symbol-dce",
                    "--mlir-timing",
                    str(path),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            total = sum(
                float(m.group(1))
                for line in run.stderr.splitlines()
                if (m := _TIMING.match(line))
            )
            times.append(total)
            kept = run.stdout.count("func.func ")
    return times, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    have_mlir = shutil.which(MLIR_OPT) is not None
    medians: dict[int, float] = {}
    mlir_medians: dict[int, float] = {}
    for n in (1_000, 10_000):
        text = module_text(n)
        # The small module is cheap: more runs make its median as steady.
        repeat = args.repeat * (10 if n == 1_000 else 1)
        ours, kept = gpuc_times(text, repeat)
        medians[n] = statistics.median(ours)
        line = f"n={n:>6}: gpuc {medians[n] * 1e3:8.1f} ms (kept {kept})"
        if have_mlir:
            theirs, their_kept = mlir_times(text, repeat)
            m = mlir_medians[n] = statistics.median(theirs)
            line += (
                f" | mlir-opt-16 {m * 1e3:8.1f} ms (kept {their_kept})"
                f" | ratio {medians[n] / m:5.2f}x (goal <= 5x)"
            )
        print(line)
    scale = medians[10_000] / medians[1_000]
    line = f"scaling 1,000 -> 10,000 functions: gpuc {scale:.1f}x (goal <= ~11x)"
    if mlir_medians:
        line += f", mlir-opt-16 {mlir_medians[10_000] / mlir_medians[1_000]:.1f}x"
    print(line)
    if not have_mlir:
        print(
            f"{MLIR_OPT} not found: install mlir-16-tools for the side-by-side figure"
        )


if __name__ == "__main__":
    main()
