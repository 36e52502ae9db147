"""The native target's package (gpuc/targets/native/) imports without a
cycle: read from the source with `ast`, every import of a sibling module
(at the top or inside a function; `if TYPE_CHECKING:` blocks aside, since
they never run) is an edge, and the graph has no cycle. `common.py` is the
leaf the others share, and the package's `__init__` imports nothing, so the
executor reads `abi.py` without loading the compiler side."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import gpuc.targets.native as package

PACKAGE = "gpuc.targets.native"
FOLDER = Path(package.__file__).parent


def _runs(node: ast.AST) -> list[ast.AST]:
    """The nodes under `node` that run, skipping `if TYPE_CHECKING:` bodies."""
    out: list[ast.AST] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            out.extend(_runs_all(child.orelse))
            continue
        out.append(child)
        out.extend(_runs(child))
    return out


def _runs_all(nodes: list[ast.stmt]) -> list[ast.AST]:
    out: list[ast.AST] = []
    for node in nodes:
        out.append(node)
        out.extend(_runs(node))
    return out


def siblings_imported(path: Path) -> set[str]:
    """The modules of the package that `path` imports."""
    names: set[str] = set()
    for node in _runs(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == PACKAGE:
                names.update(f"{PACKAGE}.{alias.name}" for alias in node.names)
            else:
                names.add(node.module)
    prefix = PACKAGE + "."
    return {name[len(prefix) :] for name in names if name.startswith(prefix)}


def import_graph() -> dict[str, set[str]]:
    return {path.stem: siblings_imported(path) for path in sorted(FOLDER.glob("*.py"))}


def test_the_native_package_imports_without_a_cycle() -> None:
    graph = import_graph()
    assert {"target", "work_groups", "faults", "asserts", "abi", "common"} <= set(graph)
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle in {PACKAGE}: {error.args[1]}") from None
    assert order[-1] == "target"  # the target's hooks sit on top


def test_the_leaves_import_no_sibling() -> None:
    graph = import_graph()
    assert graph["__init__"] == set()
    assert graph["common"] == set()
    assert graph["abi"] == set()
    # the work-group lowering, checked mode and asserts never reach back up
    for module in ("work_groups", "faults", "asserts"):
        assert "target" not in graph[module], module
    assert "work_groups" not in graph["faults"] | graph["asserts"]


def test_the_graph_sees_a_cycle(tmp_path: Path) -> None:
    """The reader counts an import inside a function (how the old circle
    between native.py and work_items.py hid) and skips TYPE_CHECKING."""
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from gpuc.targets.native.c import X\n"
        "def f():\n    from gpuc.targets.native.b import Y\n"
    )
    assert siblings_imported(tmp_path / "a.py") == {"b"}
