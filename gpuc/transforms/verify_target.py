"""`verify-target`: what the target cannot express becomes a diagnostic here,
at the dialect level, instead of a crash in an LLVM back-end. The checks are
the configured target's (`Target.verify_module`, the module's `#gpuc.target`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.targets import configured_target


@dataclass(frozen=True)
class VerifyTarget(ModulePass):
    """Reject, with a diagnostic, what the module's target cannot express."""

    name = "verify-target"
    preserves_call_graph: ClassVar[bool] = True
    """It changes no call, function or op (`gpuc.dialects.call_graph`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        configured_target(op).verify_module(op)
