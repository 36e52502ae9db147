"""xDSL's own stencil programs through xDSL's stencil pipeline into gpuc.

Reads the stencil test files installed with xDSL (`tests/filecheck/...` in
site-packages, where the xdsl wheel ships them), splits each at `// -----`,
and for every piece that parses and holds a `stencil.apply` runs xDSL's
`stencil-storage-materialization,shape-inference,convert-stencil-to-ll-mlir`
then `gpu-map-parallel-loops`, untiled and tiled
(`scf-parallel-loop-tiling{parallel-loop-tile-sizes=4,4,4}`), and compiles
the result with gpuc for native. Prints, per piece, what xDSL's pipeline
refused or left invalid (not gpuc's business), what gpuc compiled (and how
many kernels), and each gpuc diagnostic's first line; then the totals.

    python bench/xdsl_stencil_corpus.py [--target native]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("GPUC_CACHE", "0")

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


def lower(text: str, tiled: bool) -> object:
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser
    from xdsl.passes import PassPipeline
    from xdsl.transforms import get_all_passes

    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = Parser(ctx, text).parse_module()
    spec = ",".join([PIPELINE, *([TILING] if tiled else []), "gpu-map-parallel-loops"])
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="native")
    args = parser.parse_args()

    import gpuc

    totals = {
        "xdsl refused": 0,
        "xdsl output invalid": 0,
        "no loops": 0,
        "compiled": 0,
        "refused by gpuc": 0,
    }
    for name, text in pieces():
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
            print(f"{label}: compiled, {len(list(mod))} kernel(s)")
    print(", ".join(f"{k}: {v}" for k, v in totals.items()))


if __name__ == "__main__":
    main()
