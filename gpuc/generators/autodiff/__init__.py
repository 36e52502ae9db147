"""`autodiff`: forward and reverse derivatives of gpuc functions, made as jobs.

    #gpuc.job<helper, generator = "autodiff" {mode = "forward"}>
    #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}>

The derivative follows Enzyme's conventions (conventions.py,
docs/autodiff.md). The derivative of a function that calls helpers calls the
derivative of each helper, asked for as a deferred job of its own, so chains
of helpers and recursion are differentiated to any depth through the job
table. What cannot be differentiated is a diagnostic at the op, never a
wrong (or zero) derivative.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr

from gpuc.dialects.attrs import InlineHint, InlineHintAttr
from gpuc.dialects.functions import FuncOp
from gpuc.generators import Generator, GeneratorRequest, flag_value
from gpuc.generators.autodiff.conventions import forward_type, reverse_type
from gpuc.generators.autodiff.rules import is_float

MODES = ("forward", "reverse")
FLAGS = ("always_inline", "seed", "primal")
PARAMS = ("mode", *FLAGS)


class Autodiff(Generator):
    """Forward (`mode = "forward"`) or reverse (`mode = "reverse"`) derivatives."""

    name: ClassVar[str] = "autodiff"

    def generate(self, request: GeneratorRequest) -> FuncOp | None:
        if request.job.generator_name != self.name or request.source_func is None:
            return None  # only jobs that name it, on a function that exists
        params = request.params
        unknown = sorted(set(params) - set(PARAMS))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {', '.join(unknown)}; autodiff takes mode "
                f'("forward" or "reverse"), {", ".join(FLAGS)}'
            )
        mode_attr = params.get("mode")
        if not isinstance(mode_attr, StringAttr) or mode_attr.data not in MODES:
            given = "none" if mode_attr is None else str(mode_attr)
            raise ValueError(
                f'\'mode\' must be "forward" or "reverse" (given: {given}); e.g. '
                '#gpuc.job<helper, generator = "autodiff" {mode = "reverse"}>'
            )
        mode = mode_attr.data
        flags: dict[str, bool] = {}
        for key in FLAGS:
            flags[key] = False
            if key in params:
                flag = flag_value(params[key])
                if flag is None:
                    raise ValueError(f"'{key}' must be true, false or unit")
                flags[key] = flag
        if flags["seed"] and mode != "reverse":
            raise ValueError("'seed' belongs to reverse mode")
        if flags["primal"] and mode != "forward":
            raise ValueError("'primal' belongs to forward mode")
        source = request.source_func
        source_type = source.function_type
        floats = [t for t in source_type.outputs.data if is_float(t)]
        if mode == "reverse" and len(floats) > 1 and not flags["seed"]:
            raise ValueError(
                f"@{request.source} has {len(floats)} floating-point results; reverse "
                "mode needs one adjoint seed for each: add 'seed = true'"
            )
        expected = (
            forward_type(source_type, flags["primal"])
            if mode == "forward"
            else reverse_type(source_type, flags["seed"])
        )
        if request.signature != expected:
            raise ValueError(
                f"the {mode} derivative of @{request.source} {source_type} has the "
                f"type {expected}, but the deferred op asks for {request.signature} "
                "(docs/autodiff.md: the argument conventions)"
            )
        name = f"{request.source}.autodiff_{mode}"
        if mode == "forward":
            from gpuc.generators.autodiff.forward import Forward

            func = Forward(source, flags["primal"], flags["always_inline"]).build(name)
        else:
            from gpuc.generators.autodiff.reverse import Reverse

            func = Reverse(source, flags["seed"], flags["always_inline"]).build(name)
        # always_inline reaches the callees' derivative jobs too, but never
        # overrides a function's own no_inline.
        hint = source.inline_hint
        if flags["always_inline"] and hint != InlineHint.NO_INLINE:
            hint = InlineHint.ALWAYS_INLINE
        func.inline = InlineHintAttr(hint) if hint is not None else None
        return func
