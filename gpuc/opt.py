"""`gpuc-opt`: xdsl-opt's conventions with only the dialects gpuc needs.

Registering every xDSL dialect costs ~0.7 s per process, so this driver
registers gpuc's short list (lazily) and the passes of gpuc and xDSL (also
lazy). Errors never escape as tracebacks: each becomes a diagnostic with
file:line:col where one exists, and exit status 1; the output file is written
only once everything succeeded.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from io import StringIO
from typing import IO, NoReturn

from xdsl.context import Context
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from gpuc.registry import DIALECTS, PASSES, TARGETS, available, lazy


class UsageError(Exception):
    """A bad command line: unknown option, pass or target."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


class _Capture(StringIO):
    """Output buffer that survives xDSLOptMain.run() closing its stream."""

    def close(self) -> None:
        pass


class GpucOptMain(xDSLOptMain):
    version_format = "gpuc-opt (xdsl {xdsl_version})"

    def __init__(self, args: Sequence[str] | None = None):
        # xDSLOptMain.__init__ would exit(2) through argparse on a bad option;
        # this is the same setup with a parser that raises UsageError instead.
        self._captured: StringIO | None = None
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = Context()
        self.register_all_dialects()
        self.register_all_frontends()
        self.register_all_passes()
        self.register_all_targets()
        arg_parser = _Parser(description="gpuc modular optimizer driver")
        self.register_all_arguments(arg_parser)
        self.args = arg_parser.parse_args(args=args)
        target = parse_spec(self.args.target).name
        if target not in self.available_targets:
            raise UsageError(
                f"unknown target '{target}'; available: {', '.join(self.available_targets)}"
            )
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        self.setup_pipeline()

    def register_all_dialects(self) -> None:
        for name, path in DIALECTS.items():
            self.ctx.register_dialect(name, lazy(path))

    def register_all_passes(self) -> None:
        from xdsl.transforms import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)
        for name, path in available(PASSES).items():
            self.register_pass(name, lazy(path))

    def register_all_targets(self) -> None:
        from xdsl.targets import get_all_targets

        self.available_targets["mlir"] = get_all_targets()["mlir"]
        for name, path in available(TARGETS).items():
            self.available_targets[name] = lazy(path)

    def setup_pipeline(self) -> None:
        try:
            super().setup_pipeline()
        except Exception as e:  # xDSL reports bad pass specs with several types
            raise UsageError(f"bad pass pipeline '{self.args.passes}': {e}") from None

    def prepare_output(self) -> IO[str]:
        self._captured = _Capture()
        return self._captured

    def write_output(self) -> None:
        """Write what was produced; to a file atomically (no partial file on error)."""
        assert self._captured is not None
        text = self._captured.getvalue()
        if self.args.output_file is None:
            sys.stdout.write(text)
            return
        target = os.path.abspath(self.args.output_file)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".gpuc-opt-")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise


def _input_name(args: Sequence[str]) -> str:
    positional = [a for a in args if not a.startswith("-")]
    return positional[0] if positional else "<stdin>"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        tool = GpucOptMain(args)
        tool.run()
        tool.write_output()
    except UsageError as e:
        print(f"gpuc-opt: error: {e}", file=sys.stderr)
        return 1
    except ParseError as e:
        print(f"{e}", file=sys.stderr)
        return 1
    except DiagnosticException as e:
        print(f"{_input_name(args)}: error: {e}", file=sys.stderr)
        for note in getattr(e, "__notes__", []):
            print(note, file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError) as e:
        print(f"gpuc-opt: error: cannot read or write: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"gpuc-opt: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
