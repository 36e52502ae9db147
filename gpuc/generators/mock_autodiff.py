"""`mock_autodiff`: wraps a function the way an autodiff tool wraps the function
it differentiates, like GPUCompiler.jl's mock Enzyme.

For `#gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}>`
on source `@f : (T) -> R` it makes

    gpuc.func @wrapper(%a: T) -> R helper always_inline {
      %r = gpuc.deferred_call @f(%a) #gpuc.job<helper> : (T) -> R
      gpuc.return %r : R
    }

The wrapper calls `@f` as a job of its own, so the resolver materializes it
like any deferred call. `always_inline` (opt-in, as Enzyme marks its
wrappers) makes the wrapper always-inline; without it the wrapper stays a
separate helper. It declines when no definition of the source exists.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Block, Region

from gpuc.dialects.attrs import InlineHint, JobAttr, Role
from gpuc.dialects.deferred import DeferredCallOp
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.generators import Generator, GeneratorRequest, flag_value

PARAMS = ("always_inline",)


class MockAutodiff(Generator):
    """Wrap the source in a helper that calls it; `always_inline` is opt-in."""

    name: ClassVar[str] = "mock_autodiff"

    def generate(self, request: GeneratorRequest) -> FuncOp | None:
        if request.source_func is None:
            return None
        unknown = sorted(set(request.params) - set(PARAMS))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {', '.join(unknown)}; mock_autodiff takes "
                f"{', '.join(PARAMS)}"
            )
        always_inline = False
        if "always_inline" in request.params:
            flag = flag_value(request.params["always_inline"])
            if flag is None:
                raise ValueError("'always_inline' must be true, false or unit")
            always_inline = flag
        signature = request.signature
        body = Block(arg_types=signature.inputs.data)
        source_entry = request.source_func.body.blocks.first
        if source_entry is not None:
            for arg, source_arg in zip(body.args, source_entry.args, strict=False):
                arg.name_hint = source_arg.name_hint
        call = DeferredCallOp(
            request.source, JobAttr(Role.HELPER), body.args, signature.outputs.data
        )
        body.add_ops([call, ReturnOp(*call.res)])
        return FuncOp(
            f"{request.source}.mock_autodiff",
            signature,
            Role.HELPER,
            Region(body),
            inline=InlineHint.ALWAYS_INLINE if always_inline else None,
        )
