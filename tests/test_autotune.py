"""`gpuc.autotune` (docs/autotune.md): four tile sizes of examples/matmul.mlir
on native and spirv, each timed; the fastest is kept and gives numpy's
product; a second call takes the choice from the cache without timing; a
variant that cannot run is left out with its error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import test_compile_many

import gpuc
from gpuc.runtime.args import LaunchError

ROOT = Path(__file__).resolve().parent.parent
MATMUL = (ROOT / "examples" / "matmul.mlir").read_text()


def tiled(tile: int, target: str) -> dict[str, Any]:
    """examples/matmul.mlir with `tile` x `tile` tiles, launched on blocks of
    that shape."""
    source = MATMUL.replace(
        "arith.constant 16 : index", f"arith.constant {tile} : index"
    )
    source = source.replace("shared_alloc 256", f"shared_alloc {tile * tile}")
    return {"source": source, "target": target, "block": (tile, tile)}


# A fresh compile cache directory per test.
cache_dir = test_compile_many.cache_dir


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_autotune_keeps_the_fastest_tile_and_remembers_it(
    cache_dir: Path, target: str
) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")
    rng = np.random.default_rng()
    m, n, k = 40, 56, 72
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, np.float32)
    variants = [tiled(t, target) for t in (4, 8, 16, 32)]
    args = (a, b, c, m, n, k)
    tuned = gpuc.autotune(variants, "matmul", args, over=(n, m), warmup=1, runs=3)
    assert not tuned.cached and tuned.errors == {}
    times = tuned.times_ms
    assert all(t is not None and t > 0 for t in times)
    assert tuned.index == min(range(4), key=lambda i: times[i] or 0.0)
    assert tuned.block == variants[tuned.index]["block"]
    c[...] = np.nan
    tuned(*args)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    again = gpuc.autotune(variants, "matmul", args, over=(n, m))
    assert again.cached and again.times_ms == []
    assert (again.index, again.grid, again.block) == (
        tuned.index,
        tuned.grid,
        tuned.block,
    )
    # Other shapes are another choice: timed again.
    smaller = (a[:8].copy(), b, c[:8].copy(), 8, n, k)
    assert not gpuc.autotune(variants, "matmul", smaller, over=(n, 8)).cached


def test_autotune_leaves_out_what_cannot_run(cache_dir: Path) -> None:
    a = np.ones((4, 4), np.float32)
    c = np.zeros((4, 4), np.float32)
    runs = [tiled(4, "native"), tiled(64, "native")]  # 64 x 64: 4096 threads
    tuned = gpuc.autotune(runs, "matmul", (a, a, c, 4, 4, 4), over=(4, 4), runs=1)
    assert tuned.index == 0 and tuned.times_ms[1] is None
    assert "4096 threads" in str(tuned.errors[1])
    with pytest.raises(LaunchError, match=r"no variant ran \(variant 0: .*4096"):
        gpuc.autotune(runs[1:], "matmul", (a, a, c, 4, 4, 4), over=(4, 4))
    with pytest.raises(LaunchError, match="variant 0 has no 'grid'"):
        gpuc.autotune(runs, "matmul", (a, a, c, 4, 4, 4))
    with pytest.raises(LaunchError, match="no variants"):
        gpuc.autotune([], "matmul", ())
