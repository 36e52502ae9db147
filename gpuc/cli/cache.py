"""The compile cache on the command line: `gpuc cache info|clear`, `-v`'s
report, and the source key's fast path (docs/cache.md).

The fast path reads `gpuc compile`'s arguments with the parser that loads no
target (`arg_parser(with_targets=False)`, abbreviations off), so anything it
does not know (a target flag, a typo) leaves the compile to the full path.
The source key covers every argument it parsed except those that change no
output (`NOT_KEYED`), so a flag added to `gpuc compile` is keyed from the
start; a compile the full path finished stores the same key, naming its
canonical key and the blob that was written.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gpuc.cli.command import ArgParser, CommandError, UsageError, write_output

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.cache.compiling import Cached
    from gpuc.cache.store import Cache
    from gpuc.driver import Compilation, CompileOptions
    from gpuc.targets.base import Target
    from gpuc.transforms.gpuc_pipeline import AfterPass

NOT_KEYED = frozenset(
    {"command", "output", "verbose", "no_cache", "jobs"}
    | {"dump_dir", "dump_filter", "print_ir_after_all"}
)
"""`gpuc compile` arguments outside the source key: they change no output.
The input's and the libraries' names are keyed with their bytes (line
tables and run-time checks quote them)."""


def add_arguments(c: argparse.ArgumentParser) -> None:
    """`gpuc compile`'s cache and dump flags."""
    c.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print notes on stderr: what the reader skipped (host code around "
        "gpu.modules), and whether the compile cache had the output",
    )
    c.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the compile cache (also GPUC_CACHE=0)",
    )
    c.add_argument(
        "--dump-dir",
        metavar="D",
        help="write every stage's output under D/<input's stem>/ (also "
        "GPUC_DUMP_DIR), on a cache hit too",
    )
    c.add_argument(
        "--dump-filter",
        metavar="PATTERNS",
        help="with --dump-dir: only the stages matching these comma-separated "
        "patterns (e.g. 'inline,symbol-dce,optimize', '*-target')",
    )


def add_command(commands: argparse._SubParsersAction[ArgParser]) -> None:
    """`gpuc cache info|clear`."""
    p = commands.add_parser("cache", help="show or clear the compile cache")
    p.add_argument(
        "action",
        choices=("info", "clear"),
        help="info: the directory, its entries and size; clear: remove them",
    )


def cache_command(args: argparse.Namespace) -> None:
    from gpuc.cache.store import Cache

    cache = Cache()
    if args.action == "clear":
        from gpuc.cache import startup as code_cache

        code_cache.discard()  # this command's own start-up code stays unsaved
        cleared = cache.clear()
        code = (
            f" and {cleared.code_files} start-up code file(s)"
            if cleared.code_files
            else ""
        )
        print(
            f"removed {cleared.entries} entries ({cleared.bytes} bytes){code} "
            f"from {cache.folder}"
        )
        if cleared.failed:
            shown = "\n  ".join(cleared.failed[:10])
            more = len(cleared.failed) - 10
            raise CommandError(
                f"gpuc: could not remove {len(cleared.failed)} file(s) from "
                f"{cache.folder}:\n  {shown}"
                + (f"\n  ... and {more} more" if more > 0 else "")
            )
        return
    info = cache.info()
    enabled = "on" if _enabled(False) else "off (GPUC_CACHE)"
    print(f"directory: {info.directory}")
    print(f"folder:    {info.folder}")
    print(f"entries:   {info.entries}")
    print(f"size:      {info.bytes} bytes (limit {info.max_bytes})")
    print(f"cache:     {enabled}")
    for reason in _refusals():
        print(f"not used:  {reason}")


def _refusals() -> list[str]:
    """Why something in the cache was not trusted in this process."""
    from gpuc.cache.directory import refusals

    return list(refusals)


def warn_refusals() -> None:
    """`-v`: what the cache did not trust, and that it compiled instead."""
    for reason in _refusals():
        print(
            f"gpuc: warning: the cache is not used where {reason} "
            "(see docs/cache.md, 'Who may write the cache')",
            file=sys.stderr,
        )


def _enabled(no_cache: bool) -> bool:
    from gpuc.cache.store import enabled

    return enabled(False if no_cache else None)


Stamps = tuple[tuple[int, int, int, int], ...]
"""What the files read for a source key were: inode, size, mtime and ctime."""
_keyed: list[tuple[str, Stamps]] = []
"""The source key this process computed before compiling (`remember` stores
the compile under it only where the files did not change meanwhile)."""


def source_key_of(argv: Sequence[str]) -> tuple[str, argparse.Namespace, Stamps] | None:
    """The source key of a `gpuc compile` command line, or None where the fast
    path does not apply (not a compile, target flags, stdin, cache off, dumps,
    validation, an unreadable input: the full path decides); with the stamps
    of the files read for it."""
    if any(a in ("-h", "--help", "--no-cache") for a in argv) or not _enabled(False):
        return None
    from gpuc.cli.main import arg_parser

    try:
        args, extra = arg_parser(with_targets=False).parse_known_args(list(argv))
    except UsageError:
        return None
    if extra or args.command != "compile" or args.file == "-":
        return None
    if args.file.endswith(".py"):
        return None  # Python kernels read other modules: not keyed by bytes
    if not _enabled(args.no_cache) or args.print_ir_after_all or args.validate:
        return None
    if args.dump_dir or os.environ.get("GPUC_DUMP_DIR") or args.emit == "mlir":
        return None
    try:
        read = [_read(name) for name in (args.file, *args.library)]
    except OSError:
        return None
    from gpuc.cache.compiling import source_key

    keyed = sorted(
        (name, repr(value))
        for name, value in vars(args).items()
        if name not in NOT_KEYED
    )
    key = source_key(read[0][0], [data for data, _ in read[1:]], keyed)
    return key, args, tuple(stamp for _, stamp in read)


def _read(path: str) -> tuple[bytes, tuple[int, int, int, int]]:
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        return f.read(), (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def fast_compile(argv: Sequence[str]) -> bool:
    """Serve `gpuc compile` from the source key; False if it cannot."""
    found = source_key_of(argv)
    if found is None:
        return False
    key, args, stamps = found
    _keyed.append((key, stamps))
    from gpuc.cache.compiling import read_blob
    from gpuc.cache.store import Cache, inputs_hold

    cache = Cache()
    source = cache.get("source", key)
    compile_key, blob = (
        (source.meta.get("compile"), source.meta.get("blob"))
        if source
        else (None, None)
    )
    if not isinstance(compile_key, str) or not isinstance(blob, str):
        return False
    entry = cache.get("compile", compile_key)
    if entry is None or not inputs_hold(entry.meta.get("inputs")):
        return False
    output = read_blob(entry, blob)
    if output is None:
        return False
    if args.output in (None, "-") and isinstance(output, bytes) and sys.stdout.isatty():
        return False  # the full path says why not
    write_output(args.output, output, "gpuc")
    if args.verbose:
        warn_refusals()
        notes = source.meta.get("notes") if source else None
        for note in notes if isinstance(notes, list) else []:
            print(f"gpuc: note: {note}", file=sys.stderr)
        print(
            f"gpuc: cache hit (source key {key[:12]}, module key {compile_key[:12]}) "
            f"in {cache.directory}",
            file=sys.stderr,
        )
    return True


def remember(argv: Sequence[str], cache: Cache, cached: Cached, blob: str) -> None:
    """After a compile through `cache`: store its source key, naming the
    canonical key and the blob written."""
    if cached.key is None:
        return
    found = source_key_of(argv)
    if found is None or (found[0], found[2]) not in _keyed:
        return  # not keyed before the compile, or its files changed since
    from gpuc.cache.store import Entry

    meta: dict[str, object] = {
        "compile": cached.key,
        "blob": blob,
        "notes": list(cached.compilation.notes),
    }
    cache.put("source", found[0], Entry(meta=meta))


def report(cache: Cache | None, cached: Cached) -> None:
    """`-v`: the cache's outcome on stderr."""
    warn_refusals()
    if cache is None or cached.key is None:
        why = "off" if cache is None else "not used (the output is the dialect stage's)"
        print(f"gpuc: cache {why}", file=sys.stderr)
        return
    stored = ""
    if cached.outcome == "miss":
        stored = ", stored" if cached.stored else ", not stored"
    print(
        f"gpuc: cache {cached.outcome} (module key {cached.key[:12]}{stored}) "
        f"in {cache.directory}",
        file=sys.stderr,
    )


def compile_through_cache(
    args: argparse.Namespace,
    source: str | ModuleOp,
    options: CompileOptions,
    *,
    stop_after: str,
    emits: Callable[[Target], Sequence[str]],
    after_stage: Callable[[str, Compilation], None] | None,
    after_pass: AfterPass | None,
) -> tuple[Cache | None, Cached]:
    """`gpuc compile`'s stages through the cache (`--no-cache`, GPUC_CACHE=0 and
    `--print-ir-after-all`, which prints what the stages make, go without)."""
    from gpuc.cache.compiling import compile_through
    from gpuc.cache.store import Cache
    from gpuc.dumps import Dumps, dump_directory

    cache = None
    if _enabled(args.no_cache) and not args.print_ir_after_all:
        cache = Cache()
    base = dump_directory(args.dump_dir)
    dumps = Dumps.create(base, args.file, args.dump_filter) if base else None
    cached = compile_through(
        source,
        options,
        cache=cache,
        stop_after=stop_after,
        emits=emits,
        dumps=dumps,
        after_stage=after_stage,
        after_pass=after_pass,
    )
    return cache, cached


def finish(
    argv: Sequence[str],
    args: argparse.Namespace,
    cache: Cache | None,
    cached: Cached,
    emit: str,
) -> None:
    """After a compile: `-v`'s report, and the source key stored."""
    if args.verbose:
        report(cache, cached)
    if cache is not None and emit != "mlir":
        remember(argv, cache, cached, "llvm-ir" if emit == "llvm" else f"emit:{emit}")


def write_reproducer(
    argv: Sequence[str], args: argparse.Namespace, error: Exception
) -> None:
    """On an internal error: the input, libraries and command line as a
    reproducer (in the dump directory's `repro/`, else a temporary
    directory), and where it is, on stderr."""
    from pathlib import Path

    from gpuc.dumps import dump_directory, source_stem
    from gpuc.dumps import write_reproducer as write

    base = dump_directory(getattr(args, "dump_dir", None))
    directory = base / source_stem(args.file) / "repro" if base else None
    try:
        where = write(argv, args.file, args.library, error, directory)
    except OSError as e:
        print(f"gpuc: could not write a reproducer: {e}", file=sys.stderr)
        return
    print(
        f"gpuc: a reproducer is in {where} (run {Path(where) / 'repro.sh'})",
        file=sys.stderr,
    )
