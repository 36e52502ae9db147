"""`gpuc compile FILE --target ptx|spirv|native ...`: the compile pipeline from
the command line.

Bad input never ends in a traceback: a diagnostic (located at the op where
there is one), exit status 1, and no output file (the output is written,
atomically, only once every stage succeeded).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuc.command import ArgParser, UsageError, run_command, write_output

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.driver import Compilation

EMITS = {
    "ptx": ("mlir", "llvm", "ptx"),
    "spirv": ("mlir", "llvm", "spirv", "spirv-asm"),
    "native": ("mlir", "llvm", "obj"),
}
"""What each target can emit; the last one is the default."""
STOP_AFTER = {"mlir": "dialect", "llvm": "optimize"}
"""The last stage an --emit needs (the artefacts need every stage)."""


def arg_parser() -> argparse.ArgumentParser:
    parser = ArgParser(prog="gpuc", description="gpuc, a GPU kernel compiler")
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=ArgParser
    )
    c = commands.add_parser("compile", help="compile an MLIR file for a target")
    c.add_argument("file", help="MLIR input (gpuc, arith, math, scf, cf ops)")
    c.add_argument(
        "--target",
        choices=sorted(EMITS),
        default="ptx",
        help="what to compile for (default ptx)",
    )
    c.add_argument("--sm", type=int, help="ptx: compute capability (default 90)")
    c.add_argument("--ptx-isa", type=int, help="ptx: PTX ISA version, e.g. 78 for 7.8")
    c.add_argument(
        "--emit",
        choices=sorted({e for emits in EMITS.values() for e in emits}),
        help="what to write (default: the target's artefact: ptx, spirv or obj)",
    )
    c.add_argument(
        "--library",
        action="append",
        default=[],
        metavar="F",
        help="an MLIR module deferred jobs may take sources from (repeatable)",
    )
    c.add_argument(
        "--export",
        action="append",
        default=[],
        metavar="SYM",
        help="keep helper SYM public (repeatable)",
    )
    c.add_argument(
        "-O",
        dest="opt_level",
        type=int,
        default=3,
        choices=range(4),
        metavar="N",
        help="LLVM optimization level 0-3 (default 3)",
    )
    c.add_argument(
        "-o", dest="output", metavar="OUT", help="output file (default stdout)"
    )
    c.add_argument(
        "--validate",
        action="store_true",
        help="check the artefact with ptxas or spirv-val",
    )
    c.add_argument(
        "--print-ir-after-all",
        action="store_true",
        help="print the IR after every dialect-level pass and every later "
        "stage to stderr",
    )
    c.add_argument(
        "--no-fp-contract",
        action="store_true",
        help="never fuse a multiply and an add into an fma",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    input_name = "gpuc"

    def body() -> None:
        nonlocal input_name
        args = arg_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        input_name = args.file
        output = compile_command(args)
        to_stdout = args.output in (None, "-")
        if to_stdout and isinstance(output, bytes) and sys.stdout.isatty():
            raise UsageError(
                "the output is binary; write it to a file with -o, or "
                "choose a text --emit (e.g. spirv-asm)"
            )
        write_output(args.output, output, "gpuc")

    return run_command("gpuc", body, lambda error: diagnostic(error, input_name))


def diagnostic(error: Exception, input_name: str) -> str | None:
    """The text of an expected error (bad input, a tool's rejection), else None."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from gpuc.diagnostics import describe

    if isinstance(error, ParseError | DiagnosticException):
        return describe(error, input_name)
    if isinstance(error, OSError):
        where = f"'{error.filename}': " if error.filename else ""
        return f"gpuc: error: cannot read or write {where}{error.strerror or error}"
    return None


def compile_command(args: argparse.Namespace) -> bytes | str:
    from gpuc.driver import make_options, run

    emits = EMITS[args.target]
    emit = args.emit or emits[-1]
    if emit not in emits:
        raise UsageError(
            f"--emit {emit} is not available for --target {args.target}; "
            f"choose one of: {', '.join(emits)}"
        )
    options: dict[str, object] = {
        "opt_level": args.opt_level,
        "exports": tuple(args.export),
        "libraries": tuple(args.library),
        "fp_contract": not args.no_fp_contract,
        "validate": args.validate,
    }
    if args.sm is not None or args.ptx_isa is not None:
        if args.target != "ptx":
            raise UsageError("--sm and --ptx-isa apply to --target ptx only")
        options.update(
            {
                k: v
                for k, v in (("sm", args.sm), ("ptx_isa", args.ptx_isa))
                if v is not None
            }
        )
    if not os.path.isfile(args.file):
        raise UsageError(f"no such file: {args.file}")
    stop_after = STOP_AFTER.get(emit, "validate")
    if args.validate and stop_after != "validate":
        stop_after = "validate"
    c = run(
        args.file,
        make_options(args.target, options),
        stop_after=stop_after,
        after_stage=print_stage if args.print_ir_after_all else None,
        after_pass=print_pass if args.print_ir_after_all else None,
    )
    return artefact_of(c, emit)


def artefact_of(c: Compilation, emit: str) -> bytes | str:
    from xdsl.printer import Printer

    if emit == "mlir":
        assert c.module is not None
        from io import StringIO

        out = StringIO()
        Printer(stream=out).print_op(c.module)
        return out.getvalue() + "\n"
    if emit == "llvm":
        assert c.llvm_ir is not None
        return c.llvm_ir
    assert c.artefact is not None
    if emit == "spirv-asm":
        return c.target.emit_text(c.artefact)
    return c.artefact


def print_stage(stage: str, c: Compilation) -> None:
    """`--print-ir-after-all`: the IR each stage produced (the dialect stage's
    passes print theirs, `print_pass`)."""
    text: str | None = None
    if stage == "parse" and c.module is not None:
        text = str(c.module)
    elif stage == "translate" and c.ir is not None:
        text = str(c.ir)
    elif stage in ("link", "optimize") and c.llvm_module is not None:
        text = str(c.llvm_module)
    elif stage == "emit" and isinstance(c.artefact, str):
        text = c.artefact
    if text is not None:
        print_dump(stage, text)


def print_pass(name: str, module: ModuleOp) -> None:
    """`--print-ir-after-all`: the module after a pass of the dialect stage."""
    print_dump(name, str(module))


def print_dump(after: str, text: str) -> None:
    """One dump on stderr, in MLIR's banner style."""
    print(f"// -----// IR Dump After {after} //----- //\n{text}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
