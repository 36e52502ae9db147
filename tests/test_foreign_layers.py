"""The foreign dialects, their reader and the import's conversion are three
layers: gpuc/dialects/foreign/ (what other tools print and xDSL lacks) and
gpuc/lowering/ never import the import's machinery (gpuc/transforms/foreign/),
which builds on them; gpuc/reader/ reads text with the dialects."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "gpuc"


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_dialects_and_lowering_do_not_import_the_conversion() -> None:
    offenders = {
        str(path.relative_to(ROOT.parent)): sorted(
            m for m in imported_modules(path) if m.startswith("gpuc.transforms")
        )
        for folder in ("dialects/foreign", "lowering")
        for path in sorted((ROOT / folder).glob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}
