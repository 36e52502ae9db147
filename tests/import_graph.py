"""gpuc's import graph as its source says it (`ast`): which gpuc modules
each module imports, at module level, inside functions and under
TYPE_CHECKING alike, and the circles in it (tests/test_target_imports.py,
tests/test_layers.py)."""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.Module, name: str, package: bool) -> set[str]:
    """Every module or module attribute `tree` (module `name`) imports."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                keep = len(name.split(".")) - node.level + (1 if package else 0)
                base = ".".join(name.split(".")[:keep])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """gpuc module -> the gpuc modules it imports (`from gpuc.x import y`
    counts as importing gpuc.x.y where that is a module, else gpuc.x)."""
    paths = {
        module_name(root, p): p
        for p in (root / "gpuc").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        names = imported(ast.parse(path.read_text()), name, path.name == "__init__.py")
        graph[name] = {m for m in names if m in paths and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's circles: its strongly connected components of more than
    one module, each sorted (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found
