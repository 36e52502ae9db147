"""The commands' rough edges, each as a user meets it: `--version` on both
commands, the spirv target's default `--emit` (the binary, as the help says),
what a binary output to a terminal suggests, `gpuc compile -` (stdin), the
help of `-p` and of the input, a missing module reported as an installation
problem, run_example.py without an executor's package, the CUDA tools found
by cuda-pathfinder (and without it), and a clone's `gpuc/` run in place of an
installed package.
"""

from __future__ import annotations

import os
import pty
import site
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

import gpuc
from gpuc.registry import DIALECTS, PASSES
from gpuc.tools import run_spirv_val

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples" / "saxpy.mlir")
BIN = Path(sys.executable).parent
SPIRV_MAGIC = bytes.fromhex("03022307")  # 0x07230203, little-endian


def run(*argv: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    done: subprocess.CompletedProcess[bytes] = subprocess.run(
        [str(a) for a in argv], capture_output=True, **kwargs
    )
    return done


def failed(result: subprocess.CompletedProcess[bytes]) -> str:
    """The message of a run that failed as bad input fails."""
    assert result.returncode == 1, result
    assert result.stdout == b""
    text = result.stderr.decode()
    assert "Traceback" not in text and "internal error" not in text, text
    return text


@pytest.mark.parametrize(
    "argv",
    [
        (BIN / "gpuc", "--version"),
        (sys.executable, "-m", "gpuc.cli", "--version"),
        (BIN / "gpuc-opt", "--version"),
        (BIN / "gpuc-opt", "-v"),
    ],
    ids=["gpuc", "python -m gpuc.cli", "gpuc-opt", "gpuc-opt -v"],
)
def test_version_names_gpuc_xdsl_and_llvm(argv: tuple[str | Path, ...]) -> None:
    from llvmlite import binding

    done = run(*argv)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert gpuc.__version__ == version("gpuc")
    assert f"gpuc {version('gpuc')}" in text.splitlines()[0]
    assert f"xdsl {version('xdsl')}\n" in text
    llvm = ".".join(map(str, binding.llvm_version_info))
    assert f"llvmlite {version('llvmlite')} (LLVM {llvm})" in text


def test_version_comes_from_pyproject() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert gpuc.__version__ == project["version"]


def test_spirv_default_emit_is_the_binary_the_help_names(tmp_path: Path) -> None:
    default, binary = tmp_path / "default.spv", tmp_path / "binary.spv"
    for out, extra in ((default, ()), (binary, ("--emit", "spirv"))):
        done = run(
            sys.executable, "-m", "gpuc.cli", "compile", SAXPY, "--target", "spirv",
            *extra, "-o", out,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    data = default.read_bytes()
    assert data[:4] == SPIRV_MAGIC and data == binary.read_bytes()
    run_spirv_val(data)
    help_text = run(sys.executable, "-m", "gpuc.cli", "compile", "--help")
    assert "spirv for spirv" in " ".join(help_text.stdout.decode().split())


@pytest.mark.parametrize(
    ("target", "text_emit"), [("native", "asm"), ("spirv", "spirv-asm")]
)
def test_binary_to_a_terminal_suggests_the_targets_own_text(
    target: str, text_emit: str
) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gpuc.cli", "compile", SAXPY, "--target", target],
            stdout=follower,
            stderr=subprocess.PIPE,
        )
        os.set_blocking(leader, False)
        try:
            written = os.read(leader, 4096)
        except BlockingIOError:
            written = b""
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 1 and written == b""
    message = done.stderr.decode()
    assert "is binary; write it to a file with -o" in message
    assert f"({text_emit} for --target {target})" in message
    if target == "native":
        assert "spirv-asm" not in message


def test_compile_reads_stdin() -> None:
    source = Path(SAXPY).read_bytes()
    from_file = run(sys.executable, "-m", "gpuc.cli", "compile", SAXPY, "--sm", "80")
    from_stdin = run(
        sys.executable, "-m", "gpuc.cli", "compile", "-", "--sm", "80", input=source
    )
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert b".visible .entry saxpy(" in from_stdin.stdout
    assert from_stdin.stdout == from_file.stdout


def test_bad_stdin_is_located_at_stdin() -> None:
    bad = b"gpuc.func @k() kernel {\n  %x = gpuc.bogus\n  gpuc.return\n}\n"
    message = failed(run(sys.executable, "-m", "gpuc.cli", "compile", "-", input=bad))
    assert message.startswith("<stdin>:2:8: error: unknown operation 'gpuc.bogus'")
    message = failed(
        run(sys.executable, "-m", "gpuc.cli", "compile", "-", input=b"\xff\n")
    )
    assert "'<stdin>': byte 0xff at line 1, column 1 is not UTF-8 text" in message


def test_compile_help_names_every_dialect_of_the_input() -> None:
    text = run(sys.executable, "-m", "gpuc.cli", "compile", "--help").stdout.decode()
    described = " ".join(text.split()).split("file MLIR input")[1].split(" ops ")[0]
    assert [d.strip() for d in described.split(":")[1].split(",")] == list(DIALECTS)


def test_opt_help_lists_gpucs_passes_first_with_what_each_does() -> None:
    text = run(BIN / "gpuc-opt", "--help").stdout.decode()
    own, xdsl = text.split("gpuc's passes:\n")[1].split("\nxDSL's passes")
    for name in PASSES:
        (line,) = [li for li in own.splitlines() if li.startswith(f"  {name} ")]
        assert len(line.split()) > 3, f"{name} has no description: {line!r}"
        assert f" {name}," not in xdsl and not xdsl.rstrip().endswith(f" {name}")
    assert "Inline calls to always_inline callees" in own
    assert "canonicalize," in xdsl
    assert "Available passes are" not in text


def test_a_module_that_does_not_import_is_an_installation_problem() -> None:
    script = (
        "import sys; sys.modules['llvmlite'] = None\n"
        "from gpuc.cli.main import main\n"
        f"sys.exit(main(['compile', {SAXPY!r}, '--emit', 'llvm']))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "GPUC_DEBUG"}
    message = failed(run(sys.executable, "-c", script, env=env))
    assert "gpuc: error: import of llvmlite halted" in message
    assert "not installed completely" in message and "bug in gpuc" not in message


def test_run_example_without_pyopencl_is_a_diagnostic() -> None:
    script = (
        "import runpy, sys; sys.modules['pyopencl'] = None\n"
        "sys.argv = ['run_example.py', 'saxpy', '--target', 'spirv']\n"
        f"runpy.run_path({str(ROOT / 'examples' / 'run_example.py')!r}, "
        "run_name='__main__')\n"
    )
    done = run(sys.executable, "-c", script)
    assert done.returncode == 1
    message = done.stderr.decode()
    assert "Traceback" not in message
    assert message.startswith("run_example.py: error: cannot run on spirv:")
    assert "the spirv executor needs pyopencl" in message
    assert "pip install pyopencl" in message


def test_cuda_files_come_from_cuda_pathfinder_and_without_it() -> None:
    pathfinder = pytest.importorskip("cuda.pathfinder")
    script = (
        "import sys\n"
        "if sys.argv[1] == 'without': sys.modules['cuda.pathfinder'] = None\n"
        "from gpuc import tools\n"
        "print(tools.ptxas()); print(tools.libdevice()); print(tools.cudadevrt())\n"
    )
    found = {
        mode: run(sys.executable, "-c", script, mode, check=True).stdout.split()
        for mode in ("with", "without")
    }
    expected = [
        pathfinder.find_nvidia_binary_utility("ptxas"),
        pathfinder.find_bitcode_lib("device"),
        pathfinder.find_static_lib("cudadevrt"),
    ]
    assert [p.decode() for p in found["with"]] == expected
    # The scan finds the same files (perhaps through another spelling).
    assert [Path(p.decode()).resolve() for p in found["without"]] == [
        Path(p).resolve() for p in expected
    ]


def test_a_clones_gpuc_runs_in_place_of_the_installed_package(tmp_path: Path) -> None:
    """As from a clone's root with a regular install (the current directory
    first on sys.path, no editable finder): `gpuc.dialects` and friends come
    from the clone's gpuc/dialects/, gpuc/transforms/ and gpuc/lowering/."""
    script = (
        "import runpy, sys\n"
        f"sys.path[:0] = [{str(ROOT)!r}]\n"
        f"sys.path += {site.getsitepackages()!r}\n"
        "import gpuc.dialects, gpuc.transforms, gpuc.lowering\n"
        "print(gpuc.__file__); print(gpuc.dialects.__file__)\n"
        "print(gpuc.transforms.__file__); print(gpuc.lowering.__file__)\n"
        "sys.argv = ['gpuc', 'compile', sys.argv[1], '--target', 'native',"
        " '--emit', 'llvm', '-o', sys.argv[2]]\n"
        "runpy.run_module('gpuc.cli', run_name='__main__')\n"
    )
    out = tmp_path / "saxpy.ll"
    # -S: no site processing, so no .pth file (an editable install's finder)
    # runs; this environment's site directories are added as plain paths.
    done = run(sys.executable, "-S", "-c", script, SAXPY, out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    paths = done.stdout.decode().split()
    assert paths == [
        str(ROOT / "gpuc" / "__init__.py"),
        str(ROOT / "gpuc" / "dialects" / "__init__.py"),
        str(ROOT / "gpuc" / "transforms" / "__init__.py"),
        str(ROOT / "gpuc" / "lowering" / "__init__.py"),
    ]
    assert "define void @__gpuc_launch_saxpy(" in out.read_text()
