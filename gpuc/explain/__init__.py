"""`explain`: why each symbol of a compile is there, or gone (docs/explain.md).

    from gpuc.explain import explain
    e = explain("examples/deferred_inline.mlir", target="ptx")
    print(e.text())               # or e.json(), e.dot(), e["poly.helper"]

The passes write the record while they run (`gpuc.explain.record`), only
when a compile is explained; `gpuc explain FILE [SYMBOL...]` prints it.
This package imports the compiler only when `explain` is called, since the
passes import its recorder.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.explain.report import Explanation


def explain(
    source: str | os.PathLike[str] | ModuleOp,
    target: str | None = None,
    **options: Any,
) -> Explanation:
    """Compile `source` as `gpuc.compile` does (same targets and options;
    Python kernels too, whose deferred ops then name their `.py` lines) with
    the passes recording, and explain every function of the input and every
    materialized job. `Explanation.result` is the compile's `CompileResult`."""
    from gpuc.api import python_kernels
    from gpuc.compiler import compile_module
    from gpuc.explain.record import Recorder, recording
    from gpuc.explain.report import Explanation

    if (kernels := python_kernels(source)) is not None:
        from gpuc.python.module import build_module

        constexprs = options.pop("constexprs", None)
        if constexprs is not None and len(kernels) == 1:
            constexprs = {kernels[0].name: constexprs}
        source, _ = build_module(kernels, constexprs)

    recorder = Recorder()
    with recording(recorder):
        result = compile_module(source, target, **options)
    explanation = Explanation.build(
        recorder, result.target, result.module, result.artefact
    )
    explanation.result = result
    return explanation
