"""The affine ops loop tiling leaves (tests/filecheck/import/affine_ops.mlir's
kernel: a semi-affine ceildiv, min, mod, floordiv, max and a map of
constants) computed on native and spirv against the maps evaluated in Python,
for fresh sizes and divisors each run (negative operands included, where
floordiv, ceildiv and mod round differently from C's division)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import numpy as np
import pytest
from kernel_modules import compiled, seeded

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_affine_ops: GPUC_TEST_SEED={SEED}")
SOURCE = Path(__file__).parent / "filecheck" / "import" / "affine_ops.mlir"


def expected(x: int, n: int, s: int) -> int:
    t = -(-(x - s) // s)
    lo = min(32, (n - t) - t)
    md = lo % 5  # Python's % is affine's mod for a positive divisor
    return max(md // 2, lo - 3) + 8


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_affine_maps_match_python(target: str) -> None:
    r = seeded(SEED, "affine", target)
    count = 64
    n, s = int(r.integers(-40, 80)), int(r.integers(1, 9))
    out = np.full(count, np.nan, np.float32)
    compiled(SOURCE.read_text(), target)["k"][1, count](out, n, s)
    want = [expected(x, n, s) for x in range(count)]
    np.testing.assert_array_equal(out, np.array(want, np.float32))
