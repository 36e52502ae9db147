"""`replace_uses` leaves the IR as xDSL's `replace_all_uses_with` does: the
operands, the order of the new value's uses and the carried name hint."""

from __future__ import annotations

from xdsl.dialects import arith, test
from xdsl.dialects.builtin import i32
from xdsl.ir import Operation, SSAValue

from gpuc.dialects.uses import replace_uses


def _ir() -> tuple[SSAValue, SSAValue, list[Operation]]:
    old = test.TestOp(result_types=[i32]).results[0]
    new = test.TestOp(result_types=[i32]).results[0]
    old.name_hint = "x_1_2"  # the setter strips a suffix again on the copy
    users: list[Operation] = [
        arith.AddiOp(old, old),
        arith.AddiOp(new, old),
        test.TestOp(operands=[old, new, old]),
    ]
    return old, new, users


def _state(old: SSAValue, new: SSAValue, users: list[Operation]) -> object:
    """What the replacement decides, by position, not object identity."""
    names = {id(old): "old", id(new): "new"}
    return (
        [[names[id(v)] for v in op.operands] for op in users],
        [(users.index(u.operation), u.index) for u in new.uses],
        (old.name_hint, new.name_hint),
        old.first_use,
    )


def test_same_as_xdsl() -> None:
    ours = _ir()
    replace_uses(ours[0], ours[1])
    theirs = _ir()
    theirs[0].replace_all_uses_with(theirs[1])
    assert _state(*ours) == _state(*theirs)
    assert _state(*ours)[2] == ("x_1", "x")


def test_keeps_new_name_and_self() -> None:
    old, new, users = _ir()
    new.name_hint = "y"
    replace_uses(old, new)
    assert new.name_hint == "y"
    assert all(v is new for op in users for v in op.operands)
    replace_uses(new, new)
    assert len(list(new.uses)) == 7
    for op in users:  # every use back-links to its operand slot
        for i, use in enumerate(op._operand_uses):  # noqa: SLF001
            assert use.operation is op and use.index == i
