"""examples/python/: every kernel of examples/*.mlir written in Python, run
with the launches and checks the .mlir kernels pass (examples/cases.py) on
native and spirv; `gpuc.to_mlir` of each read back by `gpuc-opt -p import`
(standard dialects only, but for the deferred ops); each validated by ptxas.
"""

from __future__ import annotations

import importlib
import os
import secrets
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import gpuc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "python"))
from cases import EXAMPLES, run  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_python_examples: GPUC_TEST_SEED={BASE_SEED}")
PYTHON_EXAMPLES = sorted(p.stem for p in (ROOT / "examples" / "python").glob("*.py"))
STANDARD = ("builtin.", "func.", "gpu.", "memref.", "scf.", "arith.", "math.", "cf.")


def kernel_of(name: str) -> gpuc.python.decorators.KernelFunction:
    return getattr(importlib.import_module(name), name)


def test_every_mlir_example_has_a_python_one() -> None:
    assert set(EXAMPLES) <= set(PYTHON_EXAMPLES)


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_python_example_runs_as_the_mlir_one(name: str, target: str) -> None:
    example = EXAMPLES[name]
    if target in example.unsupported:
        with pytest.raises(gpuc.KernelError, match=example.unsupported[target]):
            gpuc.compile(kernel_of(name), target)
        return
    mod = gpuc.compile(kernel_of(name), target)
    rng = np.random.default_rng(zlib.crc32(repr((BASE_SEED, name, target)).encode()))
    for cfg in example.configs:
        run(example, cfg, lambda k, g, b, a: mod[k][g, b](*a), rng)


def kernels_of(name: str) -> list[gpuc.python.decorators.KernelFunction]:
    from gpuc.python.decorators import KernelFunction

    module = importlib.import_module(name)
    return [v for v in vars(module).values() if isinstance(v, KernelFunction)]


@pytest.mark.parametrize("name", PYTHON_EXAMPLES)
def test_to_mlir_reads_back(name: str) -> None:
    from gpuc.context import make_context
    from gpuc.reader.text import parse_foreign_module

    text = str(gpuc.to_mlir(kernels_of(name)))
    parsed = parse_foreign_module(text, make_context(), f"{name}.mlir")
    ops = {op.name for op in parsed.walk()}
    foreign = {op for op in ops if not op.startswith(STANDARD)}
    if name.startswith(("deferred", "child")):
        assert foreign <= {"gpuc.deferred_call", "gpuc.deferred_launch"}
    else:
        assert not foreign, text
    done = subprocess.run(
        [sys.executable, "-m", "gpuc.cli.opt", "-p", "import"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "gpuc.func" in done.stdout


def test_ptx_of_every_example_validated() -> None:
    from gpuc.tools import ToolError, ptxas

    try:
        ptxas()
    except ToolError as e:
        pytest.skip(str(e))
    kernels = [k for name in PYTHON_EXAMPLES for k in kernels_of(name)]
    mod = gpuc.compile(kernels, "ptx", validate=True)
    assert {k.name for k in kernels} <= set(mod)


def test_run_example_runs_the_python_kernel() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "run_example.py"),
            "saxpy",
            "--python",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "launches match numpy" in done.stdout
