"""Libraries: other modules whose functions serve as job sources, the way
libdevice serves CUDA. Given as parsed modules (Python API) or as files (the
`libraries` option of `resolve-deferred` and `gpuc-pipeline`, which the CLI's
`--library FILE` forwards). A file is parsed with locations and verified, so
its diagnostics point into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError

from gpuc.context import make_context
from gpuc.diagnostics import (
    LocatingParser,
    format_parse_error,
    read_source,
    verify_located,
)

LibrarySource = ModuleOp | str | Path


class LibraryError(DiagnosticException):
    """A library is named by an empty path, or its file does not parse
    (`read_source` reports a file that cannot be read)."""


@dataclass(frozen=True)
class Library:
    """A library module and the name diagnostics call it by."""

    name: str
    module: ModuleOp


def load_library(source: LibrarySource, ctx: Context | None = None) -> Library:
    """`source` as a Library: a module is used as it is, a path is parsed."""
    if isinstance(source, ModuleOp):
        return Library("<module given in Python>", source)
    path = str(source)
    if not path:
        raise LibraryError("a library path is empty; name a library file")
    text = read_source(path, "library")
    try:
        module = LocatingParser(ctx or make_context(), text, path).parse_module()
    except ParseError as e:
        raise LibraryError(f"in library {path}:\n{format_parse_error(e)}") from None
    verify_located(module)
    return Library(path, module)


def load_libraries(
    sources: Sequence[LibrarySource], ctx: Context | None = None
) -> list[Library]:
    """Every library, in the order given (the first that defines a source wins)."""
    ctx = ctx or make_context()
    return [load_library(source, ctx) for source in sources]
