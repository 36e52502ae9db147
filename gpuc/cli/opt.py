"""`gpuc-opt`: xdsl-opt's conventions with only the dialects gpuc needs.

Registering every xDSL dialect costs ~0.7 s per process, so this driver
registers gpuc's short list (lazily) and the passes of gpuc and xDSL (also
lazy). Every op parsed gets its `file:line:col`, and a module that does not
verify is reported at the innermost failing op. Errors never escape as
tracebacks: each becomes a diagnostic and exit status 1, and nothing is written
(to stdout or `-o`) unless everything succeeded. With `--verify-diagnostics`
(`--parsing-diagnostics`) a verifier (parser) diagnostic is printed in place of
that chunk's output and the exit status is 0, as in xdsl-opt.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from io import StringIO
from typing import Any, cast

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from gpuc.cli.command import (
    ArgParser,
    CommandError,
    UsageError,
    VersionAction,
    run_command,
    write_output,
)
from gpuc.diagnostics import (
    SourceError,
    decode_source,
    describe,
    read_source,
    verify_located,
)
from gpuc.hexfloat import ExactFloatMLIRTarget, ExactFloatPrinter
from gpuc.reader.text import parse_foreign_module
from gpuc.registry import DIALECTS, PASSES, lazy
from gpuc.universe import gpuc_only

SPLIT_MARKER = "// -----"


class OptArgParser(ArgParser):
    """gpuc-opt's parser: its help ends with the passes, gpuc's first with
    what each does (their modules load only when the help is printed)."""

    def __init__(
        self, passes: dict[str, Callable[[], type[ModulePass]]], **kwargs: Any
    ):
        super().__init__(**kwargs)
        self.passes = passes

    def format_help(self) -> str:
        self.epilog = pass_listing(self.passes)
        return super().format_help()


def pass_listing(passes: dict[str, Callable[[], type[ModulePass]]]) -> str:
    """gpuc's passes with the first sentence of each one's docstring, then the
    names of xDSL's."""
    own = [name for name in PASSES if name in passes]
    width = max(map(len, own), default=0) + 2
    lines = ["gpuc's passes:"]
    for name in own:
        doc = inspect.getdoc(passes[name]()) or ""
        summary = " ".join(doc.split("\n\n")[0].split())
        lines += textwrap.wrap(
            summary,
            78,
            initial_indent=f"  {name:<{width}}",
            subsequent_indent=" " * (width + 2),
        ) or [f"  {name}"]
    others = sorted(name for name in passes if name not in PASSES)
    lines.append(f"\nxDSL's passes ({len(others)}):")
    lines += textwrap.wrap(
        ", ".join(others),
        78,
        initial_indent="  ",
        subsequent_indent="  ",
        break_on_hyphens=False,
    )
    return "\n".join(lines)


class GpucOptMain(xDSLOptMain):
    def __init__(self, args: Sequence[str] | None = None):
        # xDSLOptMain.__init__ would exit(2) through argparse on a bad option;
        # this is the same setup with a parser that raises UsageError instead.
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = Context()
        self.register_all_dialects()
        self.register_all_passes()
        self.register_all_targets()
        arg_parser = OptArgParser(
            self.available_passes,
            prog="gpuc-opt",
            description="gpuc modular optimizer driver",
            formatter_class=argparse.RawDescriptionHelpFormatter,
            conflict_handler="resolve",
        )
        self.register_all_arguments(arg_parser)
        self.args = arg_parser.parse_args(args=args)
        self.check_target()
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        self.setup_pipeline()
        self._out = StringIO()
        self._started = time.perf_counter()

    def check_target(self) -> None:
        """Reject an unknown `-t` target or bad target options before any work."""
        try:
            spec = parse_spec(self.args.target)
        except ArgSpecParseError as e:
            raise UsageError(f"bad target '{self.args.target}': {e}") from None
        if spec.name not in self.available_targets:
            known = ", ".join(self.available_targets)
            raise UsageError(f"unknown target '{spec.name}'; available: {known}")
        factory = self.available_targets[spec.name]
        if spec.parameters and not inspect.signature(factory).parameters:
            try:
                cast(Callable[[], type[Target]], factory)().from_spec(spec)
            except (ValueError, TypeError) as e:
                raise UsageError(f"bad target '{self.args.target}': {e}") from None

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        # Any file name is MLIR text (as for mlir-opt); `-f mlir` stays accepted.
        for action in arg_parser._actions:
            if action.dest == "frontend":
                action.choices = ["mlir"]
            if action.dest == "passes":
                action.help = (
                    "comma-separated pass pipeline, options in braces, e.g. "
                    "-p 'inline,symbol-dce' or -p 'gpuc-pipeline{target=spirv}' "
                    "(the passes are listed below)"
                )
        # gpuc's versions, not only xDSL's (this replaces xDSL's -v/--version).
        arg_parser.add_argument("-v", "--version", action=VersionAction)

    def register_all_dialects(self) -> None:
        for name, path in DIALECTS.items():
            self.ctx.register_dialect(name, lazy(path))

    def register_all_passes(self) -> None:
        from xdsl.transforms import get_all_passes

        xdsl_passes = get_all_passes()
        for name, factory in xdsl_passes.items():
            self.register_pass(name, factory)
        # As in the xdsl-opt plugin: a name xDSL provides means xDSL's pass.
        for name, factory in gpuc_only(PASSES, xdsl_passes).items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        from gpuc.outputs import output_factories

        self.available_targets["mlir"] = lambda: ExactFloatMLIRTarget
        self.available_targets.update(output_factories())

    def setup_pipeline(self) -> None:
        try:
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes, self._between_passes
            )
        except BaseException as e:  # xDSL reports bad specs with several types
            if isinstance(e, KeyboardInterrupt | SystemExit):
                raise
            reason = (
                str(e)
                .strip()
                .removeprefix("Error parsing pass pipeline specification:\n")
            )
            raise UsageError(
                f"bad pass pipeline '{self.args.passes}': {reason}"
            ) from None

    def _between_passes(
        self,
        previous: ModulePass | None,
        module: ModuleOp,
        following: ModulePass | None,
    ) -> None:
        """Verify (located) before the first pass and after each; time and print;
        forget the call graph a pass may have changed."""
        now = time.perf_counter()
        if previous is not None:
            from gpuc.dialects.call_graph import pass_ran

            pass_ran(previous, module)
        if self.args.time_passes and previous is not None:
            print(
                f"Pass {previous.name} took {now - self._started} seconds",
                file=sys.stderr,
            )
        if not self.args.disable_verify:
            verify_located(module)
        if previous and following and self.args.print_between_passes:
            self._out.write(f"IR after {previous.name}:\n")
            ExactFloatPrinter(stream=self._out).print_op(module)
            self._out.write("\n\n\n\n")
        self._started = time.perf_counter()

    def read_input(self) -> tuple[str, str]:
        """(name, text) of the input file or stdin, decoded as UTF-8."""
        path = self.args.input_file
        try:
            if path is None or path == "-":
                data = sys.stdin.buffer.read()
                return "<stdin>", decode_source(data, "<stdin>", "input")
            return path, read_source(path)
        except SourceError as e:
            raise CommandError(f"gpuc-opt: error: {e}") from None

    def chunks(self, text: str) -> list[tuple[str, int]]:
        """The input, or its pieces, each with the number of lines before it.

        As in MLIR, a line starting with `// -----` separates pieces; the marker
        elsewhere in a line (say, in a comment about it) does not.
        """
        if not self.args.split_input_file:
            return [(text, 0)]
        pieces: list[tuple[str, int]] = []
        current: list[str] = []
        first_line = 0
        for number, line in enumerate(text.splitlines(keepends=True)):
            if line.lstrip().startswith(SPLIT_MARKER):
                pieces.append(("".join(current), first_line))
                current, first_line = [], number + 1
            else:
                current.append(line)
        pieces.append(("".join(current), first_line))
        return pieces

    def run(self) -> None:
        """Process every chunk into `self._out`; raise CommandError on a failure.

        Every chunk is processed, so one run reports all of a split file's errors.
        """
        name, text = self.read_input()
        failures: list[str] = []
        for i, (chunk, line_offset) in enumerate(self.chunks(text)):
            if i > 0:
                self._out.write(SPLIT_MARKER + "\n")
            try:
                self.process_chunk(name, chunk, line_offset)
            except CommandError as e:
                failures.append(str(e))
        if failures:
            raise CommandError("\n".join(failures))

    def process_chunk(self, name: str, chunk: str, line_offset: int) -> None:
        try:
            module = parse_foreign_module(
                chunk,
                self.ctx,
                name,
                line_offset=line_offset,
                allow_implicit_module=not self.args.no_implicit_module,
            )
            self.apply_passes(module)
            self._out.write(self.output_resulting_program(module))
        except (ParseError, DiagnosticException) as e:
            expected = (
                self.args.parsing_diagnostics
                if isinstance(e, ParseError)
                else self.args.verify_diagnostics
            )
            self._report(describe(e, name, line_offset), expected)

    def _report(self, diagnostic: str, expected: bool) -> None:
        """Print an expected diagnostic in place of the output, else fail."""
        if not expected:
            raise CommandError(diagnostic)
        if self.args.output_file in (None, "-"):
            self._out.write(diagnostic + "\n")
        else:
            print(diagnostic)

    def write_output(self) -> None:
        """Write what was produced (to a file atomically: no partial file)."""
        write_output(self.args.output_file, self._out.getvalue(), "gpuc-opt")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)

    def body() -> None:
        tool = GpucOptMain(args)
        tool.run()
        tool.write_output()

    return run_command("gpuc-opt", body)


if __name__ == "__main__":
    sys.exit(main())
