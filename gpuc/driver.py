"""The compile pipeline, top to bottom.

    parse -> dialect -> translate -> link -> optimize -> emit [-> validate]

Each stage is one call below (`STAGES`); options are one frozen dataclass with
a content hash. `run` runs the stages from any up to any (the CLI's `--emit`);
`gpuc.compiler.compile_module`, above this module, runs every stage through the
compile cache and returns what the executors need.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException

from gpuc.dialects.attrs import (
    FINALIZED_ATTR,
    CompileSettings,
    FinalizedAttr,
    TargetAttr,
)
from gpuc.dialects.functions import FuncOp
from gpuc.targets import (
    DEFAULT_TARGET,
    UnknownTarget,
    configured_settings,
    configured_target,
    make_target,
    target_class,
    target_of_attr,
)
from gpuc.targets.base import Target, target_options

if TYPE_CHECKING:
    from llvmlite import binding as llvm

    from gpuc.generators import Generator
    from gpuc.runtime.launch_types import ArrayShape
    from gpuc.transforms.gpuc_pipeline import AfterPass

STAGES = ("parse", "dialect", "translate", "link", "optimize", "emit", "validate")


class OptionError(DiagnosticException):
    """An unknown or ill-typed compile option."""


@dataclass(frozen=True)
class KernelInfo:
    """A kernel of the entrypoint set, as its finalization record describes it."""

    name: str
    """The gpuc symbol (`@name`)."""
    symbol: str
    """What the kernel is launched by in the artefact (executors look it up)."""
    params: tuple[Attribute, ...]
    """gpuc-level parameter types (PtrType, IntegerType, Float32Type, ...)."""
    param_names: tuple[str | None, ...]
    """The parameters' names as written (`%x` is 'x'), None where unnamed."""
    uses_barrier: bool
    """The kernel reaches a barrier, transitively through helpers."""
    static_shared_bytes: int
    block_size: tuple[int, ...] | None = None
    """The block size the kernel is known to run with, if any."""
    read_only: tuple[bool, ...] = ()
    """Per parameter: a pointer the kernel never writes through
    (`gpuc.kernel_params`)."""
    summed: tuple[bool, ...] = ()
    """Per parameter: a pointer the kernel only adds into, with regrouped
    atomic adds (`gpuc.kernel_params.summed_params`)."""
    memref_shapes: tuple[ArrayShape, ...] = ()
    """Parameters the import made from memrefs: pointer position, dimensions
    and strided layout (gpuc.kernel_params)."""
    asserts: tuple[tuple[int, str], ...] = ()
    """For a kernel that takes the error record (ptx, spirv, amdgpu): the
    asserts it can report there, (id, message) by id (its record's `errors`;
    gpuc/asserts.py). Non-empty: the launch passes it an error record."""
    prints: bool = False
    """The kernel reaches a gpuc.printf or a cf.assert, whose failing threads
    print (its record's `prints`)."""
    uses_fragments: bool = False
    """The kernel uses warp matrix fragments, itself or by a call
    (gpuc/dialects/matrix.py): on spirv its block's x size must be a multiple of
    32, the sub-groups the fragments are spread over."""


@dataclass(frozen=True)
class CompileOptions:
    """Everything that decides the output (frozen; `hash` keys a cache)."""

    target: str = ""
    """The target's name; empty: the module's `#gpuc.target`, else the default
    target (decided once the module is read)."""
    target_options: tuple[tuple[str, Any], ...] = ()
    """Options of the target's dataclass, e.g. (("sm", 80),)."""
    opt_level: int = 3
    exports: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    fp_contract: bool = True
    validate: bool = False
    line_info: bool = False
    """Line tables from the ops' locations (`-g`); never changes the code."""
    checked: bool = False
    """Checked mode (targets that have one: native): every access is checked
    against its buffer's extent at run time (docs/runtime.md)."""
    gpu_module: str = ""
    """Compile only this gpu.module of a foreign module (empty: all of them)."""
    generators: tuple[tuple[str, Generator], ...] = ()
    """Job generators by name for this compile, ahead of the installed ones."""

    @property
    def hash(self) -> str:
        """A content hash of the options (generators by name and class)."""
        import hashlib

        fields_text = [
            (f.name, getattr(self, f.name))
            for f in fields(self)
            if f.name != "generators"
        ]
        plugins = [
            (n, f"{type(g).__module__}.{type(g).__qualname__}")
            for n, g in self.generators
        ]
        return hashlib.sha256(repr((fields_text, plugins)).encode()).hexdigest()[:16]

    @property
    def settings(self) -> CompileSettings:
        """The settings `#gpuc.target` carries (opt_level, fp_contract,
        line_info, checked)."""
        return CompileSettings(
            self.opt_level, self.fp_contract, self.line_info, self.checked
        )

    def target_attr(self, module: ModuleOp | None = None) -> TargetAttr:
        """The `#gpuc.target` these options configure: the named target with
        its options, else `module`'s own target; with these settings. The one
        place options become the attribute every stage reads."""
        if self.target:
            target = make_target(self.target, **dict(self.target_options))
        else:
            assert module is not None
            target = configured_target(module)
        return target.attr(self.settings)


GENERAL_OPTIONS = tuple(
    f.name for f in fields(CompileOptions) if f.name not in ("target", "target_options")
)


def make_options(target: str | None, options: Mapping[str, Any]) -> CompileOptions:
    """Split keyword options into general ones and the target's own. Without a
    target (None), the module's `#gpuc.target` decides, and only general
    options may be given."""
    if target is None:
        own: dict[str, Any] = {}
        unknown = sorted(set(options) - set(GENERAL_OPTIONS))
        if unknown:
            raise OptionError(
                f"option(s) {', '.join(unknown)} need a target: name it (e.g. "
                f"target='{DEFAULT_TARGET}'); general options: "
                + ", ".join(GENERAL_OPTIONS)
            )
        general = dict(options)
    else:
        try:
            target_cls = target_class(target)
        except UnknownTarget as e:
            raise OptionError(str(e)) from None
        own = target_options(target_cls, options)
        general = {k: v for k, v in options.items() if k not in own}
        unknown = sorted(set(general) - set(GENERAL_OPTIONS))
        if unknown:
            accepted = ", ".join([*GENERAL_OPTIONS, *target_cls.option_names()])
            raise OptionError(
                f"unknown option(s) {', '.join(unknown)} for target '{target}'; "
                f"accepted: {accepted}"
            )
    check_general_options(general)
    if "generators" in general:
        general["generators"] = tuple(sorted(dict(general["generators"]).items()))
    for key in ("exports", "libraries"):
        if key in general:
            value = general[key]
            general[key] = (
                (value,) if isinstance(value, str | os.PathLike) else tuple(value)
            )
            general[key] = tuple(str(v) for v in general[key])
    return CompileOptions(
        target=target or "", target_options=tuple(sorted(own.items())), **general
    )


def check_general_options(general: Mapping[str, Any]) -> None:
    """Raise an OptionError for a general option of the wrong type or range
    (before it reaches llvmlite, which asserts, or `tuple()`, which raises a
    TypeError that names no option)."""
    level = general.get("opt_level", 3)
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 3:
        raise OptionError(f"opt_level must be 0, 1, 2 or 3, got {level!r}")
    for key in ("fp_contract", "validate", "line_info", "checked"):
        if not isinstance(general.get(key, False), bool):
            raise OptionError(f"{key} must be True or False, got {general[key]!r}")
    if not isinstance(general.get("gpu_module", ""), str):
        raise OptionError(
            f"gpu_module must be a gpu.module's name, got {general['gpu_module']!r}"
        )
    for key in ("exports", "libraries"):
        value = general.get(key, ())
        items = (value,) if isinstance(value, str | os.PathLike) else value
        if not isinstance(items, Iterable) or not all(
            isinstance(v, str | os.PathLike) for v in items
        ):
            raise OptionError(
                f"{key} must be a name or a sequence of names, got {value!r}"
            )
    generators = general.get("generators", {})
    if generators:
        from gpuc.generators import Generator

        if not isinstance(generators, Mapping) or not all(
            isinstance(k, str) and isinstance(g, Generator)
            for k, g in generators.items()
        ):
            raise OptionError(
                "generators must map names to gpuc.generators.Generator "
                f"instances, got {generators!r}"
            )


@dataclass
class Compilation:
    """What the stages produce, filled in as they run."""

    options: CompileOptions
    configured: TargetAttr
    """The module's `#gpuc.target` (`CompileOptions.target_attr`)."""
    target: Target
    """The target `configured` names (`target_of_attr`)."""
    source: str | os.PathLike[str] | ModuleOp
    module: ModuleOp | None = None
    translated: str | None = None
    """The translated LLVM IR text, before linking (printed once: link parses
    it, dumps and the compile cache keep it)."""
    llvm_module: llvm.ModuleRef | None = None
    machine: llvm.TargetMachine | None = None
    llvm_ir: str | None = None
    """Optimized LLVM IR text, taken before code generation changes the module."""
    artefact: bytes | str | None = None
    notes: list[str] = field(default_factory=list)
    after_pass: AfterPass | None = None
    """Called after each pass of the dialect stage."""
    native: ModuleOp | None = None
    """The module as parse read it from text, when the reader knew it holds
    nothing for the import (`parse_module_natively`): the dialect stage then
    leaves the import's passes out without walking the module for foreign
    ops. Trusted only while it is still `module`; a ModuleOp given by the
    caller never gets it, and an `after_stage` callback that changes the
    module after parse must clear it."""


def stage_parse(c: Compilation) -> None:
    c.module, native = read_module(c.source, c.notes)
    c.native = c.module if native else None


def stage_dialect(c: Compilation) -> None:
    from gpuc.context import make_context
    from gpuc.transforms.gpuc_pipeline import GpucPipeline, run_passes

    assert c.module is not None
    pipeline = GpucPipeline(
        configured=c.configured,
        exports=c.options.exports,
        libraries=c.options.libraries,
        generators=c.options.generators,
        upgrade_foreign=False,  # `load_module` did, as it read the module
        gpu_module=c.options.gpu_module,
    )
    native = c.native is c.module
    passes = pipeline.passes(c.module, foreign=False if native else None)
    run_passes(make_context(), c.module, passes, c.after_pass)


def stage_translate(c: Compilation) -> None:
    from gpuc.lowering.context import translate_module
    from gpuc.lowering.llvm import initialize
    from gpuc.lowering.printing import printed

    assert c.module is not None
    initialize(c.target.llvm_options())
    c.machine = c.target.target_machine(configured_settings(c.module).opt_level)
    translated = translate_module(c.module, c.target)
    translated.data_layout = str(c.machine.target_data)
    c.translated = printed(translated)


def stage_link(c: Compilation) -> None:
    from gpuc.lowering.llvm import parse

    assert c.translated is not None
    c.llvm_module = parse(c.translated)
    c.target.link(c.llvm_module)


def stage_optimize(c: Compilation) -> None:
    from gpuc.lowering.llvm import optimize

    assert c.module is not None
    assert c.llvm_module is not None and c.machine is not None
    optimize(c.llvm_module, c.machine, configured_settings(c.module).opt_level)
    c.llvm_ir = str(c.llvm_module)


def stage_emit(c: Compilation) -> None:
    assert c.llvm_module is not None and c.machine is not None
    c.artefact = c.target.emit(c.llvm_module, c.machine)


def stage_validate(c: Compilation) -> None:
    assert c.artefact is not None
    if c.options.validate:
        c.target.validate(c.artefact)


STAGE_FUNCTIONS: dict[str, Callable[[Compilation], None]] = {
    "parse": stage_parse,
    "dialect": stage_dialect,
    "translate": stage_translate,
    "link": stage_link,
    "optimize": stage_optimize,
    "emit": stage_emit,
    "validate": stage_validate,
}


def run(
    source: str | os.PathLike[str] | ModuleOp,
    options: CompileOptions,
    *,
    start: str = "parse",
    stop_after: str = "validate",
    after_stage: Callable[[str, Compilation], None] | None = None,
    after_pass: AfterPass | None = None,
) -> Compilation:
    """Run the stages from `start` up to and including `stop_after`. Starting
    after `parse`, `source` is a module the earlier stages already produced
    (starting at `translate`, it first gets what lowering for the target
    still needs: `lowering_passes`). `after_stage` is called after each stage,
    `after_pass` after each pass of the dialect stage.

    The cycle collector is paused meanwhile: a compile makes millions of
    short-lived IR objects and few cycles, and the collector's passes over
    them were a sixth of a 1,000-kernel compile (bench/scale.py)."""
    with collector_paused():
        return _run(source, options, start, stop_after, after_stage, after_pass)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused meanwhile (as it was after): building
    or rewriting IR makes millions of short-lived objects and few cycles."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _run(
    source: str | os.PathLike[str] | ModuleOp,
    options: CompileOptions,
    start: str,
    stop_after: str,
    after_stage: Callable[[str, Compilation], None] | None,
    after_pass: AfterPass | None,
) -> Compilation:
    module: ModuleOp | None = None
    native = False
    notes: list[str] = []
    if start != "parse":
        from gpuc.dialects.call_graph import invalidate_call_graph

        assert isinstance(source, ModuleOp)
        module = source
        invalidate_call_graph(module)  # it may have changed since it was asked
    elif not options.target:
        # its #gpuc.target is the configuration
        module, native = read_module(source, notes)
    configured = options.target_attr(module)
    target = target_of_attr(configured)
    if not options.target:
        options = replace(
            options,
            target=target.name,
            target_options=tuple(sorted(target.options().items())),
        )
    if options.checked and not target.checked_mode:
        raise OptionError(
            f"target '{target.name}' has no checked mode; checked mode is for "
            "the native target"
        )
    c = Compilation(
        options, configured, target, source, notes=notes, after_pass=after_pass
    )
    stages = STAGES[STAGES.index(start) : STAGES.index(stop_after) + 1]
    if start == "parse" and module is not None:
        c.module = module
        c.native = module if native else None
        if after_stage is not None:
            after_stage("parse", c)
        stages = stages[1:]
    elif start != "parse":
        assert module is not None
        c.module = module
        if start == "translate":
            from gpuc.context import make_context
            from gpuc.transforms.gpuc_pipeline import lowering_passes, run_passes

            run_passes(make_context(), module, lowering_passes(module, configured))
    for name in stages:
        STAGE_FUNCTIONS[name](c)
        if after_stage is not None:
            after_stage(name, c)
    return c


def kernel_infos(module: ModuleOp) -> dict[str, KernelInfo]:
    """The finalized kernels, from their records (in module order)."""
    from gpuc.kernel_params import memref_shapes, read_only_params, summed_params

    infos: dict[str, KernelInfo] = {}
    for op in module.ops:
        if not isinstance(op, FuncOp):
            continue
        record = op.attributes.get(FINALIZED_ATTR)
        if not isinstance(record, FinalizedAttr):
            continue
        name = op.sym_name.data
        names = tuple(
            arg.name_hint for arg in (op.body.blocks[0].args if op.body.blocks else ())
        )
        infos[name] = KernelInfo(
            name,
            record.symbol.data,
            op.function_type.inputs.data,
            names or (None,) * len(op.function_type.inputs.data),
            record.uses_barrier,
            record.shared_bytes,
            record.block_size,
            read_only_params(op),
            summed_params(op),
            memref_shapes(op),
            record.assert_messages,
            record.reaches_print,
            record.uses_fragments,
        )
    return infos


def load_module(
    source: str | os.PathLike[str] | ModuleOp, notes: list[str] | None = None
) -> ModuleOp:
    """Parse and verify MLIR from a file or text; a ModuleOp is verified as is.
    What the reader skipped (host code around gpu.modules) is added to `notes`.

    Text from any tool is read as `gpuc-opt` reads it, and a module is upgraded
    the same way first (`gpuc.reader.text`), so MLIR 16's output
    verifies.
    """
    return read_module(source, notes)[0]


def read_module(
    source: str | os.PathLike[str] | ModuleOp, notes: list[str] | None = None
) -> tuple[ModuleOp, bool]:
    """As `load_module`, with whether the module is known, as it was read, to
    hold nothing for the import (`parse_module_natively`; never for a
    ModuleOp, which its caller may change)."""
    from gpuc.diagnostics import read_source, verify_located
    from gpuc.reader.text import parse_module_natively, upgrade_foreign_ops

    if isinstance(source, ModuleOp):
        with collector_paused():
            upgrade_foreign_ops(source)
            verify_located(source)
        return source, False
    if not isinstance(source, str | os.PathLike):
        raise OptionError(
            "the source to compile must be a path (str or os.PathLike), MLIR "
            f"text (str) or an xDSL ModuleOp, got {type(source).__name__}"
            + (": decode the bytes to text first" if isinstance(source, bytes) else "")
        )
    if isinstance(source, os.PathLike) or (
        "\n" not in source and (source.endswith(".mlir") or os.path.exists(source))
    ):
        text, name = read_source(source), str(source)
    else:
        text, name = source, "<source>"
    from gpuc.context import make_context

    with collector_paused():
        module, native = parse_module_natively(text, make_context(), name, notes=notes)
        verify_located(module)
    return module, native
