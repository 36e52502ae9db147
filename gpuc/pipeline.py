"""The dialect-level pipeline from Python: DESIGN.md's stages, in order, each
one call. `gpuc-pipeline` (the pass) and `gpuc.driver` run this function.

    run_dialect_pipeline(module, target="spirv", exports=["helper"],
                         libraries=["libdevice.mlir"])

`target`: None means the module's `gpuc.target`, else ptx; the target used is
recorded on the module as `gpuc.target`. `exports`: symbols to keep public
besides the kernels. `libraries`: modules or files that define job sources.
`generators`: generators by name, in addition to (and ahead of) the shipped
and plugin ones. The module is changed in place and returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from gpuc.context import make_context
from gpuc.diagnostics import verify_located
from gpuc.dialects.attrs import TARGET_ATTR
from gpuc.generators import Generator, Generators
from gpuc.libraries import LibrarySource, load_libraries
from gpuc.registry import PASSES, available, lazy
from gpuc.targets import get_target
from gpuc.transforms.classify_entrypoints import compute_entrypoints, write_entrypoints
from gpuc.transforms.finalize_kernels import finalize_kernels, target_name
from gpuc.transforms.inline import inline_module
from gpuc.transforms.privatize import privatize
from gpuc.transforms.resolve_deferred import resolve_deferred
from gpuc.transforms.symbol_dce import symbol_dce


def import_foreign(module: ModuleOp, ctx: Context) -> None:
    """The `import` stage, once its pass exists (foreign dialects into gpuc)."""
    path = available(PASSES).get("import")
    if path is not None:
        pass_class: type[ModulePass] = lazy(path)()
        pass_class().apply(ctx, module)


AfterPass = Callable[[str, ModuleOp], None]
"""Called after each stage with its pass name and the module (as xDSL's
PassPipeline callback is between passes): `--print-ir-after-all`, timing."""


def run_dialect_pipeline(
    module: ModuleOp,
    *,
    target: str | None = None,
    exports: Sequence[str] = (),
    libraries: Sequence[LibrarySource] = (),
    generators: Mapping[str, Generator] | None = None,
    ctx: Context | None = None,
    after_pass: AfterPass | None = None,
) -> ModuleOp:
    """Run every dialect-level stage on `module`, in place; return it."""
    ctx = ctx or make_context()
    chosen = target_name(module, target or "")
    module.attributes[TARGET_ATTR] = StringAttr(chosen)
    stages: list[tuple[str, Callable[[], object]]] = [
        ("import", lambda: import_foreign(module, ctx)),
        (
            "resolve-deferred",
            lambda: resolve_deferred(
                module, load_libraries(libraries, ctx), Generators(generators)
            ),
        ),
        (
            "classify-entrypoints",
            lambda: write_entrypoints(module, compute_entrypoints(module, exports)),
        ),
        ("privatize", lambda: privatize(module)),
        ("inline", lambda: inline_module(module)),
        ("symbol-dce", lambda: symbol_dce(module)),
        ("finalize-kernels", lambda: finalize_kernels(module, chosen)),
        ("verify-target", lambda: get_target(chosen).verify_module(module)),
    ]
    for name, run_stage in stages:
        run_stage()
        if after_pass is not None:
            after_pass(name, module)
    verify_located(module)
    return module
