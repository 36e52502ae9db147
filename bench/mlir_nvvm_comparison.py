"""Piece by piece: what MLIR's own NVVM path lowers, what gpuc compiles and runs.

The pieces are what real frontends hand a GPU compiler:

- linalg programs (tests/fixtures/linalg/programs.mlir: a strided slice,
  matmul, batched matmul, NHWC and NCHW convolutions, depthwise convolution,
  pooling, an f16 reduction, softmax), each function lowered by mlir-opt-22
  through parallel loops (`--convert-linalg-to-parallel-loops`, untiled,
  tiled by `--scf-parallel-loop-tiling` and tiled with its
  `no-min-max-bounds`, then `--gpu-map-parallel-loops
  --convert-parallel-loops-to-gpu --gpu-kernel-outlining`);
- xDSL's stencil programs through xDSL's stencil pipeline, untiled and tiled
  (bench/xdsl_stencil_corpus.py), then, for MLIR only, mlir-opt-22's
  `--convert-parallel-loops-to-gpu --gpu-kernel-outlining`.

MLIR's NVVM path is `mlir-opt-22 --gpu-lower-to-nvvm-pipeline=cubin-format=isa`
on that: its kernels are the PTX `.entry`s it emits (a loop nest
convert-parallel-loops-to-gpu leaves as loops becomes no kernel there).
gpuc compiles the same input (the xDSL module itself for the stencils) for
ptx (ptxas) and runs each piece, host code included (`gpuc.run_host`), on
native and spirv on fresh random inputs (arrays only written poisoned with
NaN) against a numpy reference: the piece's loops before mapping, evaluated
by tests/loop_reference.py. Prints a table and the totals.

    python bench/mlir_nvvm_comparison.py [--only NAME] [--capture DIR]

`--capture DIR` first writes the linalg programs as mlir-opt-22 lowers them
for each tiling to DIR (FIXTURES names the files; tests/fixtures/linalg/
holds them, and tests/test_strided_params.py runs them without mlir-opt-22).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("GPUC_CACHE", "0")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

MLIR_OPT = "mlir-opt-22"
PROGRAMS = ROOT / "tests" / "fixtures" / "linalg" / "programs.mlir"
TILE = "--scf-parallel-loop-tiling=parallel-loop-tile-sizes=4,3"
TILINGS = {
    "untiled": [],
    "tiled": [TILE],
    "tiled-guarded": [TILE.replace("=4,3", "=4,3 no-min-max-bounds=true")],
}
"""How the linalg programs' loops are tiled: not at all; by
scf-parallel-loop-tiling (inner bounds an affine.min of the tile); and with
its `no-min-max-bounds` (constant inner bounds, an `scf.if` guard)."""
FIXTURES = {
    "untiled": "programs.mlir22.mlir",
    "tiled": "programs.tiled-outlined.mlir22.mlir",
    "tiled-guarded": "programs.tiled-guarded.mlir22.mlir",
}
"""The name of each tiling's capture in tests/fixtures/linalg/."""
TO_GPU = (
    "--gpu-map-parallel-loops",
    "--convert-parallel-loops-to-gpu",
    "--gpu-kernel-outlining",
)
NVVM = "--gpu-lower-to-nvvm-pipeline=cubin-format=isa"
REFERENCE = ("--convert-linalg-to-parallel-loops", "--lower-affine")
RUN_TARGETS = ["native", "spirv"]


def mlir_opt(text: str, *passes: str) -> str:
    """mlir-opt-22's generic print of `text` after `passes` (RuntimeError:
    its diagnostic)."""
    done = subprocess.run(
        [MLIR_OPT, *passes, "--mlir-print-op-generic", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[0][:120])
    return done.stdout


def functions(path: Path) -> list[tuple[str, str]]:
    """Each `func.func` of the linalg programs as its own module text."""
    text = path.read_text()
    starts = [m.start() for m in re.finditer(r"^func\.func @", text, re.M)]
    return [
        (re.match(r"func\.func @(\w+)", text[a:]).group(1), text[a:b])  # type: ignore[union-attr]
        for a, b in zip(starts, [*starts[1:], len(text)], strict=True)
    ]


def mlir_kernels(gpu_text: str) -> str:
    """How many kernels MLIR's NVVM path makes of `gpu_text`, or why none."""
    try:
        lowered = subprocess.run(
            [MLIR_OPT, NVVM, "-"],
            input=gpu_text,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    if lowered.returncode:
        return "fails: " + lowered.stderr.strip().splitlines()[0][:80]
    return str(len(re.findall(r"\.entry ", lowered.stdout)))


def gpuc_kernels(source: Any) -> str:
    """How many kernels gpuc compiles of `source` for ptx (ptxas-checked),
    or its diagnostic."""
    from gpuc.compiler import compile_module

    try:
        result = compile_module(source, "ptx", sm=90, validate=True)
    except Exception as e:
        return "refused: " + str(e).splitlines()[0][:80]
    return str(len(re.findall(r"^\.(?:visible )?\.entry ", result.artefact, re.M)))


def capture_fixtures(directory: Path) -> None:
    """The linalg programs as mlir-opt-22 lowers them for MLIR's NVVM path,
    a file per tiling, each headed by the command that made it."""
    for tiling, tile in TILINGS.items():
        passes = ["--convert-linalg-to-parallel-loops", *tile, *TO_GPU]
        text = mlir_opt(PROGRAMS.read_text(), *passes)
        command = (
            f"// {MLIR_OPT} tests/fixtures/linalg/programs.mlir {' '.join(passes)}"
            " --mlir-print-op-generic\n"
        )
        (directory / FIXTURES[tiling]).write_text(command + text)


def linalg_rows(only: str, seed: int) -> list[list[str]]:
    from xdsl_stencil_corpus import check_runs

    from gpuc.host.runner import parse_host_module

    rows: list[list[str]] = []
    for name, source in functions(PROGRAMS):
        if only not in name:
            continue
        reference = parse_host_module(mlir_opt(source, *REFERENCE))
        for tiling, tile in TILINGS.items():
            passes = ["--convert-linalg-to-parallel-loops", *tile, *TO_GPU]
            label = f"linalg {name} {tiling}"
            gpu_text = mlir_opt(source, *passes)
            runs = check_runs(reference, lambda t=gpu_text: t, RUN_TARGETS, seed)
            rows.append([label, mlir_kernels(gpu_text), gpuc_kernels(gpu_text), runs])
            print(" | ".join(rows[-1]), flush=True)
    return rows


def stencil_rows(only: str, seed: int) -> list[list[str]]:
    from xdsl.printer import Printer
    from xdsl_stencil_corpus import check_runs, lower, pieces

    rows: list[list[str]] = []
    for name, text in pieces():
        if only not in name:
            continue
        for tiled in (False, True):
            label = f"stencil {name} {'tiled' if tiled else 'untiled'}"
            try:
                module = lower(text, tiled)
                module.verify()
            except Exception:  # noqa: S112 - xDSL's pipeline, counted by the corpus bench
                continue
            out = io.StringIO()
            Printer(stream=out, print_generic_format=True).print_op(module)
            try:
                gpu_text = mlir_opt(out.getvalue(), *TO_GPU[1:])
                mlir = mlir_kernels(gpu_text)
            except RuntimeError as e:
                mlir = f"mlir-opt-22 cannot read it: {e}"
            gpuc = gpuc_kernels(lower(text, tiled))
            runs = "-"
            if not gpuc.startswith("refused"):
                reference = lower(text, False, mapped=False)
                runs = check_runs(
                    reference, lambda t=text, k=tiled: lower(t, k), RUN_TARGETS, seed
                )
            rows.append([label, mlir, gpuc, runs])
            print(" | ".join(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="pieces whose name has this")
    parser.add_argument("--capture", type=Path, help="write the linalg pieces here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-stencils", action="store_true")
    args = parser.parse_args()
    print("piece | MLIR NVVM kernels | gpuc ptx kernels | gpuc runs vs numpy")
    if args.capture is not None:
        capture_fixtures(args.capture)
    rows = linalg_rows(args.only, args.seed)
    if not args.no_stencils:
        rows += stencil_rows(args.only, args.seed)
    mlir_lowered = [r for r in rows if r[1].isdigit() and int(r[1]) > 0]
    both = [r for r in mlir_lowered if r[2].isdigit()]
    correct = [
        r for r in rows if all(f"{t} matches numpy" in r[3] for t in RUN_TARGETS)
    ]
    print(
        f"pieces: {len(rows)}; MLIR's NVVM path made kernels of {len(mlir_lowered)}, "
        f"gpuc compiled {len(both)} of those and "
        f"{sum(r[2].isdigit() for r in rows)} in all; "
        f"correct on {' and '.join(RUN_TARGETS)}: {len(correct)}"
    )


if __name__ == "__main__":
    main()
