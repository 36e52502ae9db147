"""`unroll-vectors`: the vectors of several dimensions in device code become
1-D vectors and scalars (gpuc lowers 1-D vectors), each n-D value its rows,
each row split into pieces of 16, 8, 4 or 2 elements and a last scalar; the
vector ops on them (contract, transfers, transpose, shape_cast, ...) are
unrolled over the pieces (gpuc/transforms/foreign/vector_unroll.py). Nothing
changes when one cannot be: the conversion's checks report it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class UnrollVectors(ModulePass):
    """Unroll the n-D vectors of the device code into 1-D pieces."""

    name = "unroll-vectors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gpuc.transforms.foreign.vector_unroll import unroll_vectors

        unroll_vectors(op)
