"""Replacing a value's uses over xDSL's links: `SSAValue.replace_all_uses_with`
goes through the `uses` iterator and the operand view's `__setitem__` (a
remove and an add per use, each a few calls), which the inliner pays for every
argument and result of every inlined call (20,000 at 1,000 kernels)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue, SSAValues


def replace_uses(old: SSAValue, new: SSAValue) -> None:
    """`old.replace_all_uses_with(new)`, with the same result: each use of
    `old` moved to the front of `new`'s use list in `old`'s order (so `new`'s
    uses come out in xDSL's order), and `old`'s name hint carried over when
    `new` has none (through the setter, as xDSL does)."""
    if new is old:
        return
    use = old.first_use
    old.first_use = None
    while use is not None:
        after = use._next_use  # noqa: SLF001
        op = use._operation  # noqa: SLF001
        index = use._index  # noqa: SLF001
        # Through a list: slicing SSAValues makes a new SSAValues per slice.
        operands = list(op._operands)  # noqa: SLF001
        operands[index] = new
        op._operands = SSAValues(operands)  # noqa: SLF001
        head = new.first_use
        use._prev_use = None  # noqa: SLF001
        use._next_use = head  # noqa: SLF001
        if head is not None:
            head._prev_use = use  # noqa: SLF001
        new.first_use = use
        use = after
    if new.name_hint is None:
        new.name_hint = old.name_hint


def erase_unused(op: Operation) -> None:
    """`op.parent_block().erase_op(op)` for an op of no regions or successors
    whose results have no uses (a call whose results were replaced, a
    `gpuc.return` whose values were): unlinked from its block and from its
    operands' use lists, without xDSL's erasure of each result into an
    `ErasedSSAValue` standing for uses there are none of."""
    assert not op.regions and not op._successors  # noqa: SLF001
    assert all(result.first_use is None for result in op.results)
    block = op.parent
    assert block is not None
    prev, after = op._prev_op, op._next_op  # noqa: SLF001
    if prev is None:
        block._first_op = after  # noqa: SLF001
    else:
        prev._next_op = after  # noqa: SLF001
    if after is None:
        block._last_op = prev  # noqa: SLF001
    else:
        after._prev_op = prev  # noqa: SLF001
    op._prev_op = op._next_op = op.parent = None  # noqa: SLF001
    for operand, use in zip(op._operands, op._operand_uses, strict=True):  # noqa: SLF001
        operand.remove_use(use)
    op._operand_uses = ()  # noqa: SLF001
