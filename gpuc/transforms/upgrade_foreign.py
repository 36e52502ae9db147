"""`upgrade-foreign`: rewrite MLIR's older and newer spellings of foreign ops
(MLIR 16's `arith.maxf`, generic-form attributes that later versions made
properties, ...) into the forms xDSL's op definitions verify, in place.

gpuc's readers (gpuc-opt, `gpuc.compile`) upgrade as they parse, so the
driver's pipeline leaves this pass out; a module read by another tool
(xdsl-opt, whose parser is xDSL's) needs it, and `import` runs it first.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class UpgradeForeign(ModulePass):
    """Upgrade MLIR's spellings of foreign ops to the ones gpuc reads."""

    name = "upgrade-foreign"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gpuc.reader.text import upgrade_foreign_ops

        upgrade_foreign_ops(op)
