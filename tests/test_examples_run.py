"""Every kernel in examples/ compiled by gpuc and run on the native and spirv
executors (and ptx where a GPU exists), checked against numpy on fresh random
inputs with poisoned outputs (examples/cases.py says how, and the tolerances).

Inputs differ per run: the base seed is printed and in every failure message;
rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import gpuc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from cases import EXAMPLES, run  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_examples_run: GPUC_TEST_SEED={BASE_SEED}")

TARGETS = ["native", "spirv", "ptx"]
_modules: dict[tuple[str, str], gpuc.Module] = {}


def _gpu_sm() -> int | str:
    """The GPU's compute capability (gpuc's `sm`), or why there is no GPU."""
    try:
        from gpuc.runtime.cuda import device_sm

        return device_sm()
    except gpuc.LaunchError as error:
        return str(error)


GPU_SM = _gpu_sm()


def compiled(name: str, target: str) -> gpuc.Module:
    key = (name, target)
    if key not in _modules:
        options = {"sm": GPU_SM} if target == "ptx" else {}
        _modules[key] = gpuc.compile(EXAMPLES[name].path, target=target, **options)
    return _modules[key]


def test_every_example_file_has_a_case() -> None:
    files = {p.stem for p in (ROOT / "examples").glob("*.mlir")}
    assert files == set(EXAMPLES), "examples/cases.py must describe every example"


CASES = [
    pytest.param(
        name, i, target, id=f"{name}-{target}-{'-'.join(map(str, cfg.values()))}"
    )
    for name, example in EXAMPLES.items()
    for i, cfg in enumerate(example.configs)
    for target in TARGETS
    if target not in example.unsupported
]


@pytest.mark.parametrize(("name", "config", "target"), CASES)
def test_example_matches_numpy(name: str, config: int, target: str) -> None:
    if target == "ptx" and isinstance(GPU_SM, str):
        pytest.skip(f"no GPU for the ptx executor: {GPU_SM}")
    example = EXAMPLES[name]
    cfg = example.configs[config]
    seed = zlib.crc32(f"{BASE_SEED}:{name}:{config}:{target}".encode())
    mod = compiled(name, target)
    try:
        run(example, cfg, mod.launch, np.random.default_rng(seed))
    except AssertionError as error:
        raise AssertionError(
            f"{name} on {target} with {dict(cfg)} (GPUC_TEST_SEED={BASE_SEED}): {error}"
        ) from None


@pytest.mark.parametrize(
    ("name", "target"),
    [(n, t) for n, e in EXAMPLES.items() for t in e.unsupported],
)
def test_unsupported_example_is_a_diagnostic(name: str, target: str) -> None:
    """A kernel a target cannot express fails to compile with a diagnostic."""
    from xdsl.utils.exceptions import DiagnosticException

    with pytest.raises(DiagnosticException) as info:
        gpuc.compile(EXAMPLES[name].path, target=target)
    assert EXAMPLES[name].unsupported[target] in str(info.value)
