"""A compile imports only what its input needs (bench/compile_latency.py:
imports are most of a cold `gpuc compile`). Each module below costs 5-30 ms
to import and is needed only for input that gpuc's own dialects do not cover;
a fresh interpreter compiles examples/saxpy.mlir to PTX without them."""

from __future__ import annotations

import json
import os
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
    "numpy": "the executors (55 ms to import); a compile writes its artefact "
    "without them: what compiled code and executors share is in "
    "gpuc/targets/launch_abi.py",
    "gpuc.runtime": "the executors",
    "xdsl.interpreters": "gpuc run, for host code",
}


def run_watching(
    code: str, watched: list[str], env: dict[str, str] | None = None
) -> tuple[object, list[str], str]:
    """Run `code` in a fresh interpreter; the `status` it set (None if it set
    none), which of `watched` it imported, and its stderr."""
    script = (
        "import json, sys\n"
        "status = None\n"
        f"{code}\n"
        f"print(json.dumps([status, sorted(m for m in {watched!r} "
        "if m in sys.modules)]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    status, loaded = json.loads(run.stdout.splitlines()[-1])
    return status, loaded, run.stderr


def modules_loaded_by(code: str) -> list[str]:
    return run_watching(code, sorted(NOT_NEEDED))[1]


def test_compiling_gpuc_dialects_imports_none_of_the_foreign_machinery() -> None:
    saxpy = ROOT / "examples" / "saxpy.mlir"
    loaded = modules_loaded_by(
        "from gpuc.compiler import compile_module\n"
        f"compile_module({str(saxpy)!r}, 'ptx')"
    )
    assert loaded == [], {m: NOT_NEEDED[m] for m in loaded}


def test_a_foreign_module_still_gets_them() -> None:
    # The same check sees them when the input needs them (it can fail).
    loaded = modules_loaded_by(
        "from gpuc.compiler import compile_module\n"
        "compile_module('''func.func @k(%x: memref<4xf32>) attributes "
        "{gpu.kernel} { func.return }''', 'ptx')"
    )
    assert {"xdsl.dialects.func", "xdsl.dialects.memref"} <= set(loaded)
    assert "gpuc.transforms.foreign.conversion" in loaded


def test_the_api_compiles_without_numpy() -> None:
    """`gpuc.compile` of a Python kernel or of MLIR needs numpy no more than
    the compiler does: only a launch (or a module's signatures, made on first
    use) does."""
    loaded = run_watching(
        "import sys\n"
        "sys.path.insert(0, 'examples/python')\n"
        "import gpuc, softmax\n"
        "mod = gpuc.compile(softmax.softmax, 'ptx')\n"
        "assert '.entry softmax' in mod.artefact\n"
        "mod = gpuc.compile('examples/saxpy.mlir', 'spirv')\n"
        "assert mod.artefact",
        ["numpy", "gpuc.runtime.args"],
    )[1]
    assert loaded == []


def cli_modules(argv: list[str], watched: list[str]) -> tuple[int, list[str], str]:
    """Run `gpuc argv` in a fresh interpreter; its status, which of `watched`
    it imported, and its stderr."""
    env = {**os.environ, "GPUC_CACHE": "0", "GPUC_SERVER": "0"}
    code = f"from gpuc.cli.main import main\nstatus = main({argv!r})"
    status, loaded, err = run_watching(code, watched, env)
    assert isinstance(status, int)
    return status, loaded, err


OTHER_TARGETS = [
    "gpuc.targets.spirv",
    "gpuc.targets.native.target",
    "gpuc.targets.amdgpu.target",
    "importlib.metadata",
]


def test_a_compile_naming_its_target_loads_no_other(tmp_path: Path) -> None:
    """`--target ptx` parses with ptx's flags alone: no other target module,
    no scan of the installed plugins."""
    saxpy = str(ROOT / "examples" / "saxpy.mlir")
    out = str(tmp_path / "s.ptx")
    status, loaded, _ = cli_modules(
        ["compile", saxpy, "--target", "ptx", "--sm", "80", "-o", out], OTHER_TARGETS
    )
    assert status == 0 and loaded == []
    assert ".target sm_80" in Path(out).read_text()


def test_scoped_and_full_command_lines_agree(tmp_path: Path) -> None:
    """Where the scoped parser would differ (another target's flag, an
    abbreviation, help), the full one decides, with its usual words."""
    saxpy = str(ROOT / "examples" / "saxpy.mlir")
    status, loaded, err = cli_modules(
        ["compile", saxpy, "--target", "spirv", "--sm", "80"], OTHER_TARGETS
    )
    assert status == 1 and "--sm applies to --target ptx only" in err
    assert "gpuc.targets.native.target" in loaded  # the full parser ran
    out = str(tmp_path / "a.ptx")
    status, _, err = cli_modules(
        ["compile", saxpy, "--target", "ptx", "--ptx-is", "80", "-o", out], []
    )
    assert status == 0, err  # an abbreviation, as before
    assert ".version 8.0" in Path(out).read_text()
    status, _, err = cli_modules(["compile", saxpy, "--target", "ptx", "-O", "9"], [])
    assert status == 1 and "invalid choice: 9" in err
