"""Compiling through the cache (docs/cache.md).

The canonical key is the module after the dialect stage (deferred jobs
resolved from the module, libraries and generators; dead symbols removed;
kernels finalized), printed without locations, with the toolchain, the host,
the installed gpuc plugins (their code), the target's class and options, the
given generators' identities and versions, and every option the module does
not already carry; the files the link read (libdevice) are recorded with the
entry, and a hit needs them unchanged. Computing it costs the parse and the
dialect stage; a hit saves translation, LLVM and emission. An entry holds the
LLVM IR as translated and as optimized and the artefact, so dumps are written
on a hit too (the dialect stage runs anyway; `link` is reproduced from the
stored translated IR).

In front of it the command line keeps a source key: the input's and the
libraries' bytes and names, the options as given, the toolchain, the host
and the installed plugins, naming the canonical key. A byte-identical
compile then reads two entries and loads neither xDSL nor LLVM (`gpuc
compile` in `gpuc/cli/main.py`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpuc.cache.store import (
    FORMAT,
    Cache,
    Entry,
    code_identity,
    digest,
    host,
    inputs_hold,
    plugins,
    read_inputs,
    toolchain,
)

if TYPE_CHECKING:
    import os

    from xdsl.dialects.builtin import ModuleOp

    from gpuc.driver import Compilation, CompileOptions
    from gpuc.dumps import Dumps
    from gpuc.targets.base import Target
    from gpuc.transforms.gpuc_pipeline import AfterPass

LATER_STAGES = ("translate", "link", "optimize", "emit", "validate")
"""What a hit saves (validation runs on a hit too: it checks, it makes nothing)."""


@dataclass
class Cached:
    """A compilation that went through the cache."""

    compilation: Compilation
    outcome: str
    """'hit', 'miss' or 'off'."""
    key: str | None = None
    """The canonical key (None when the cache is off)."""
    renders: dict[str, bytes | str] = field(default_factory=dict)
    """The `emits` asked for, by kind."""
    stored: bool = False
    """A miss was written to the cache."""


IN_THE_MODULE = ("target", "target_options", "exports", "libraries", "generators")
"""CompileOptions fields the canonical key takes from elsewhere: the target
object, and the module (the entrypoint set, the jobs' bodies). The given
generators are keyed by identity and version. Every other field is keyed as
it is, except `validate`, which makes nothing (a hit is validated again)."""


def canonical_text(module: ModuleOp, locations: bool) -> str:
    """The module as the key sees it; locations only where a later stage reads
    them (`line_info`, or a target whose artefact quotes them in its error
    messages: native), so elsewhere a comment does not change a key."""
    from io import StringIO

    from gpuc.hexfloat import ExactFloatPrinter

    out = StringIO()
    ExactFloatPrinter(stream=out, print_debuginfo=locations).print_op(module)
    return out.getvalue()


def compile_key(c: Compilation) -> str:
    """The canonical key of a compilation whose dialect stage has run."""
    from dataclasses import fields

    from gpuc.asserts import module_asserts

    assert c.module is not None
    target = c.target
    generators = tuple(
        (name, code_identity(type(g)), repr(getattr(g, "version", None)))
        for name, g in c.options.generators
    )
    keyed = tuple(
        (f.name, repr(getattr(c.options, f.name)))
        for f in fields(c.options)
        if f.name not in (*IN_THE_MODULE, "validate")
    )
    return digest(
        "compile",
        FORMAT,
        toolchain(),
        host(),
        plugins(),  # plugin targets' and generators' code
        code_identity(type(target)),
        str(target.spec()),
        tuple(sorted((k, repr(v)) for k, v in target.options().items())),
        keyed,
        generators,
        canonical_text(
            c.module,
            bool(getattr(c.options, "line_info", False))
            or type(target).quotes_locations
            or bool(module_asserts(c.module)),  # their messages quote them
        ),
    )


def compile_through(
    source: str | os.PathLike[str] | ModuleOp,
    options: CompileOptions,
    *,
    cache: Cache | None,
    stop_after: str = "validate",
    emits: Callable[[Target], Sequence[str]] = lambda target: (),
    dumps: Dumps | None = None,
    after_stage: Callable[[str, Compilation], None] | None = None,
    after_pass: AfterPass | None = None,
    verified: bool = False,
) -> Cached:
    """Run the stages up to `stop_after` through `cache` (None: no cache), and
    render the artefact kinds `emits` names for the configured target (it may
    raise: the kind is checked before the later stages run). `after_stage` and
    `after_pass` see a hit's dialect stage only. `verified`: `source` is a
    module that verifies as it is (a frontend built it), so the parse stage,
    which would upgrade and verify it, is skipped."""
    try:
        cached = _compile_through(
            source,
            options,
            cache,
            stop_after,
            emits,
            dumps,
            after_stage,
            after_pass,
            verified,
        )
    except BaseException:
        if dumps is not None:
            try:
                dumps.finish("error")
            except OSError:
                pass  # what ended the compile is the error to report
        raise
    if dumps is not None:
        dumps.finish(cached.outcome)
    return cached


def _compile_through(
    source: str | os.PathLike[str] | ModuleOp,
    options: CompileOptions,
    cache: Cache | None,
    stop_after: str,
    emit_kinds: Callable[[Target], Sequence[str]],
    dumps: Dumps | None,
    after_stage: Callable[[str, Compilation], None] | None,
    after_pass: AfterPass | None,
    verified: bool,
) -> Cached:
    from gpuc.driver import run

    def passed(name: str, module: ModuleOp) -> None:
        if dumps is not None:
            dumps.module(name, module)
        if after_pass is not None:
            after_pass(name, module)

    def staged(name: str, c: Compilation) -> None:
        if dumps is not None:
            dumps.stage(name, c)
        if after_stage is not None:
            after_stage(name, c)

    c = run(
        source,
        options,
        start="dialect" if verified else "parse",
        stop_after="dialect",
        after_stage=staged,
        after_pass=passed,
    )
    if stop_after == "dialect":
        return Cached(c, "off")
    emits = tuple(emit_kinds(c.target))
    key = compile_key(c) if cache is not None else None
    needed = needed_blobs(stop_after, emits)
    entry = cache.get("compile", key) if cache is not None and key else None
    if (
        entry is not None
        and all(_has(entry, name) for name in needed)
        and inputs_hold(entry.meta.get("inputs"))
    ):
        if dumps is not None:
            dumps.from_entry(c, entry)
        renders = read_hit(c, entry, emits)
        if stop_after == "validate" and c.options.validate:
            assert c.artefact is not None
            c.target.validate(c.artefact)
        return Cached(c, "hit", key, renders)
    translated: list[str] = []

    def later(name: str, c: Compilation) -> None:
        if name == "translate" and c.translated is not None and cache is not None:
            translated.append(c.translated)  # kept in the entry
        staged(name, c)

    last = LATER_STAGES.index(stop_after) + 1 if stop_after in LATER_STAGES else 0
    resume(c, LATER_STAGES[:last], later)
    renders = {kind: c.target.render(kind, c) for kind in emits}
    if cache is None or key is None:
        return Cached(c, "off", None, renders)
    entry = make_entry(c, translated, renders)
    if translated:
        entry.meta["inputs"] = read_inputs(c.target.link_inputs(translated[0]))
    stored = cache.put("compile", key, entry)
    return Cached(c, "miss", key, renders, stored)


def resume(
    c: Compilation,
    stages: Sequence[str],
    after_stage: Callable[[str, Compilation], None],
) -> None:
    """Run `stages` on `c`, the cycle collector paused as `gpuc.driver.run` does."""
    from gpuc.driver import STAGE_FUNCTIONS

    collecting = gc.isenabled()
    gc.disable()
    try:
        for name in stages:
            STAGE_FUNCTIONS[name](c)
            after_stage(name, c)
    finally:
        if collecting:
            gc.enable()


def needed_blobs(stop_after: str, emits: Sequence[str]) -> set[str]:
    """The blobs a hit must have for a compilation up to `stop_after`."""
    needed = {"llvm-ir-translated", "llvm-ir"}
    if stop_after in ("emit", "validate"):
        needed.add("artefact")
    return needed | {f"emit:{kind}" for kind in emits}


def make_entry(
    c: Compilation, translated: Sequence[str], renders: dict[str, bytes | str]
) -> Entry:
    entry = Entry()
    if translated:
        entry.blobs["llvm-ir-translated"], entry.meta["llvm-ir-translated"] = _blob(
            translated[0]
        )
    if c.llvm_ir is not None:
        entry.blobs["llvm-ir"], entry.meta["llvm-ir"] = _blob(c.llvm_ir)
    if c.artefact is not None:
        entry.blobs["artefact"], entry.meta["artefact"] = _blob(c.artefact)
    for kind, data in renders.items():
        if data is c.artefact or data == c.artefact:
            entry.meta[f"emit:{kind}"] = "artefact"
        else:
            entry.blobs[f"emit:{kind}"], entry.meta[f"emit:{kind}"] = _blob(data)
    return entry


def read_hit(
    c: Compilation, entry: Entry, emits: Sequence[str]
) -> dict[str, bytes | str]:
    """Fill `c` from a hit and return its renders."""
    c.llvm_ir = entry.text("llvm-ir")
    if "artefact" in entry.blobs:
        c.artefact = _unblob(entry, "artefact")
    return {kind: _unblob(entry, f"emit:{kind}") for kind in emits}


def _blob(data: bytes | str) -> tuple[bytes, str]:
    return (data.encode(), "text") if isinstance(data, str) else (data, "bytes")


def read_blob(entry: Entry, name: str) -> bytes | str | None:
    """Blob `name` of `entry` (text where it was stored as text), None if absent."""
    return _unblob(entry, name) if _has(entry, name) else None


def _has(entry: Entry, name: str) -> bool:
    if entry.meta.get(name) == "artefact":
        return "artefact" in entry.blobs
    return name in entry.blobs


def _unblob(entry: Entry, name: str) -> bytes | str:
    if entry.meta.get(name) == "artefact":
        name = "artefact"
    data = entry.blobs[name]
    return data.decode() if entry.meta.get(name) == "text" else data


def source_key(
    text: bytes, libraries: Sequence[bytes], options: Sequence[object]
) -> str:
    """The source key of a command-line compile: the input's and libraries'
    bytes and the options as given (`options`: every parsed flag that can
    change the output, the input's and libraries' names among them)."""
    return digest(
        "source",
        FORMAT,
        toolchain(),
        host(),
        plugins(),
        tuple(options),
        text,
        tuple(libraries),
    )
