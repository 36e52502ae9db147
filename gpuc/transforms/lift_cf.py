"""`lift-cf`: unstructured control flow (`cf.br`, `cf.cond_br`, `cf.switch`)
into scf ops, in the regions that reach a barrier or a subgroup collective:
the native target splits kernels at those only in structured control flow
(gpuc/targets/native/work_groups.py), and frontends lowered through MLIR's
`convert-scf-to-cf` (or written with cf) give it branches.

The machinery (gpuc/transforms/structurize.py) lifts reducible regions; a
region it cannot lift (irreducible control flow, a loop that never ends)
is left as it is, and the native target's diagnostic names it. `everywhere` lifts every
multi-block region instead (tests, and `gpuc-opt` users who want scf).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gpuc.dialects.analysis import module_facts
from gpuc.dialects.call_graph import call_graph, invalidate_call_graph
from gpuc.dialects.functions import CallOp
from gpuc.dialects.index import BarrierOp
from gpuc.dialects.subgroup import COLLECTIVE_OPS


def _splits(op: Operation, barrier_helpers: set[str]) -> bool:
    return isinstance(op, (BarrierOp, *COLLECTIVE_OPS)) or (
        isinstance(op, CallOp) and op.callee.root_reference.data in barrier_helpers
    )


@dataclass(frozen=True)
class LiftCf(ModulePass):
    """Lift cf branches into scf ops where barriers need structured control
    flow (every multi-block region with `everywhere`)."""

    name = "lift-cf"
    preserves_call_graph: ClassVar[bool] = True
    """It finds the regions of several blocks in the call graph (which the
    finalization schedule, next, asks for too) and forgets the graph when it
    lifts one (`gpuc.dialects.call_graph`)."""

    everywhere: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        regions = call_graph(op).multi_block_regions()
        if not regions:
            return
        from gpuc.transforms.structurize import lift_region

        helpers = set() if self.everywhere else module_facts(op).barrier
        for region in regions:
            if self.everywhere or any(
                _splits(inner, helpers)
                for block in region.blocks
                for inner in block.walk()
            ):
                lift_region(region)
        invalidate_call_graph(op)
