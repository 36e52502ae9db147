"""The native executor keeps its JIT object code in the compile cache: a second
executor for the same IR, in a fresh process, loads it instead of compiling
(MCJIT's object-cache hooks), and runs the same; a corrupt entry is ignored
and replaced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gpuc.cache.store import Cache

EXAMPLES = Path(__file__).parents[1] / "examples"

# One process: compile saxpy (the compile cache off), build an executor,
# launch it on seeded random inputs; print how the JIT cache served it and
# the output's bytes.
SCRIPT = """
import json, sys
import numpy as np
import gpuc
from gpuc.runtime.native import NativeExecutor

m = gpuc.compile(sys.argv[1], target="native", cache=False)
ex = NativeExecutor(m.llvm_ir, m.signatures)
rng = np.random.default_rng(7)
n = 1000
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
expected = np.float32(2.5) * x + y
ex.launch("saxpy", (4,), (256,), (np.float32(2.5), x, y, np.int32(n)))
print(json.dumps({
    "jit_cache": ex.jit_cache,
    "close": bool(np.allclose(y, expected, rtol=1e-5, atol=1e-6)),
    "output": y.tobytes().hex(),
}))
"""


def run_fresh(directory: Path, enabled: bool = True) -> dict[str, object]:
    env = dict(os.environ, GPUC_CACHE_DIR=str(directory))
    env["GPUC_CACHE"] = "1" if enabled else "0"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(EXAMPLES / "saxpy.mlir")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["close"], "saxpy's output differs from numpy's"
    return result


def native_entries(directory: Path) -> list[Path]:
    return sorted(
        p for p in (Cache(directory).folder / "native").rglob("*") if p.is_file()
    )


def test_a_second_process_loads_the_object_and_runs_the_same(tmp_path: Path) -> None:
    first = run_fresh(tmp_path)
    assert first["jit_cache"] == "miss"
    assert len(native_entries(tmp_path)) == 1
    second = run_fresh(tmp_path)
    assert second["jit_cache"] == "hit"
    assert second["output"] == first["output"]


def test_a_corrupt_entry_is_ignored_and_replaced(tmp_path: Path) -> None:
    first = run_fresh(tmp_path)
    (entry,) = native_entries(tmp_path)
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0xFF  # in the object code
    entry.write_bytes(bytes(data))
    again = run_fresh(tmp_path)
    assert again["jit_cache"] == "miss"
    assert again["output"] == first["output"]
    assert run_fresh(tmp_path)["jit_cache"] == "hit"


def test_off_stores_nothing(tmp_path: Path) -> None:
    assert run_fresh(tmp_path, enabled=False)["jit_cache"] == "off"
    assert not (Cache(tmp_path).folder / "native").exists()
