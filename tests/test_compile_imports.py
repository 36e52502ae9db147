"""A compile imports only what its input needs (bench/compile_latency.py:
imports are most of a cold `gpuc compile`). Each module below costs 5-30 ms
to import and is needed only for input that gpuc's own dialects do not cover;
a fresh interpreter compiles examples/saxpy.mlir to PTX without them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NOT_NEEDED = {
    "importlib.metadata": "entry-point generators, looked up only for a job "
    "naming a generator that is neither given nor shipped",
    "xdsl.dialects.gpu": "the import pass, for modules with foreign ops",
    "xdsl.dialects.memref": "the import pass, for modules with foreign ops",
    "gpuc.transforms.foreign.conversion": "the import pass's conversion",
    "xdsl.dialects.func": "the inliner matches func.func by name",
    "xdsl.dialects.cf": "the inliner, for callees of several blocks",
}


def modules_loaded_by(code: str) -> list[str]:
    script = (
        "import json, sys\n"
        f"{code}\n"
        f"print(json.dumps(sorted(m for m in {sorted(NOT_NEEDED)!r} "
        "if m in sys.modules)))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    loaded: list[str] = json.loads(run.stdout.splitlines()[-1])
    return loaded


def test_compiling_gpuc_dialects_imports_none_of_the_foreign_machinery() -> None:
    saxpy = ROOT / "examples" / "saxpy.mlir"
    loaded = modules_loaded_by(
        f"from gpuc.driver import compile_module\ncompile_module({str(saxpy)!r}, 'ptx')"
    )
    assert loaded == [], {m: NOT_NEEDED[m] for m in loaded}


def test_a_foreign_module_still_gets_them() -> None:
    # The same check sees them when the input needs them (it can fail).
    loaded = modules_loaded_by(
        "from gpuc.driver import compile_module\n"
        "compile_module('''func.func @k(%x: memref<4xf32>) attributes "
        "{gpu.kernel} { func.return }''', 'ptx')"
    )
    assert {"xdsl.dialects.func", "xdsl.dialects.memref"} <= set(loaded)
    assert "gpuc.transforms.foreign.conversion" in loaded
