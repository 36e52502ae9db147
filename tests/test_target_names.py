"""No code outside gpuc/targets/ names a target: a target is chosen by its
registry and asked through `Target`'s declared interface, never recognised by
name elsewhere (`if target == "ptx"` is the smell this guards against).

Every string constant in the package (docstrings aside) that equals a built-in
target's name is found with `ast`; the few outside gpuc/targets/ that are not
targets at all are listed with what they are instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

from gpuc.targets import BUILTIN_TARGETS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gpuc",)
NOT_TARGETS = {
    ("gpuc/cache/store.py", "native"): "a cache kind: the native JIT's objects",
    ("gpuc/runtime/native.py", "native"): "that cache kind",
    ("gpuc/registry.py", "amdgpu"): "MLIR's amdgpu dialect",
    ("gpuc/registry.py", "spirv"): "MLIR's spirv dialect",
    ("gpuc/dialects/foreign/amdgpu.py", "amdgpu"): "MLIR's amdgpu dialect",
    ("gpuc/dialects/foreign/spirv_abi.py", "spirv"): "MLIR's spirv dialect",
    ("gpuc/transforms/foreign/checks.py", "amdgpu"): "MLIR's amdgpu dialect",
    ("gpuc/transforms/convert_foreign_to_gpuc.py", "amdgpu"): "MLIR's amdgpu dialect",
    ("gpuc/explain/artefact.py", "ptx"): "an artefact format, read from its bytes",
    ("gpuc/explain/artefact.py", "spirv"): "an artefact format, read from its bytes",
}


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of `tree`'s module, classes, functions,
    and of the string statements after assignments (attribute docstrings)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                found.add(id(stmt.value))
    return found


def target_names_used() -> set[tuple[str, str]]:
    names = set(BUILTIN_TARGETS)
    used: set[tuple[str, str]] = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith("gpuc/targets/"):
                continue
            tree = ast.parse(path.read_text(), relative)
            skip = docstrings(tree)
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and node.value in names
                    and id(node) not in skip
                ):
                    used.add((relative, node.value))
    return used


def test_no_code_outside_the_targets_names_a_target() -> None:
    named = target_names_used() - set(NOT_TARGETS)
    assert not named, (
        "these files name a target outside gpuc/targets/ (ask the Target "
        f"instead, or list what the string is if it is no target): {sorted(named)}"
    )


def test_the_check_sees_a_target_name() -> None:
    """The scan finds a name where one is: its listed exceptions exist."""
    assert set(NOT_TARGETS) <= target_names_used()
