"""`gpuc-pipeline`: the whole dialect-level pipeline as one pass. Its stages
are the list `passes()` returns, each an ordinary pass, run in order by one
runner (`run_passes`, xDSL's `PassPipeline` with an after-pass callback for
dumps and timing); `gpuc.driver` runs the same list.

Options: `target` (a spec such as `ptx{sm=80}`; empty: the module's
`#gpuc.target`, else the default target), `exports` (symbols kept public
besides the kernels), `libraries` (files defining job sources; quote paths:
`libraries="lib/a.mlir","b.mlir"`), `gpu-module` (the one gpu.module of a
foreign module to compile). From Python, `generators` adds job generators by
name, ahead of the installed ones, and `configured` is the whole
`#gpuc.target` (target and compile settings) to attach.

`import` is its own passes in the list (`ImportForeign.passes()`), left out
for a module that has nothing to import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from gpuc.diagnostics import OpError, verify_located
from gpuc.dialects.attrs import CompileSettings, TargetAttr
from gpuc.dialects.call_graph import pass_ran
from gpuc.generators import Generator
from gpuc.libraries import LibrarySource
from gpuc.transforms.attach_target import AttachTarget
from gpuc.transforms.classify_entrypoints import ClassifyEntrypoints
from gpuc.transforms.finalize_kernels import FinalizeKernels
from gpuc.transforms.import_foreign import ImportForeign, import_needed
from gpuc.transforms.inline import Inline
from gpuc.transforms.lift_cf import LiftCf
from gpuc.transforms.privatize import Privatize
from gpuc.transforms.resolve_deferred import ResolveDeferred
from gpuc.transforms.symbol_dce import SymbolDCE
from gpuc.transforms.verify_target import VerifyTarget

AfterPass = Callable[[str, ModuleOp], None]
"""Called after each pass with its name and the module: `--print-ir-after-all`,
timing."""


def run_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    after_pass: AfterPass | None = None,
) -> None:
    """Run `passes` on `module` in order, then verify it (located diagnostics).
    The call graph is recomputed after a pass that may have changed it."""

    def between(prev: ModulePass | None, op: ModuleOp, _next: object) -> None:
        if prev is not None:
            pass_ran(prev, op)
            if after_pass is not None:
                after_pass(prev.name, op)

    PassPipeline(tuple(passes), between).apply(ctx, module)
    verify_located(module)


def lowering_passes(module: ModuleOp, configured: TargetAttr) -> list[ModulePass]:
    """What `module` gets before it is lowered as `configured` says by a `-t`
    output (which lowers modules as it finds them): the attribute attached
    (the settings of this lowering), an entrypoint set if it has none, cf
    branches around barriers lifted (lift-cf, which the native target needs),
    and always the target's own kernel records and checks (finalize-kernels,
    verify-target), so that no record another pass or a hand left behind is
    lowered. A module configured for another target is a diagnostic."""
    from gpuc.dialects.attrs import ENTRYPOINTS_ATTR, TARGET_ATTR
    from gpuc.targets import configured_target, target_of_attr

    target = target_of_attr(configured)
    if TARGET_ATTR in module.attributes:
        own = configured_target(module)
        if own != target:
            raise OpError(
                module,
                f"the module is configured for {own.describe()} "
                f"('{TARGET_ATTR}') but is lowered for {target.describe()}; "
                f"lower it for its own target (-t '{own.describe()}')",
            )
    passes: list[ModulePass] = [AttachTarget(configured=configured)]
    if ENTRYPOINTS_ATTR not in module.attributes:
        passes.append(ClassifyEntrypoints())
    return [
        *passes,
        LiftCf(),
        FinalizeKernels(),
        VerifyTarget(),
        *target.dialect_passes(),
    ]


@dataclass(frozen=True)
class GpucPipeline(ModulePass):
    """Run gpuc's dialect-level pipeline for `target`."""

    name = "gpuc-pipeline"

    target: str = ""
    exports: tuple[str, ...] = ()
    libraries: tuple[LibrarySource, ...] = ()
    generators: tuple[tuple[str, Generator], ...] = ()
    upgrade_foreign: bool = True
    """Whether `import` upgrades MLIR's older spellings (off where the reader
    already did: `gpuc.driver`)."""
    gpu_module: str = ""
    """Compile only this gpu.module of a foreign module (empty: all of them)."""
    configured: TargetAttr | None = None
    """From Python: the module's whole `#gpuc.target`, target and settings,
    as `CompileOptions` built it (`target` is then unused)."""

    def passes(
        self, module: ModuleOp | None = None, *, foreign: bool | None = None
    ) -> tuple[ModulePass, ...]:
        """The stages, in order: without the import's passes for a `module`
        that has nothing to import (`foreign` False: the caller knows it has
        no foreign ops, as the driver does of a module its reader just read;
        None: a walk decides), the target's own passes last (the target
        is `configured`'s, else `target`, else `module`'s configured one, else
        the default). `inline` also inlines single-use helpers where the
        settings (`configured`'s, else `module`'s) ask LLVM to optimize."""
        from gpuc.targets import (
            DEFAULT_TARGET,
            configured_attr,
            configured_target,
            make_target,
            parse_target_spec,
            target_of_attr,
        )

        if self.configured is not None:
            target = target_of_attr(self.configured)
        elif self.target:
            target = parse_target_spec(self.target)
        elif module is not None:
            target = configured_target(module)
        else:
            target = make_target(DEFAULT_TARGET)
        if self.configured is not None:
            settings = self.configured.settings
        elif module is not None:
            settings = configured_attr(module).settings
        else:
            settings = CompileSettings()
        importing = ImportForeign(self.upgrade_foreign, self.gpu_module)
        imports = (
            importing.passes()
            if module is None or import_needed(module, self.gpu_module, foreign)
            else ()
        )
        return (
            AttachTarget(self.target, configured=self.configured),
            *imports,
            ResolveDeferred(
                self.libraries, self.generators, move_sources=True, exports=self.exports
            ),
            ClassifyEntrypoints(self.exports),
            Privatize(),
            Inline(single_use=settings.opt_level >= 1),
            SymbolDCE(),
            LiftCf(),
            FinalizeKernels(),
            VerifyTarget(),
            *target.dialect_passes(),
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_passes(ctx, op, self.passes(op))
