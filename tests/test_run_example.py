"""The README's main job: examples/run_example.py compiles and checks a kernel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_run_example_saxpy_native_matches_numpy() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "run_example.py"), "saxpy"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "matches numpy" in done.stdout
    assert done.stdout.count("ok   saxpy on native") >= 2


def test_run_example_refuses_an_unsupported_target() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "run_example.py"), "child_launch"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "does not run on native" in done.stdout
