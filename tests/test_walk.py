"""`ops_of_classes` (gpuc/dialects/walk.py) finds what `Operation.walk` and
`isinstance` find, in the same order, for several class groups in one walk."""

from __future__ import annotations

import sys
from pathlib import Path

from xdsl.dialects import arith, scf
from xdsl.ir import Operation

from gpuc.dialects.deferred import DEFERRED_OPS, deferred_ops
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.dialects.walk import ops_of_class, ops_of_classes
from gpuc.driver import load_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from scale import gpuc_kernel, module_text  # noqa: E402


def test_it_finds_what_walk_and_isinstance_find_in_walk_order() -> None:
    module = load_module(module_text(3, gpuc_kernel))
    groups: tuple[tuple[type[Operation], ...], ...] = (
        (FuncOp,),
        (arith.AddfOp, arith.MulfOp),
        (scf.IfOp, scf.YieldOp),
        DEFERRED_OPS,
        (Operation,),
    )
    found = ops_of_classes(module, *groups)
    for group, ops in zip(groups, found, strict=True):
        assert ops == [op for op in module.walk() if isinstance(op, group)]
    assert found[-1][0] is module  # the root is included
    assert ops_of_class(module, CallOp) == [
        op for op in module.walk() if isinstance(op, CallOp)
    ]
    assert len(deferred_ops(module)) == 6
