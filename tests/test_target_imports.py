"""The modules of gpuc/targets/ import each other without a circle, and each
imports. Imports are read from the source (`ast`, tests/import_graph.py), at
module level, inside functions and under TYPE_CHECKING alike: a circle of
lazy imports is still one concept split across files.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from import_graph import cycles, import_graph

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ROOT / "gpuc" / "targets"


def target_graph() -> dict[str, set[str]]:
    graph = import_graph(ROOT)
    return {
        m: {d for d in deps if d.startswith("gpuc.targets")}
        for m, deps in graph.items()
        if m == "gpuc.targets" or m.startswith("gpuc.targets.")
    }


def test_target_modules_import_no_circle() -> None:
    assert cycles(target_graph()) == []


def test_every_target_module_imports() -> None:
    for name in sorted(target_graph()):
        importlib.import_module(name)


def test_the_shared_modules_are_leaves() -> None:
    """What the targets share imports no target module (launch_abi.py: not
    even gpuc's), so that a target package can import it without a circle."""
    graph = target_graph()
    assert graph["gpuc.targets.common"] == set()
    assert graph["gpuc.targets.launch_abi"] == set()
    assert graph["gpuc.targets.base"] <= {
        "gpuc.targets.common",
        "gpuc.targets.error_record",
    }
    for package in ("gpuc.targets.spirv", "gpuc.targets.ptx"):
        outside = {
            d
            for m, deps in graph.items()
            if m.startswith(package + ".")
            for d in deps
            if not d.startswith(package + ".")
        }
        assert outside <= {
            "gpuc.targets.base",
            "gpuc.targets.common",
            "gpuc.targets.error_record",
            "gpuc.targets.launch_abi",
            "gpuc.targets.printf",
        }, package
