"""A Python kernel's source: the function's `ast` with the file's own line
and column numbers, and the located diagnostic (`KernelError`) that every
problem with a kernel is reported as: `file.py:line:col: error: ...`, the
line and a caret, never a traceback nor MLIR the user did not write.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.utils.exceptions import DiagnosticException


@dataclass(frozen=True)
class Where:
    """A position in a Python file (line 1-based, column 1-based)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def format_located(where: Where | None, message: str, severity: str = "error") -> str:
    """`file:line:col: error: message`, then the line and a caret under it."""
    if where is None:
        return f"{severity}: {message}"
    text = f"{where}: {severity}: {message}"
    line = linecache.getline(where.file, where.line).rstrip("\n")
    if line:
        text += f"\n{line}\n{' ' * (where.col - 1)}^"
    return text


class KernelError(DiagnosticException):
    """A problem with a Python kernel, at a line of its source."""

    def __init__(self, where: Where | None, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message

    def __str__(self) -> str:
        return format_located(self.where, self.message)

    def __reduce__(self) -> tuple[Any, ...]:
        """Rebuilt from its place and message (its args are the message only),
        with its notes: a failing kernel's error crosses process pools."""
        return type(self), (self.where, self.message), self.__dict__


@dataclass(frozen=True)
class FunctionSource:
    """The source of one decorated function, parsed."""

    file: str
    text: str
    """The function's lines as written. The compile cache does not key on
    them: it keys on the module compiled from the tree, which holds the
    captured constants and constexpr values and no comment (and, where the
    output quotes locations, the lines: docs/python.md)."""
    tree: ast.FunctionDef
    indent: int
    """Columns the function's lines were dedented by."""
    locations: dict[tuple[int, int], Any] = field(
        default_factory=dict, compare=False, repr=False
    )
    """The op locations made for its positions (values.py), kept across
    compiles: each is an immutable attribute."""

    def where(self, node: ast.AST) -> Where:
        line = getattr(node, "lineno", self.tree.lineno)
        col = getattr(node, "col_offset", 0)
        return Where(self.file, line, col + self.indent + 1)

    def error(self, node: ast.AST, message: str) -> KernelError:
        return KernelError(self.where(node), message)


def function_source(fn: Callable[..., Any]) -> FunctionSource:
    """Parse `fn`'s source; a function without one (made by exec, a lambda in
    a REPL) is a KernelError at the decorator's caller."""
    code = getattr(fn, "__code__", None)
    file = code.co_filename if code is not None else "<unknown>"
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise KernelError(
            Where(file, code.co_firstlineno if code else 1, 1),
            f"cannot read the source of {getattr(fn, '__qualname__', fn)!r} ({e}); "
            "gpuc kernels must be defined in a file",
        ) from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    tree = ast.parse(dedented)
    ast.increment_lineno(tree, first - 1)
    fn_def = tree.body[0]
    if not isinstance(fn_def, ast.FunctionDef):
        where = Where(file, first, indent + 1)
        what = (
            "an async function" if isinstance(fn_def, ast.AsyncFunctionDef) else "this"
        )
        raise KernelError(where, f"gpuc cannot compile {what}; write a plain def")
    return FunctionSource(file, text, fn_def, indent)
