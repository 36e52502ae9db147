"""`attach-target`: set the module's configured target, `#gpuc.target<...>`,
once, before any pass that works for a target (as MLIR's `nvvm-attach-target`).

`target` is a target spec as `-t` takes it: `ptx`, `ptx{sm=80 ptx_isa=78}`,
`spirv`. An empty spec keeps the module's own `#gpuc.target`, or attaches the
default target if it has none, so every later stage reads one configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.dialects.attrs import TARGET_ATTR
from gpuc.targets import configured_target, parse_target_spec


@dataclass(frozen=True)
class AttachTarget(ModulePass):
    """Record `target` (a spec such as `ptx{sm=80}`) as the module's target."""

    name = "attach-target"

    target: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        chosen = parse_target_spec(self.target) if self.target else None
        op.attributes[TARGET_ATTR] = (chosen or configured_target(op)).attr()
