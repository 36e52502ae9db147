"""`gpuc compile FILE --target T ...`: the compile pipeline from the command
line. The targets, their flags (`--sm`, `--ptx-isa`, ...) and what each can
`--emit` come from the target registry (`gpuc/targets/__init__.py`).

Bad input never ends in a traceback: a diagnostic (located at the op where
there is one), exit status 1, and no output file (the output is written,
atomically, only once every stage succeeded).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import Field
from typing import TYPE_CHECKING, Any

from gpuc.cli import cache as cache_cli
from gpuc.cli.command import (
    ArgParser,
    UsageError,
    VersionAction,
    run_command,
    write_output,
)

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.driver import Compilation
    from gpuc.targets.base import Target

GENERIC_EMITS = ("mlir", "llvm")
"""What every target can emit besides its own artefacts (`Target.artefacts`)."""
STOP_AFTER = {"mlir": "dialect", "llvm": "optimize"}
"""The last stage an --emit needs (the artefacts need every stage)."""


def target_flags(
    scope: str | None = None,
) -> dict[str, tuple[Field[Any], list[str]]]:
    """Each target option as a flag (`ptx_isa` is `--ptx-isa`): its field and
    the targets that declare it, from the registry (only target `scope`'s,
    when given). A plugin target that does not load offers no flags (choosing
    it is the diagnostic)."""
    from dataclasses import fields

    flags: dict[str, tuple[Field[Any], list[str]]] = {}
    for name, cls in loadable_targets(scope).items():
        for f in fields(cls):
            entry = flags.setdefault(f.name, (f, []))
            entry[1].append(name)
    return flags


def loadable_targets(scope: str | None = None) -> dict[str, type[Target]]:
    """The registered targets whose class loads, by name (only `scope`, when
    given)."""
    from gpuc.targets import BrokenTarget, target_class, target_names

    loaded: dict[str, type[Target]] = {}
    for name in [scope] if scope is not None else target_names():
        try:
            loaded[name] = target_class(name)
        except BrokenTarget:
            continue
    return loaded


def flag_type(cls: type[Target], option: str) -> Callable[[str], object]:
    """How a flag's text becomes the option's value (int, float, bool, str)."""
    from typing import get_type_hints

    hint = get_type_hints(cls)[option]
    for kind in (bool, int, float):
        if hint is kind or kind in getattr(hint, "__args__", ()):
            return (
                (lambda text: text.lower() in ("1", "true", "yes"))
                if kind is bool
                else kind
            )
    return str


def target_scope(arguments: Sequence[str]) -> str | None:
    """The built-in target that `gpuc compile|explain ... --target T` names
    outright (no help asked for), else None: its parser then loads T alone,
    not every target and the installed plugins' list (tens of milliseconds of
    a cold start). `parse` falls back to the full parser whenever the scoped
    one would not give the same answer."""
    from gpuc.targets import BUILTIN_TARGETS

    if not arguments or arguments[0] not in ("compile", "explain"):
        return None
    if "-h" in arguments or "--help" in arguments or "--" in arguments:
        return None
    named = [
        value
        for flag, value in zip(arguments, arguments[1:], strict=False)
        if flag == "--target"
    ] + [a.removeprefix("--target=") for a in arguments if a.startswith("--target=")]
    if len(named) != 1 or named[0] not in BUILTIN_TARGETS:
        return None
    return named[0]


def parse(arguments: Sequence[str]) -> tuple[argparse.ArgumentParser, Any, list[str]]:
    """The parser for `arguments`, what it parsed and what it left over: the
    parser of the one target the command line names where that parses
    everything the same way (exact spellings, every flag known), else the
    full parser of every target."""
    scope = target_scope(arguments)
    if scope is not None:
        parser = arg_parser(scope=scope)
        try:
            args, extra = parser.parse_known_args(arguments)
        except UsageError:
            pass  # the full parser says what is wrong, in its words
        else:
            if not extra and args.target == scope:
                return parser, args, extra
    parser = arg_parser()
    args, extra = parser.parse_known_args(arguments)
    return parser, args, extra


def arg_parser(
    with_targets: bool = True, scope: str | None = None
) -> argparse.ArgumentParser:
    """The command line. `with_targets=False` loads no target: no target flags,
    no targets' names in the help, and no abbreviations, so that whatever
    needs a target is left unparsed (the compile cache's fast path).
    `scope` loads only that target, for its flags, and takes no
    abbreviations (`parse` decides when that is the same command line)."""
    parser = ArgParser(prog="gpuc", description="gpuc, a GPU kernel compiler")
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=ArgParser
    )
    c = commands.add_parser(
        "compile",
        help="compile an MLIR file for a target",
        allow_abbrev=with_targets and scope is None,
    )
    c.set_defaults(target_scope=scope)
    from gpuc.registry import DIALECTS

    c.add_argument(
        "file",
        help=f"MLIR input, - for stdin: {', '.join(DIALECTS)} ops (other "
        "frontends' ops are imported into gpuc's)",
    )
    from gpuc.targets import DEFAULT_TARGET, target_class, target_names

    names = [scope] if scope else target_names() if with_targets else []
    c.add_argument(
        "--target",
        metavar="T",
        help=f"what to compile for: {', '.join(names)} (default: the module's "
        f"#gpuc.target, else {DEFAULT_TARGET})",
    )
    for option, (f, owners) in (target_flags(scope) if with_targets else {}).items():
        c.add_argument(
            "--" + option.replace("_", "-"),
            dest=f"target_option_{option}",
            type=flag_type(target_class(owners[0]), option),
            metavar="V",
            help=f"{', '.join(owners)}: {f.metadata.get('help', option)}",
        )
    targets = loadable_targets(scope) if with_targets else {}
    emits = {
        e: None for cls in targets.values() for e in (*GENERIC_EMITS, *cls.artefacts)
    }
    defaults = ", ".join(f"{t.artefacts[0]} for {n}" for n, t in targets.items())
    c.add_argument(
        "--emit",
        metavar="KIND",
        help=f"what to write: {', '.join(emits)} (default: the target's "
        f"artefact: {defaults})",
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
        "--gpu-module",
        default="",
        metavar="NAME",
        help="compile only gpu.module @NAME of a module from another frontend "
        "(default: all; a kernel is then addressed as NAME::kernel)",
    )
    c.add_argument(
        "--no-fp-contract",
        action="store_true",
        help="never fuse a multiply and an add into an fma",
    )
    c.add_argument(
        "-g",
        "--line-info",
        dest="line_info",
        action="store_true",
        help="line tables from the input's locations (.loc in PTX, OpLine in "
        "SPIR-V, DWARF in objects); the code stays the same",
    )
    c.add_argument(
        "--checked",
        action="store_true",
        help="checked mode (native): a load, store or atomic outside its "
        "buffer stops the launch with an error naming it",
    )
    from gpuc.cli.explain import add_explain_parser

    add_explain_parser(commands, c)  # before the cache's flags: explain never caches
    cache_cli.add_arguments(c)
    c.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="with several inputs (gpuc compile A B ... -o DIR): compile N at a "
        "time in separate processes, each to DIR/<stem>.<emit>",
    )
    cache_cli.add_command(commands)
    add_run_parser(commands, names)
    return parser


def add_run_parser(commands: Any, targets: Sequence[str]) -> None:
    """`gpuc run FILE`: run a module's host code (gpuc/cli/run.py)."""
    from gpuc.targets import HOST_TARGET

    r = commands.add_parser(
        "run",
        help="run an MLIR module's host code (func.func @main), launching its "
        "kernels compiled by gpuc",
    )
    r.add_argument(
        "file",
        help="MLIR input, - for stdin: host functions around gpu.modules or "
        "gpu.launch regions (gpu ops in generic form, docs/frontends.md)",
    )
    r.add_argument(
        "--target",
        default=HOST_TARGET,
        metavar="T",
        help=f"where the kernels run: {', '.join(targets) or 'a target'} "
        f"(default: {HOST_TARGET})",
    )
    r.add_argument(
        "--entry",
        default="main",
        metavar="NAME",
        help="the host function to call (default: main)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # a command line: the compile server may run it
        from gpuc.cli.client import forward

        try:
            status = forward("gpuc", sys.argv[1:])
        except KeyboardInterrupt:  # while a server starts: as in the command
            return 130
        if status is not None:
            return status
    input_name = "gpuc"
    several = 0

    def body() -> None:
        nonlocal input_name, several
        arguments = list(sys.argv[1:] if argv is None else argv)
        if cache_cli.fast_compile(arguments):
            return
        parser, args, extra = parse(arguments)
        if extra:  # several inputs (gpuc/cli/many.py), else the parser's error
            from gpuc.cli.many import compile_several

            several = compile_several(parser, arguments, args, extra)
            return
        if args.command == "cache":
            cache_cli.cache_command(args)
            return
        input_name = STDIN_NAME if args.file == "-" else args.file
        if args.command == "run":
            from gpuc.cli.run import run_command as run_host_code

            run_host_code(args.file, args.target, args.entry)
            return
        if args.command == "explain":
            from gpuc.cli.explain import explain_command

            write_output(args.output, explain_command(args), "gpuc")
            return
        try:
            output = compile_command(args, arguments)
        except Exception as e:
            if diagnostic(e, input_name) is None and not isinstance(e, UsageError):
                cache_cli.write_reproducer(arguments, args, e)
            raise
        write_output(args.output, output, "gpuc")

    status = run_command("gpuc", body, lambda error: diagnostic(error, input_name))
    return status or several


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


def compile_options(
    args: argparse.Namespace,
) -> tuple[str | None, dict[str, object], str | ModuleOp]:
    """The target (None: the module's), the options and the source that the
    command line of `gpuc compile` (or `gpuc explain`) asks for."""
    from gpuc.targets import BrokenTarget, UnknownTarget, target_class

    cls: type[Target] | None = None
    if args.target is not None:
        try:
            cls = target_class(args.target)
        except (UnknownTarget, BrokenTarget) as e:
            raise UsageError(f"--target: {e}") from None
        check_emit(cls, args.emit)
    options: dict[str, object] = {
        "opt_level": args.opt_level,
        "exports": tuple(args.export),
        "libraries": tuple(args.library),
        "fp_contract": not args.no_fp_contract,
        "validate": args.validate,
        "gpu_module": args.gpu_module,
        "line_info": args.line_info,
        "checked": args.checked,
    }
    flags = target_flags(getattr(args, "target_scope", None))
    given = {
        option: getattr(args, f"target_option_{option}")
        for option in flags
        if getattr(args, f"target_option_{option}") is not None
    }
    target = args.target
    if target is None and given:
        # A target's own flag names its target (`--sm 80` is ptx's).
        shared = set.intersection(*(set(flags[o][1]) for o in given))
        if len(shared) != 1:
            spelled = ", ".join("--" + o.replace("_", "-") for o in given)
            raise UsageError(f"{spelled}: say which target with --target")
        target = shared.pop()
        cls = target_class(target)
        check_emit(cls, args.emit)
    for option in given:
        owners = flags[option][1]
        if target not in owners:
            flag = "--" + option.replace("_", "-")
            raise UsageError(f"{flag} applies to --target {' or '.join(owners)} only")
    options.update(given)
    source: str | ModuleOp = args.file
    if args.file == "-":
        source = read_stdin()
    elif not os.path.isfile(args.file):
        raise UsageError(f"no such file: {args.file}")
    elif args.file.endswith(".py"):
        from gpuc.python.module import module_of_file

        source = module_of_file(args.file)
    return target, options, source


def compile_command(args: argparse.Namespace, argv: Sequence[str] = ()) -> bytes | str:
    from gpuc.driver import make_options

    target, options, source = compile_options(args)
    stop_after = STOP_AFTER.get(args.emit, "validate")
    if args.validate and stop_after != "validate":
        stop_after = "validate"
    cache, cached = cache_cli.compile_through_cache(
        args,
        source,
        make_options(target, options),
        stop_after=stop_after,
        emits=lambda target: artefact_kinds(type(target), args.emit),
        after_stage=print_stage if args.print_ir_after_all else None,
        after_pass=print_pass if args.print_ir_after_all else None,
    )
    c = cached.compilation
    if args.verbose:
        for note in c.notes:
            print(f"gpuc: note: {note}", file=sys.stderr)
    emit = check_emit(type(c.target), args.emit)
    output = cached.renders[emit] if emit in cached.renders else artefact_of(c, emit)
    cache_cli.finish(argv, args, cache, cached, emit)
    to_stdout = args.output in (None, "-")
    if to_stdout and isinstance(output, bytes) and sys.stdout.isatty():
        raise UsageError(
            f"--emit {emit} is binary; write it to a file with -o, or choose a "
            f"text --emit ({c.target.listing} for --target {c.target.name})"
        )
    return output


STDIN_NAME = "<stdin>"
"""The input's name in diagnostics when it is read from stdin (`-`)."""


def read_stdin() -> ModuleOp:
    """The module on stdin, parsed as a file is (located as `<stdin>`)."""
    from gpuc.context import make_context
    from gpuc.diagnostics import decode_source
    from gpuc.reader.text import parse_foreign_module

    text = decode_source(sys.stdin.buffer.read(), STDIN_NAME, "input")
    return parse_foreign_module(text, make_context(), STDIN_NAME)


def check_emit(cls: type[Target], emit: str | None) -> str:
    """`emit`, or the target's default artefact; a UsageError if the target
    cannot emit it."""
    emits = (*GENERIC_EMITS, *cls.artefacts)
    if emit is None:
        return cls.artefacts[0]
    if emit not in emits:
        raise UsageError(
            f"--emit {emit} is not available for --target {cls.name}; "
            f"choose one of: {', '.join(emits)}"
        )
    return emit


def artefact_kinds(cls: type[Target], emit: str | None) -> list[str]:
    """The target's artefact `emit` asks for, if it asks for one (not `mlir`
    or `llvm`)."""
    kind = check_emit(cls, emit)
    return [] if kind in GENERIC_EMITS else [kind]


def artefact_of(c: Compilation, emit: str) -> bytes | str:
    from gpuc.hexfloat import ExactFloatPrinter as Printer

    if emit == "mlir":
        assert c.module is not None
        from io import StringIO

        out = StringIO()
        Printer(stream=out).print_op(c.module)
        return out.getvalue() + "\n"
    if emit == "llvm":
        assert c.llvm_ir is not None
        return c.llvm_ir
    return c.target.render(emit, c)


def print_stage(stage: str, c: Compilation) -> None:
    """`--print-ir-after-all`: the IR each stage produced (the dialect stage's
    passes print theirs, `print_pass`)."""
    text: str | None = None
    if stage == "parse" and c.module is not None:
        text = str(c.module)
    elif stage == "translate":
        text = c.translated
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
