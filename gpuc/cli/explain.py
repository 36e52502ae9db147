"""`gpuc explain FILE [SYMBOL...]`: compile FILE as `gpuc compile` would, with
the same options, and print why each symbol is there or gone (text, or
`--format json` / `dot`), instead of the artefact.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from gpuc.cli.command import ArgParser, UsageError

FORMATS = ("text", "json", "dot")


class ExplainParser(ArgParser):
    """Parses intermixed: options may stand between FILE and the SYMBOLs
    (`gpuc explain f.mlir --target spirv @k`), which argparse's plain parsing
    refuses once the positionals are taken."""

    _intermixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def add_explain_parser(commands: Any, compile_parser: argparse.ArgumentParser) -> None:
    """The `explain` subcommand: `compile`'s options (its parser is the parent),
    the symbols to explain and `--format`."""
    # argparse's add_parser takes no parser class: swap the action's for this one.
    default_class = commands._parser_class
    commands._parser_class = ExplainParser
    try:
        _explain_parser(commands, compile_parser)
    finally:
        commands._parser_class = default_class


def _explain_parser(
    commands: Any, compile_parser: argparse.ArgumentParser
) -> argparse.ArgumentParser:
    e: argparse.ArgumentParser = commands.add_parser(
        "explain",
        parents=[compile_parser],
        conflict_handler="resolve",
        allow_abbrev=compile_parser.allow_abbrev,
        help="say why each symbol of a compile is there, or gone",
        description="Compile FILE (with gpuc compile's options; --emit does not "
        "apply) and explain every function of the input and every materialized "
        "job: origin, visibility, inlining, why kept or removed, and what it "
        "became in the artefact (docs/explain.md).",
    )
    e.add_argument(
        "symbols",
        nargs="*",
        metavar="SYMBOL",
        help="explain only these symbols (`@name` or `name`; default: all)",
    )
    e.add_argument(
        "--format",
        default="text",
        metavar="F",
        help=f"output format: {', '.join(FORMATS)} (default text)",
    )
    return e


def explain_command(args: argparse.Namespace) -> str:
    from gpuc.cli.main import compile_options, print_pass, print_stage
    from gpuc.driver import make_options, run
    from gpuc.explain.record import Recorder, recording
    from gpuc.explain.report import Explanation

    if args.format not in FORMATS:
        raise UsageError(f"--format {args.format}: choose one of {', '.join(FORMATS)}")
    if args.emit is not None:
        raise UsageError(
            "--emit does not apply to gpuc explain (it reads the target's own "
            "artefact); drop it"
        )
    target, options, source = compile_options(args)
    recorder = Recorder()
    with recording(recorder):
        c = run(
            source,
            make_options(target, options),
            after_stage=print_stage if args.print_ir_after_all else None,
            after_pass=print_pass if args.print_ir_after_all else None,
        )
    assert c.module is not None and c.artefact is not None
    explanation = Explanation.build(recorder, c.target, c.module, c.artefact)
    if args.format == "json":
        return explanation.json(args.symbols)
    if args.format == "dot":
        return explanation.dot(args.symbols)
    return explanation.text(args.symbols)
