"""Per-stage dumps and the reproducer of an internal error (docs/cache.md).

`gpuc compile --dump-dir D` (GPUC_DUMP_DIR, `gpuc.compile(dump_dir=D)`)
writes, under `D/<input's stem>/`, one numbered file per stage: the module as
parsed and after each dialect-level pass (`.mlir`), the LLVM IR as translated,
linked and optimized (`.ll`), and the artefact; `stages.txt` lists them with
where each came from (compiled, the cache, or reproduced from the cache's
translated IR). Every stage of gpuc works on the whole module, so each dump is
the whole module: its kernels are the entrypoint set's. `--dump-filter` keeps
the stages whose names match one of its comma-separated fnmatch patterns;
numbers stay those of the full list.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.cache.store import Entry
    from gpuc.driver import Compilation

MANIFEST = "stages.txt"


def dump_directory(option: str | os.PathLike[str] | None) -> Path | None:
    """The dump directory: `option`, else GPUC_DUMP_DIR, else None (no dumps)."""
    if option is not None:
        return Path(option)
    env = os.environ.get("GPUC_DUMP_DIR")
    return Path(env) if env else None


def source_stem(source: object) -> str:
    """The sub-directory a source's dumps go to: a file's stem, else `module`."""
    if isinstance(source, str | os.PathLike) and (
        isinstance(source, os.PathLike) or "\n" not in source
    ):
        stem = Path(source).stem
        if stem and os.path.exists(source):
            return stem
    return "module"


class Dumps:
    """Writes a compilation's stages into `directory`, numbered in order."""

    def __init__(self, directory: Path, patterns: Sequence[str] = ()) -> None:
        self.directory = directory
        self.patterns = [p for p in patterns if p]
        self.index = 0
        self.written: list[tuple[str, str]] = []
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.iterdir():
            if old.name == MANIFEST or (
                old.name[:2].isdigit() and old.name[2:3] == "-"
            ):
                old.unlink()

    @classmethod
    def create(
        cls, base: Path, source: object, filter: str | Sequence[str] | None = None
    ) -> Dumps:
        if isinstance(filter, str):
            filter = filter.split(",")
        return cls(base / source_stem(source), [p.strip() for p in filter or ()])

    def wants(self, name: str) -> bool:
        return not self.patterns or any(
            fnmatch.fnmatchcase(name, p) for p in self.patterns
        )

    def write(self, name: str, data: str | bytes | None, ext: str, origin: str) -> None:
        """Dump stage `name` (its number is taken even when filtered out)."""
        number = self.index
        self.index += 1
        if data is None or not self.wants(name):
            return
        file = f"{number:02d}-{name}.{ext}"
        raw = data.encode() if isinstance(data, str) else data
        write_file(self.directory / file, raw)
        self.written.append((file, origin))

    def module(self, name: str, module: ModuleOp) -> None:
        """After a pass of the dialect stage."""
        self.write(name, str(module) + "\n", "mlir", "compiled")

    def stage(self, name: str, c: Compilation) -> None:
        """After a stage the compilation ran (the dialect stage's passes are
        dumped one by one; validation makes nothing)."""
        if name == "parse" and c.module is not None:
            self.write("parse", str(c.module) + "\n", "mlir", "compiled")
        elif name == "translate":
            self.write(name, c.translated, "ll", "compiled")
        elif name == "link":
            text = str(c.llvm_module) if c.llvm_module is not None else None
            self.write(name, text, "ll", "compiled")
        elif name == "optimize":
            self.write(name, c.llvm_ir, "ll", "compiled")
        elif name == "emit":
            self.write(name, c.artefact, c.target.artefacts[0], "compiled")

    def from_entry(self, c: Compilation, entry: Entry) -> None:
        """The stages after the dialect level, from a cache hit."""
        translated = entry.text("llvm-ir-translated")
        self.write("translate", translated, "ll", "cache")
        linked = None
        if translated is not None and self.wants("link"):
            linked = link_reproduced(c, translated)
        self.write("link", linked, "ll", "reproduced")
        self.write("optimize", entry.text("llvm-ir"), "ll", "cache")
        artefact = entry.blobs.get("artefact")
        if artefact is not None:
            self.write("emit", artefact, c.target.artefacts[0], "cache")

    def finish(self, outcome: str) -> None:
        """Write the manifest: the cache's outcome, then each file and its origin."""
        lines = [f"# cache: {outcome}"] + [f"{f}\t{o}" for f, o in self.written]
        write_file(self.directory / MANIFEST, ("\n".join(lines) + "\n").encode())


def link_reproduced(c: Compilation, translated: str) -> str:
    """The `link` stage's module, made again from the translated IR of a hit."""
    from llvmlite import binding as llvm

    from gpuc.lowering.llvm import initialize

    initialize(c.target.llvm_options())
    module = llvm.parse_assembly(translated)
    c.target.link(module)
    return str(module)


def write_file(path: Path, data: bytes) -> None:
    """Write a dump file whole, or raise an OSError that names it (a write
    error, a full disk's, does not) and leave none of it behind."""
    try:
        path.write_bytes(data)
    except OSError as e:
        try:
            path.unlink()
        except OSError:
            pass
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None


def write_reproducer(
    argv: Sequence[str],
    input_path: str,
    libraries: Sequence[str],
    error: BaseException,
    directory: Path | None = None,
) -> Path:
    """Write `input.mlir`, the libraries and `repro.sh` (the command line that
    failed, run on those copies, cache off) into `directory` (None: a new
    temporary one); returns the directory."""
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="gpuc-repro-"))
    directory.mkdir(parents=True, exist_ok=True)
    renamed = {input_path: "input.mlir"}
    for i, lib in enumerate(libraries):
        renamed.setdefault(lib, f"library{i}-{Path(lib).name}")
    for original, copy in renamed.items():
        try:
            (directory / copy).write_bytes(Path(original).read_bytes())
        except OSError:
            continue
    command: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("-o", "--dump-dir"):
            skip = True
            continue
        if arg.startswith("--dump-dir=") or (arg.startswith("-o") and len(arg) > 2):
            continue
        flag, eq, value = arg.partition("=")
        if eq and value in renamed:
            command.append(f"{flag}={renamed[value]}")
        else:
            command.append(renamed.get(arg, arg))
    if "--no-cache" not in command:
        command.append("--no-cache")
    message = f"{type(error).__name__}: {error}".replace("\n", "\n# ")
    script = (
        "#!/bin/sh\n"
        f"# gpuc internal error: {message}\n"
        'cd "$(dirname "$0")" || exit 1\n'
        f'exec gpuc {shlex.join(command)} "$@"\n'
    )
    repro = directory / "repro.sh"
    repro.write_text(script)
    repro.chmod(0o755)
    return directory


def write_api_reproducer(
    source: object,
    target: str | None,
    options: Mapping[str, Any],
    error: BaseException,
    dumps: Path,
) -> Path:
    """For `gpuc.compile(..., dump_dir=D)`: the input (`input.mlir`, a module
    printed as it was given), the libraries given as files, and `repro.py`, the
    call that failed on those copies, cache off, into `D/<stem>/repro/`.
    Generators cannot be written out: the script names them in a comment."""
    directory = dumps / "repro"
    directory.mkdir(parents=True, exist_ok=True)
    if isinstance(source, str | os.PathLike) and source_stem(source) != "module":
        text = Path(source).read_bytes()
    else:
        text = str(source).encode()
    (directory / "input.mlir").write_bytes(text)
    given = {k: v for k, v in options.items() if k != "generators"}
    libraries = given.get("libraries", ())
    if isinstance(libraries, str | os.PathLike):
        libraries = (libraries,)
    copies = []
    for i, lib in enumerate(libraries):
        if isinstance(lib, str | os.PathLike) and os.path.isfile(lib):
            copy = f"library{i}-{Path(lib).name}"
            (directory / copy).write_bytes(Path(lib).read_bytes())
            copies.append(copy)
        else:
            copies.append(str(lib))
    if libraries:
        given["libraries"] = tuple(copies)
    lines = [
        "# gpuc internal error: "
        + f"{type(error).__name__}: {error}".replace("\n", "\n# "),
        "import os",
        "import gpuc",
        "os.chdir(os.path.dirname(os.path.abspath(__file__)))",
    ]
    if "generators" in options:
        names = ", ".join(sorted(dict(options["generators"])))
        lines.append(f"# it was given generators, not written here: {names}")
    call = ", ".join(
        ["'input.mlir'", repr(target)] + [f"{k}={v!r}" for k, v in given.items()]
    )
    lines.append(f"gpuc.compile({call}, cache=False)")
    (directory / "repro.py").write_text("\n".join(lines) + "\n")
    return directory
