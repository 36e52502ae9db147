"""Source locations and located diagnostics: `file:line:col: error: ...`.

xDSL's parser leaves `Operation.location` unknown unless the text spells
`loc(...)`, and its verifier raises an exception that does not say which op
failed. `LocatingParser` gives every parsed op a `FileLineColLoc` for its name,
as MLIR does (an explicit `loc(...)` wins); `verify_located` re-runs a failed
verification op by op to find the innermost failing op and reports it at its
location. Passes raise `OpError(op, message)` to be reported the same way.
`read_source` reads every source file gpuc is given (input, libraries), with
one wording for a file it cannot read.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import (
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from gpuc.hexfloat import ExactFloatParser
from gpuc.verifier import verifies

MAX_OP_LINES = 12
"""An op printed under a diagnostic is cut after this many lines."""


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class SourceError(DiagnosticException):
    """A source file that cannot be read, or is not UTF-8 text."""


def decode_source(data: bytes, name: str, what: str = "input file") -> str:
    """`data`, the contents of `name`, as UTF-8 text (as in `read_source`)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise SourceError(
            f"cannot read {what} '{name}': byte 0x{data[e.start]:02x} at line "
            f"{line}, column {col} is not UTF-8 text; MLIR source files are UTF-8"
        ) from None


def read_source(path: str | os.PathLike[str], what: str = "input file") -> str:
    """The text of the MLIR source file `path`; a SourceError naming it as
    `what` ("input file", "library") when it cannot be read or is not UTF-8."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise SourceError(f"cannot read {what} '{path}': {e.strerror or e}") from None
    return decode_source(data, str(path), what)


def line_starts(text: str) -> list[int]:
    """The offset at which each line of `text` starts (for `bisect_right`)."""
    starts = [0]
    newline = text.find("\n")
    while newline != -1:
        starts.append(newline + 1)
        newline = text.find("\n", newline + 1)
    return starts


class LocatingParser(ExactFloatParser):
    """An MLIR parser that gives each op the location of its name.

    `line_offset` is the number of lines before `text` in its file (a chunk of
    `--split-input-file`), so locations are those of the whole file.
    """

    def __init__(
        self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0
    ):
        super().__init__(ctx, text, name)
        self._file = StringAttr(name)
        self._line_offset = line_offset
        self._line_starts: list[int] | None = None
        self._op_names: list[int] = []
        self._first_uses: dict[str, Span] = {}
        """Where each value used before its definition was first used."""
        self._open_regions: list[int] = []
        """Where each region being parsed opened (its `{`)."""

    def location_at(self, pos: int) -> FileLineColLoc:
        if self._line_starts is None:
            self._line_starts = line_starts(self.lexer.input.content)
        line = bisect_right(self._line_starts, pos)
        col = pos - self._line_starts[line - 1] + 1
        return FileLineColLoc(
            self._file, IntAttr(line + self._line_offset), IntAttr(col)
        )

    def parse_operation(self) -> Operation:
        # Like MLIR, an op is located at its name, after any `%results =`.
        self._op_names.append(self.pos)
        try:
            op = super().parse_operation()
        except ParseError:
            raise
        except Exception as e:
            # An op's constructor or custom parser failed (an attribute that does
            # not verify, a dialect bug): still a syntax error at this op. A
            # VerifyException is the input's fault and says so itself; any
            # other type is worth naming.
            start = self._op_names[-1]
            message = " ".join(str(e).split("\n"))
            if not isinstance(e, VerifyException):
                message = f"{type(e).__name__}: {message}"
            self.raise_error(message, start, max(start + 1, self.pos))
        finally:
            name_pos = self._op_names.pop()
        if isinstance(op.location, UnknownLoc):
            # A frontend's own location (`loc("k.py":3:1)`, fused, call-site
            # or name locations) is kept, for the line tables.
            op.location = self.location_at(name_pos)
        return op

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        results = super()._parse_op_result_list()
        self._op_names[-1] = self.pos
        return results

    def _get_op_by_name(self, name: str) -> type[Operation]:
        known = self.ctx.get_optional_op(
            name, dialect_stack=self._parser_state.dialect_stack
        )
        if known is not None:
            return known
        dialect = name.partition(".")[0]
        if "." in name and dialect in set(self.ctx.registered_dialect_names):
            reason = f"dialect '{dialect}' has no such op"
        else:
            reason = (
                f"dialect '{dialect}' is not registered (gpuc-opt keeps unknown ops "
                "as they are with --allow-unregistered-dialect)"
            )
        at = self._op_names[-1] if self._op_names else self.pos
        self.raise_error(f"unknown operation '{name}': {reason}", at)

    def resolve_operand(self, operand: Any, type: Any) -> Any:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_uses:
            self._first_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def _register_ssa_definition(self, name: str, values: Any, span: Span) -> None:
        self._first_uses.pop(name, None)  # a forward use, now defined
        super()._register_ssa_definition(name, values, span)

    def parse_optional_region(self, arguments: Any = None) -> Any:
        if self._current_token.kind != MLIRTokenKind.L_BRACE:
            return super().parse_optional_region(arguments)
        self._open_regions.append(self.pos)
        try:
            return super().parse_optional_region(arguments)
        except ParseError as e:
            if " in block definition" not in str(e):
                raise
            # Where a region's ops end and no `}` follows: say which region.
            opened = self.location_at(self._open_regions[-1])
            found = self._current_token_text()
            self.raise_error(
                f"expected an op, a block label or '}}' closing the region opened "
                f"at {opened.line.data}:{opened.column.data}, got {found}",
                self._current_token.span.start,
                self._current_token.span.end,
            )
        finally:
            self._open_regions.pop()

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        start = self.pos
        # MLIR reads a file of only comments and blank lines as an empty module.
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            module = ModuleOp([])
        else:
            try:
                module = super().parse_module(allow_implicit_module)
            except ParseError:
                self._raise_at_undefined_use()
                raise
        if not isinstance(module.location, FileLineColLoc):
            module.location = self.location_at(start)
        return module

    def _current_token_text(self) -> str:
        token = self._current_token
        if token.kind == MLIRTokenKind.EOF:
            return "the end of the input"
        return f"'{token.text}'"

    def _raise_at_undefined_use(self) -> None:
        """xDSL reports values used but never defined at the end of the input:
        report them at the first use instead (nothing if there are none)."""
        undefined = [n for n in self.forward_ssa_references if n in self._first_uses]
        if not undefined:
            return
        first = min(undefined, key=lambda n: self._first_uses[n].start)
        others = [f"%{n}" for n in undefined if n != first]
        also = f" (also used but not defined: {', '.join(others)})" if others else ""
        span = self._first_uses[first]
        self.raise_error(
            f"use of undefined value %{first}: no op or block argument in scope "
            f"defines it{also}",
            span.start,
            span.end,
        )


def source_loc(op: Operation) -> SourceLoc | None:
    """`op`'s own `file:line:col`, if it has one: of a call-site location, the
    callee's (where an inlined op was written); of a name location, what it
    names; of a fused one, its first part."""
    loc: Attribute = op.location
    while True:
        if isinstance(loc, FileLineColLoc):
            return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
        if isinstance(loc, NameLoc):
            loc = loc.location
        elif isinstance(loc, CallSiteLoc):
            loc = loc.callee
        elif isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
            loc = loc.locations.data[0] if loc.locations.data else UnknownLoc()
        else:
            return None


def nearest_source_loc(op: Operation) -> tuple[SourceLoc | None, bool]:
    """The location of `op` or of its closest located ancestor; True if `op`'s own.

    Ops created by passes have no location; they are reported where the op
    that contains them was written.
    """
    current: Operation | None = op
    while current is not None:
        loc = source_loc(current)
        if loc is not None:
            return loc, current is op
        current = current.parent_op()
    return None, False


def print_op_briefly(op: Operation) -> str:
    """`op` in generic form, indented, cut after MAX_OP_LINES lines."""
    text = str(_generic(op)).rstrip("\n")
    lines = text.splitlines()
    if len(lines) > MAX_OP_LINES:
        hidden = len(lines) - MAX_OP_LINES
        lines = lines[:MAX_OP_LINES] + [f"... ({hidden} more lines)"]
    return "\n".join("  " + line for line in lines)


def _generic(op: Operation) -> str:
    from io import StringIO

    out = StringIO()
    try:
        Printer(stream=out, print_generic_format=True).print_op(op)
    except Exception as e:  # a broken op may not even print
        return f"<cannot print '{op.name}': {e}>"
    return out.getvalue()


ORIGINS: WeakKeyDictionary[Operation, str] = WeakKeyDictionary()
"""For an op a pass generated in place of one the user wrote, that op's
name: the gpu.launch convert-parallel-loops-to-gpu made of an `scf.parallel`,
the kernel gpu-kernel-outlining made of a `gpu.launch` (or of that loop),
and the gpuc.func the import made of it. The generated op carries the
original's location; diagnostics about it name the original (`made_of`)."""


def made_of(op: Operation) -> str:
    """` (the kernel gpuc made of the scf.parallel here)` for a kernel a pass
    generated (ORIGINS), else empty."""
    origin = ORIGINS.get(op)
    return f" (the kernel gpuc made of the {origin} here)" if origin else ""


def format_op_diagnostic(op: Operation, message: str, severity: str = "error") -> str:
    """`file:line:col: error: 'op.name' op message`, then the op itself."""
    loc, exact = nearest_source_loc(op)
    where = f"{loc}: " if loc is not None else ""
    # One line, and the op named once (xDSL's messages often start with it).
    message = " ".join(message.removeprefix(f"'{op.name}' ").split("\n"))
    text = f"{where}{severity}: '{op.name}' op {message}"
    if loc is not None and not exact:
        text += f"\n{loc}: note: the op was created by a pass inside the op here"
    return f"{text}\n{print_op_briefly(op)}"


class OpError(DiagnosticException):
    """A diagnostic about one op: raise it from a pass or verifier helper.

    `str()` is the full located diagnostic, so any tool that prints a
    DiagnosticException prints it well.
    """

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message

    def __str__(self) -> str:
        text = self.__dict__.get("text")  # an unpickled one's (`__reduce__`)
        return (
            str(text)
            if text is not None
            else format_op_diagnostic(self.op, self.message)
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its diagnostic, without the op (which belongs to a
        module that stays in this process): an unpickled OpError has the
        same type, `message`, args, `str()` and notes, and no `op`."""
        state = {k: v for k, v in self.__dict__.items() if k != "op"}
        return rebuild, (type(self), self.args, {**state, "text": str(self)})


NO_CUSTOM_FORMAT = "does not have a custom format."
"""How xDSL's parser ends its error for an op written in custom syntax it lacks."""
GENERIC_ONLY = (
    " in xDSL, which reads it in generic form only (as MLIR's custom gpu "
    "syntax, and Polygeist's, need): print the module with `mlir-opt "
    "--mlir-print-op-generic` first"
)


def format_parse_error(error: ParseError, line_offset: int = 0) -> str:
    """`file:line:col: error: message`, the source line and a caret under it."""
    span = error.span
    file, line, col = span.get_location()
    start = span.input.get_start_of_line(span.start)
    end = span.input.get_end_of_line(max(span.start, span.end - 1))
    source = span.input.content[start:end]
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    first = source.split("\n")[0].rstrip("\r")
    width = max(1, min(span.end, start + len(first)) - span.start)
    caret = " " * (col - 1) + "^" + "~" * (width - 1)
    message = error.msg
    if message.startswith("Operation ") and message.endswith(NO_CUSTOM_FORMAT):
        message = message[: -len(".")] + GENERIC_ONLY
    text = f"{file}:{line + line_offset}:{col}: error: {message}\n{first}\n{caret}"
    if isinstance(error, MultipleSpansParseError):
        for ref, note in error.refs:
            ref_file, ref_line, ref_col = ref.get_location()
            text += (
                f"\n{ref_file}:{ref_line + line_offset}:{ref_col}: note: {note or ''}"
            )
    return text


class SourceParseError(ParseError, DiagnosticException):
    """MLIR text that does not parse, as `gpuc.compile` raises it: xDSL's
    ParseError (its `span` and `msg`) that is also a DiagnosticException, like
    gpuc's other diagnostics; `str()` is the located diagnostic."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(error.span, error.msg)
        self.text = format_parse_error(error)

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuild, (type(self), self.args, dict(self.__dict__))


def rebuild(
    cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]
) -> BaseException:
    """An exception of `cls` with `args` and attributes `state`, made without
    calling its `__init__` (whose parameters are not its args): how the
    exceptions whose `__init__` takes something else than their message
    unpickle (in `compile_many`'s caller, from a worker)."""
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


def first_failure(op: Operation) -> tuple[Operation, Exception] | None:
    """The op xDSL's verifier would fail on first (innermost first), and why.

    Same order as `Operation.verify`: nested regions before the op itself.
    """
    for region in op.regions:
        for block in region.blocks:
            if (found := _first_failure_in(block)) is not None:
                return found
    try:
        op.verify(verify_nested_ops=False)
    except Exception as e:
        return op, e
    return None


def _first_failure_in(block: Block) -> tuple[Operation, Exception] | None:
    for child in block.ops:
        if (found := first_failure(child)) is not None:
            return found
    if block.first_op is None:
        parent = block.parent_op()
        try:
            block.verify()  # an empty block where a terminator is expected
        except Exception as e:
            return (parent, e) if parent is not None else None
    return None


def verify_located(module: Operation) -> None:
    """`module.verify()`, raising an OpError located at the innermost failing op.

    The fast path is `gpuc.verifier.verifies` (xDSL's checks, each op shape's
    definition checked once); only after it says no is xDSL's own verifier
    run, and after a failure the module walked again op by op to find which op
    failed.
    """
    if verifies(module):
        return
    try:
        module.verify()
    except Exception:
        found = first_failure(module)
        if found is None:
            raise
        op, cause = found
        message = (
            str(cause)
            if isinstance(cause, VerifyException)
            else (f"verifier crashed: {type(cause).__name__}: {cause}")
        )
        redefined = _redefinition(op, message)
        if redefined is not None:
            raise redefined from None
        raise OpError(op, message) from None


def _redefinition(table: Operation, message: str) -> OpError | None:
    """xDSL's symbol table says `Redefinition of symbol "k"` at the table (the
    module, at 1:1): an error at the second definition instead, naming the
    first."""
    import re

    m = re.fullmatch(r'Redefinition of symbol "(.*)"', message)
    if m is None or not table.regions:
        return None
    defining = [
        child
        for child in table.regions[0].ops
        if isinstance(name := child.properties.get("sym_name"), StringAttr)
        and name.data == m[1]
    ]
    if len(defining) < 2:
        return None
    first = source_loc(defining[0])
    where = f" (first defined at {first})" if first is not None else ""
    return OpError(defining[1], f"redefinition of symbol @{m[1]}{where}")


def describe(
    error: ParseError | DiagnosticException, input_name: str, line_offset: int = 0
) -> str:
    """The text of an error in the input, as gpuc's commands print it.

    A parse error shows its source line (`line_offset`: lines before the parsed
    text in its file); an OpError is located at its op; another
    DiagnosticException is attributed to the input, with its notes.
    """
    if isinstance(error, ParseError):
        return format_parse_error(error, line_offset)
    from gpuc.python.source import KernelError  # a Python kernel's: located

    located = isinstance(error, OpError | KernelError)
    text = str(error) if located else f"{input_name}: error: {error}"
    for note in getattr(error, "__notes__", []):
        text += "\n" + str(note).rstrip("\n")
    return text
