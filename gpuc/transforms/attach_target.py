"""`attach-target`: set the module's configured target, `#gpuc.target<...>`,
once, before any pass that works for a target (as MLIR's `nvvm-attach-target`).

`target` is a target spec as `-t` takes it: `ptx`, `ptx{sm=80 ptx_isa=78}`,
`spirv`. An empty spec keeps the module's own `#gpuc.target`, or attaches the
default target if it has none, so every later stage reads one configuration.
The target is set once: a module configured for another target is a
diagnostic, never silently re-targeted (its kernels may already carry that
target's finalization records).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import TARGET_ATTR
from gpuc.targets import configured_target, parse_target_spec


@dataclass(frozen=True)
class AttachTarget(ModulePass):
    """Record `target` (a spec such as `ptx{sm=80}`) as the module's target."""

    name = "attach-target"
    preserves_call_graph: ClassVar[bool] = True
    """It changes no call, function or op (`gpuc.dialects.call_graph`)."""

    target: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        own = configured_target(op)  # the module's, else the default
        if not self.target:
            op.attributes[TARGET_ATTR] = own.attr()
            return
        chosen = parse_target_spec(self.target)
        if TARGET_ATTR in op.attributes and own != chosen:
            raise OpError(
                op,
                f"the module is configured for {own.describe()} ('{TARGET_ATTR}') "
                f"and cannot be compiled for {chosen.describe()}; compile it for "
                "its own target (give no target, or that one), or remove the "
                "attribute",
            )
        op.attributes[TARGET_ATTR] = chosen.attr()
