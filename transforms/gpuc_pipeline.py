"""`gpuc-pipeline`: the whole dialect-level pipeline as one pass (import,
resolve-deferred, classify-entrypoints, privatize, inline, symbol-dce,
finalize-kernels, verify-target), the same as `gpuc.pipeline` from Python.

Options: `target` (empty: the module's `gpuc.target`, else ptx), `exports`
(symbols kept public besides the kernels), `libraries` (files defining job
sources; quote paths: `libraries="lib/a.mlir","b.mlir"`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.pipeline import run_dialect_pipeline


@dataclass(frozen=True)
class GpucPipeline(ModulePass):
    """Run gpuc's dialect-level pipeline for `target`."""

    name = "gpuc-pipeline"

    target: str = ""
    exports: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_dialect_pipeline(
            op,
            target=self.target or None,
            exports=self.exports,
            libraries=self.libraries,
            ctx=ctx,
        )
