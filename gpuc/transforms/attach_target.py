"""`attach-target`: set the module's configured target, `#gpuc.target<...>`,
once, before any pass that works for a target (as MLIR's `nvvm-attach-target`).

`target` is a target spec as `-t` takes it: `ptx`, `ptx{sm=80 ptx_isa=78}`,
`spirv`; `opt-level`, `fp-contract`, `line-info` and `checked` are the
compile's settings, which the attribute carries too (printed where they
differ from the defaults), so every later stage, the lowering included, reads
one configuration. An empty spec keeps the module's own target, or attaches
the default target if it has none; a setting not given keeps the module's
own (or the default). From Python, `configured` is the whole
attribute as `CompileOptions` built it (the driver's form; spec and settings
are then unused). The target is set once: a module configured for another
target is a diagnostic, never silently re-targeted (its kernels may already
carry that target's finalization records); its settings are this pass's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import TARGET_ATTR, CompileSettings, TargetAttr
from gpuc.targets import (
    configured_attr,
    configured_target,
    parse_target_spec,
    target_of_attr,
)


@dataclass(frozen=True)
class AttachTarget(ModulePass):
    """Record `target` (a spec such as `ptx{sm=80}`) and the compile settings
    as the module's `#gpuc.target`."""

    name = "attach-target"
    preserves_call_graph: ClassVar[bool] = True
    """It changes no call, function or op (`gpuc.dialects.call_graph`)."""

    target: str = ""
    opt_level: int | None = None
    fp_contract: bool | None = None
    line_info: bool | None = None
    checked: bool | None = None
    configured: TargetAttr | None = None

    def attribute(self, op: ModuleOp) -> TargetAttr:
        """The attribute to attach to `op`: the settings given here, the
        module's own (or the defaults) for those not given."""
        if self.configured is not None:
            return self.configured
        own = configured_attr(op).settings
        settings = CompileSettings(
            own.opt_level if self.opt_level is None else self.opt_level,
            own.fp_contract if self.fp_contract is None else self.fp_contract,
            own.line_info if self.line_info is None else self.line_info,
            own.checked if self.checked is None else self.checked,
        )
        target = (
            parse_target_spec(self.target) if self.target else configured_target(op)
        )
        return target.attr(settings)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:  # the attribute verifies its settings as it is made
            chosen = self.attribute(op)
        except VerifyException as e:
            raise OpError(op, str(e)) from None
        wanted = target_of_attr(chosen)
        if TARGET_ATTR in op.attributes:
            own = configured_target(op)
            if own != wanted:
                raise OpError(
                    op,
                    f"the module is configured for {own.describe()} "
                    f"('{TARGET_ATTR}') and cannot be compiled for "
                    f"{wanted.describe()}; compile it for its own target (give "
                    "no target, or that one), or remove the attribute",
                )
        if chosen.settings.checked and not wanted.checked_mode:
            raise OpError(
                op,
                f"target '{wanted.name}' has no checked mode; compile for a "
                "target that has one, or without checked",
            )
        op.attributes[TARGET_ATTR] = chosen
