"""`verify-target`: what the target cannot express becomes a diagnostic here,
at the dialect level, instead of a crash in an LLVM back-end. The checks are
the target's (`Target.verify_module`); the target is chosen as for
finalize-kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.targets import get_target
from gpuc.transforms.finalize_kernels import target_name


@dataclass(frozen=True)
class VerifyTarget(ModulePass):
    """Reject, with a diagnostic, what `target` cannot express."""

    name = "verify-target"

    target: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        get_target(target_name(op, self.target)).verify_module(op)
