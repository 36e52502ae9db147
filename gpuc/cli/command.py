"""What gpuc's commands (`gpuc`, `gpuc-opt`) share: the errors that end a run,
an argument parser that raises them, `--version`, output written without ever
leaving a partial file, and the error handling of `main`.

Bad input never ends in a traceback: `run_command` turns every error into a
message on stderr and exit status 1 (130 on Ctrl-C); a module that does not
import is an installation problem, said so; only an unexpected exception is an
"internal error", re-raised when GPUC_DEBUG is set.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn


class UsageError(Exception):
    """A bad command line: printed as `prog: error: message`."""


class CommandError(Exception):
    """A diagnostic, already formatted, that ends the run with exit status 1."""


class ArgParser(argparse.ArgumentParser):
    """argparse, raising UsageError where argparse would exit with status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def version_text(prog: str) -> str:
    """`prog --version`: gpuc's version and those of what decides its output."""
    from importlib.metadata import PackageNotFoundError, version

    import gpuc

    def of(distribution: str) -> str:
        try:
            return version(distribution)
        except PackageNotFoundError:
            return "not installed"

    try:
        from llvmlite import binding

        llvm = ".".join(map(str, binding.llvm_version_info))
    except ImportError:
        llvm = "unknown"
    name = f"gpuc {gpuc.__version__}"
    return (
        f"{name if prog == 'gpuc' else f'{prog} ({name})'}\n"
        f"xdsl {of('xdsl')}\n"
        f"llvmlite {of('llvmlite')} (LLVM {llvm})"
    )


class VersionAction(argparse.Action):
    """`--version`: print `version_text` and exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        kwargs.setdefault("help", "print the versions of gpuc, xDSL and LLVM")
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(version_text(parser.prog))
        parser.exit()


def not_installed(prog: str, error: ImportError) -> str:
    """The message for a module that does not import: gpuc's installation (or
    the one of a dependency) is incomplete, which is not a bug in gpuc."""
    import gpuc

    where = os.path.dirname(os.path.abspath(gpuc.__file__ or "gpuc"))
    return (
        f"{prog}: error: {error} (gpuc imported from {where}); gpuc or one of "
        "its dependencies is not installed completely: reinstall it "
        "(`pip install -e .` in a clone of gpuc)"
    )


def run_command(
    prog: str,
    body: Callable[[], None],
    describe: Callable[[Exception], str | None] = lambda error: None,
) -> int:
    """Run `body`; return its exit status, reporting any error on stderr.

    `describe` gives the text of an error the command expects (bad input, a
    tool's rejection) and None for the others, which are internal errors.
    """
    try:
        body()
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except CommandError as e:
        print(e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except ImportError as e:
        if os.environ.get("GPUC_DEBUG"):
            raise
        print(not_installed(prog, e), file=sys.stderr)
        return 1
    except Exception as e:
        message = describe(e)
        if message is None:
            if os.environ.get("GPUC_DEBUG"):
                raise
            message = (
                f"{prog}: internal error: {type(e).__name__}: {e}\n"
                "this is a bug in gpuc (or in a pass or generator it ran); "
                "rerun with GPUC_DEBUG=1 to see the traceback"
            )
        print(message, file=sys.stderr)
        return 1
    return 0


def write_output(path: str | None, data: str | bytes, prog: str) -> None:
    """Write `data` to stdout (`path` None or `-`) or to the file `path`.

    A file is replaced atomically, so a failure never leaves a partial one; it
    gets the usual mode (0666 less the umask). A symbolic link keeps pointing
    where it did (the file it names is replaced). What is not a regular file
    (`/dev/null`, a pipe, a terminal) is written in place: renaming over it
    would replace the device itself. Errors are CommandErrors.
    """
    if path is None or path == "-":
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    import tempfile

    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = os.path.realpath(path)

    def cannot_write(error: OSError) -> CommandError:
        reason = error.strerror or str(error)
        return CommandError(
            f"{prog}: error: cannot write output file '{path}': {reason}"
        )

    try:
        if os.path.exists(target) and not os.path.isfile(target):
            with open(target, "wb") as f:
                f.write(raw)
            return
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".gpuc-")
    except OSError as e:
        raise cannot_write(e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        raise cannot_write(e) from None
    except BaseException:
        os.unlink(tmp)
        raise
