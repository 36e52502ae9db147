"""Inlining a chain of n always-inline functions: gpuc's `inline` against
`mlir-opt-16 --inline` (MLIR's inliner is quadratic on a call chain).

gpuc: kernel `@k` calls `@f1`, `@fi` calls `@f(i+1)`, all private
`always_inline` `gpuc.func`s, so the kernel ends up holding the whole chain.
mlir-opt-16: the same chain of `func.func` / `func.call` under a public
`@k`. Pass time only: gpuc inlines an in-memory clone (parsing is not timed);
mlir-opt's figure is the Inliner line of `--mlir-timing`.

    python bench/inline_chain.py [--repeat 3] [--mlir-sizes 250,500,1000]
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
from gpuc.dialects.functions import FuncOp
from gpuc.transforms.inline import inline_module

MLIR_OPT = "mlir-opt-16"


# The same chain in both dialects: (header, function, call, return) templates.
DIALECTS = {
    "gpuc": (
        [
            "builtin.module {",
            "  gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {",
            "    %r = gpuc.call @f1(%x) : (f32) -> f32",
            "    gpuc.store %r, %p : !gpuc.ptr<f32, global>",
            "    gpuc.return",
            "  }",
        ],
        "  gpuc.func private @f{i}(%x: f32) -> f32 helper always_inline {{",
        "    %z = gpuc.call @f{j}(%y) : (f32) -> f32",
        "    gpuc.return {v} : f32",
    ),
    "func": (
        [
            "module {",
            "  func.func @k(%x: f32) -> f32 {",
            "    %r = func.call @f1(%x) : (f32) -> f32",
            "    return %r : f32",
            "  }",
        ],
        "  func.func private @f{i}(%x: f32) -> f32 {{",
        "    %z = func.call @f{j}(%y) : (f32) -> f32",
        "    return {v} : f32",
    ),
}


def chain(n: int, dialect: str) -> str:
    """`@k` calls `@f1`, `@fi` calls `@f(i+1)`, up to `@fn`."""
    header, function, call, ret = DIALECTS[dialect]
    lines = list(header)
    for i in range(1, n + 1):
        lines += [function.format(i=i), "    %y = arith.addf %x, %x : f32"]
        if i < n:
            lines += [call.format(j=i + 1), ret.format(v="%z")]
        else:
            lines.append(ret.format(v="%y"))
        lines.append("  }")
    return "\n".join([*lines, "}"]) + "\n"


def gpuc_time(n: int, repeat: int) -> float:
    module = Parser(make_context(), chain(n, "gpuc")).parse_module()
    times: list[float] = []
    for _ in range(repeat):
        work = module.clone()
        assert isinstance(work, ModuleOp)
        gc.collect()
        start = time.perf_counter()
        inline_module(work)
        times.append(time.perf_counter() - start)
        funcs = [op for op in work.ops if isinstance(op, FuncOp)]
        assert len(funcs) == 1, "the chain was not inlined away"
    return statistics.median(times)


_INLINER = re.compile(r"^\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+Inliner\s*$")


def mlir_time(n: int, repeat: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "chain.mlir")
        path.write_text(chain(n, "func"))
        times: list[float] = []
        for _ in range(repeat):
            run = subprocess.run(
                [MLIR_OPT, "--inline", "--mlir-timing", str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            times += [
                float(m.group(1))
                for line in run.stderr.splitlines()
                if (m := _INLINER.match(line))
            ]
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mlir-sizes", default="250,500,1000")
    args = parser.parse_args()
    for n in (1_000, 10_000):
        print(f"gpuc inline, {n:>6}-function chain: {gpuc_time(n, args.repeat):7.3f} s")
    if shutil.which(MLIR_OPT) is None:
        print(f"{MLIR_OPT} not found: install mlir-16-tools for the comparison")
        return
    for n in (int(s) for s in args.mlir_sizes.split(",")):
        seconds = mlir_time(n, args.repeat)
        print(f"{MLIR_OPT} --inline, {n:>6}-function chain: {seconds:7.3f} s")


if __name__ == "__main__":
    main()
