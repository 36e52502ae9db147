"""`expand-affine`: expand the `affine.apply`, `affine.min` and `affine.max`
ops loop tiling and MLIR's loop-to-GPU passes leave on index values into
`arith` (gpuc/dialects/foreign/affine.py says how each map is expanded), so
that loop bounds and launch sizes are plain arithmetic for the import's
later passes. xDSL's `lower-affine` leaves these ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class ExpandAffine(ModulePass):
    """Expand affine.apply, affine.min and affine.max into arith."""

    name = "expand-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gpuc.dialects.foreign.affine import expand_affine_ops

        expand_affine_ops(op)
