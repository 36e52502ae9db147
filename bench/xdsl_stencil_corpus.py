"""xDSL's own stencil programs through xDSL's stencil pipeline into gpuc.

Reads the stencil test files installed with xDSL (`tests/filecheck/...` in
site-packages, where the xdsl wheel ships them), splits each at `// -----`,
and for every piece that parses and holds a `stencil.apply` runs xDSL's
`stencil-storage-materialization,shape-inference,convert-stencil-to-ll-mlir`
then `gpu-map-parallel-loops`, untiled and tiled
(`scf-parallel-loop-tiling{parallel-loop-tile-sizes=4,4,4}`), and compiles
the result with gpuc for native. Each piece that compiles then runs, host
code included (`gpuc.run_host`), on native and spirv (Intel's OpenCL CPU
runtime) on fresh random inputs, the arrays it only writes poisoned with
NaN, and every array is compared with a numpy reference: the same piece
lowered without mapping or tiling, its loops evaluated by
tests/loop_reference.py. Prints, per piece, what xDSL's pipeline refused or
left invalid (not gpuc's business), what gpuc compiled (and how many
kernels) and whether each run matched numpy, and each gpuc diagnostic's
first line; then the totals.

    python bench/xdsl_stencil_corpus.py [--target native] [--run native,spirv]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("GPUC_CACHE", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

PIPELINE = "stencil-storage-materialization,shape-inference,convert-stencil-to-ll-mlir"
TILING = "scf-parallel-loop-tiling{parallel-loop-tile-sizes=4,4,4}"


def pieces() -> list[tuple[str, str]]:
    import xdsl

    root = Path(xdsl.__file__).parent.parent / "tests" / "filecheck"
    found: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.mlir")):
        if "stencil" not in str(path) or "csl" in path.name or "invalid" in path.name:
            continue
        text = path.read_text()
        if "stencil.apply" not in text:
            continue
        for k, piece in enumerate(text.split("// -----")):
            if "stencil.apply" in piece and "func.func" in piece:
                found.append((f"{path.name}#{k}", piece))
    return found


def lower(text: str, tiled: bool, mapped: bool = True) -> Any:
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser
    from xdsl.passes import PassPipeline
    from xdsl.transforms import get_all_passes

    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = Parser(ctx, text).parse_module()
    mapping = ["gpu-map-parallel-loops"] if mapped else []
    spec = ",".join([PIPELINE, *([TILING] if tiled else []), *mapping])
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    return module


def check_runs(
    reference_module: Any, program: Callable[[], Any], targets: list[str], seed: int
) -> str:
    """Run each host function with memref arguments of `program()` (a fresh
    module or its text, as `gpuc.run_host` takes it) on `targets`, against
    tests/loop_reference.py's run of the same function of
    `reference_module`; what happened, in a few words per target."""
    import loop_reference
    from xdsl.dialects import builtin, func

    import gpuc

    names = [
        op.sym_name.data
        for op in reference_module.ops
        if isinstance(op, func.FuncOp)
        and op.body.blocks
        and any(isinstance(t, builtin.MemRefType) for t in op.function_type.inputs)
    ]
    said: list[str] = []
    for target in targets:
        bad: list[str] = []
        for name in names:
            rng = np.random.default_rng([seed, len(said), len(bad)])
            try:
                args = loop_reference.arguments(reference_module, name, rng)
            except loop_reference.Unsupported as e:
                bad.append(f"@{name}: no reference ({e})")
                continue
            want = loop_reference.copied(args)
            got = loop_reference.copied(args)
            try:
                loop_reference.run(reference_module, name, want)
            except loop_reference.Unsupported as e:
                bad.append(f"@{name}: no reference ({e})")
                continue
            try:
                gpuc.run_host(program(), target, entry=name, args=got)
            except Exception as e:
                bad.append(f"@{name}: {str(e).splitlines()[0][:120]}")
                continue
            for k, (w, g) in enumerate(zip(want, got, strict=True)):
                if isinstance(w, np.ndarray) and not np.allclose(
                    g,
                    w,
                    rtol=1e-9 if w.dtype == np.float64 else 1e-5,
                    atol=1e-12 if w.dtype == np.float64 else 1e-6,
                    equal_nan=True,
                ):
                    wrong = int((~np.isclose(g, w, equal_nan=True)).sum())
                    bad.append(f"@{name}: argument {k} differs in {wrong} elements")
        said.append(f"{target} " + ("matches numpy" if not bad else "; ".join(bad)))
    return ", ".join(said)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="native")
    parser.add_argument("--run", default="native,spirv", help="'' to only compile")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="the pieces whose name has this")
    args = parser.parse_args()
    run_targets = [t for t in args.run.split(",") if t]

    import gpuc

    totals = {
        "xdsl refused": 0,
        "xdsl output invalid": 0,
        "no loops": 0,
        "compiled": 0,
        "refused by gpuc": 0,
        **{f"matches numpy on {t}": 0 for t in run_targets},
    }
    for name, text in pieces():
        if args.only not in name:
            continue
        for tiled in (False, True):
            label = f"{name} {'tiled' if tiled else 'untiled'}"
            try:
                module = lower(text, tiled)
            except Exception as e:  # xDSL's pipeline, not gpuc
                totals["xdsl refused"] += 1
                why = (str(e) or type(e).__name__).splitlines()[0][:100]
                print(f"{label}: xDSL's pipeline: {why}")
                continue
            try:
                module.verify()  # type: ignore[attr-defined]
            except Exception as e:  # xDSL's pipeline left it invalid
                totals["xdsl output invalid"] += 1
                why = str(e).splitlines()[0][:100]
                print(f"{label}: xDSL's output does not verify: {why}")
                continue
            if "gpu.loop_dim_map" not in str(module):
                totals["no loops"] += 1
                print(f"{label}: xDSL's pipeline made no mapped loop")
                continue
            try:
                mod = gpuc.compile(module, target=args.target)  # type: ignore[arg-type]
            except Exception as e:
                totals["refused by gpuc"] += 1
                print(f"{label}: gpuc: {str(e).splitlines()[0][:160]}")
                continue
            totals["compiled"] += 1
            reference = lower(text, False, mapped=False)
            runs = check_runs(
                reference, partial(lower, text, tiled), run_targets, args.seed
            )
            for t in run_targets:
                totals[f"matches numpy on {t}"] += f"{t} matches numpy" in runs
            print(f"{label}: compiled, {len(list(mod))} kernel(s); {runs}")
    print(", ".join(f"{k}: {v}" for k, v in totals.items()))


if __name__ == "__main__":
    main()
