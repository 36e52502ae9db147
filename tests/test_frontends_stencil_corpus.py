"""xDSL's own stencil programs (the test files the xdsl wheel ships), through
xDSL's stencil pipeline untiled and tiled, compiled by gpuc and run, host
code included (`gpuc.run_host`), on native and spirv against a numpy
reference of the same program's loops (tests/loop_reference.py), on fresh
random inputs with the arrays it only writes poisoned. A representative
subset of bench/xdsl_stencil_corpus.py, which runs them all: a load at index
-1 of a view (stencil_ops #2), a temporary allocated with a negative layout
offset (stencil-inlining #0), views past the end of a buffer's dimension
and eight kernels (stencil-storage-materialization #0), a 3-D field through
dynamic sizes (canonicalize #0). Their tiled forms pass ptxas and
spirv-val and link for amdgpu. Rerun with GPUC_TEST_SEED=<seed>.
"""

from __future__ import annotations

import os
import secrets
import sys
from functools import partial
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from xdsl_stencil_corpus import check_runs, lower, pieces  # noqa: E402

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_frontends_stencil_corpus: GPUC_TEST_SEED={SEED}")
PIECES = {
    "stencil_ops.mlir#2": ("untiled", "tiled"),
    "stencil-inlining.mlir#0": ("untiled", "tiled"),
    "stencil-storage-materialization.mlir#0": ("tiled",),
    "canonicalize.mlir#0": ("untiled",),
}
FOUND = dict(pieces())


@pytest.mark.parametrize(
    ("piece", "tiling"), [(p, t) for p, tilings in PIECES.items() for t in tilings]
)
def test_xdsl_stencil_piece_matches_numpy(piece: str, tiling: str) -> None:
    if piece not in FOUND:
        pytest.skip(f"the installed xdsl ships no {piece}")
    text = FOUND[piece]
    reference = lower(text, False, mapped=False)
    said = check_runs(
        reference, partial(lower, text, tiling == "tiled"), ["native", "spirv"], SEED
    )
    assert said == "native matches numpy, spirv matches numpy", f"seed {SEED}: {said}"


@pytest.mark.parametrize("target", ["ptx", "spirv", "amdgpu"])
def test_xdsl_stencil_pieces_pass_the_targets_validators(target: str) -> None:
    """ptxas, spirv-val, and ld.lld's code object for amdgpu, on the tiled
    pieces (each kernel a grid-stride loop over its tile)."""
    from gpuc.compiler import compile_module

    found = [p for p in PIECES if p in FOUND]
    if not found:
        pytest.skip("the installed xdsl ships none of the pieces")
    options: dict[str, object] = {"validate": target != "amdgpu"}
    if target == "ptx":
        options["sm"] = 90
    for piece in found:
        result = compile_module(lower(FOUND[piece], True), target, **options)
        assert result.artefact, piece
