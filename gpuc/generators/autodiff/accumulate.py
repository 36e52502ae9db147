"""Shadow updates at a loop-invariant address, accumulated in a register.

The adjoint of a load inside a loop adds to the shadow once per iteration;
where the address does not change from one iteration to the next (`x[i]`
read in every iteration of a loop over `k`), the sum of those adjoints can
be kept in a loop-carried value instead and added once after the loop: an
atomic add per loop, not per iteration. The update is moved out of the loop
when it sits directly in the loop's body, everything it uses but the added
value is defined outside the loop, and nothing else in the loop touches the
same shadow memory or waits at a barrier (another thread could then read
the shadow between the iterations). The adds are reassociated, as the
atomic adds of several threads are.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue

from gpuc.dialects.index import BarrierOp
from gpuc.dialects.memory import AtomicCmpXchgOp, AtomicRMWOp, LoadOp, StoreOp
from gpuc.generators.autodiff.memory import is_ancestor, root_of
from gpuc.generators.autodiff.rules import Emitter

ACCESSES = (LoadOp, StoreOp, AtomicRMWOp, AtomicCmpXchgOp)


class Accumulations:
    """The shadow updates the adjoint sweep emitted: op -> (the value it
    adds, the shadow pointer it adds to)."""

    def __init__(self) -> None:
        self.updates: dict[Operation, tuple[SSAValue, SSAValue]] = {}

    def add(self, op: Operation, value: SSAValue, shadow: SSAValue) -> None:
        self.updates[op] = (value, shadow)

    def hoist(self) -> None:
        """Move every update that can be out of its loop (innermost first),
        as often as it can."""
        moved = True
        while moved:
            moved = False
            for op, (value, shadow) in list(self.updates.items()):
                loop = op.parent_op()
                if isinstance(loop, scf.ForOp) and self.invariant(
                    op, value, shadow, loop
                ):
                    self.updates[op] = (self.out_of(loop, op, value), shadow)
                    moved = True

    def invariant(
        self, op: Operation, value: SSAValue, shadow: SSAValue, loop: scf.ForOp
    ) -> bool:
        if op.parent_block() is not loop.body.block:
            return False
        for inner in op.walk():
            for v in inner.operands:
                if v is value or defined_inside(v, op):
                    continue
                if defined_inside(v, loop):
                    return False
        root = root_of(shadow)[0]
        if root is None:
            return False
        for other in loop.walk():
            if other is loop or is_ancestor(op, other):
                continue
            if isinstance(other, BarrierOp):
                return False
            if isinstance(other, ACCESSES) and root_of(other.ptr)[0] in (root, None):
                return False
        return True

    def out_of(self, loop: scf.ForOp, op: Operation, value: SSAValue) -> SSAValue:
        """Carry the sum of `value` through `loop` and move `op` after it,
        adding the sum; return the sum."""
        body = loop.body.block
        acc = body.insert_arg(value.type, len(body.args))
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        total = Emitter(body, yield_op).add(acc, value)
        new_yield = scf.YieldOp(*yield_op.operands, total)
        body.insert_op_before(new_yield, yield_op)
        body.erase_op(yield_op)
        zero = Emitter(loop.parent_block() or Block(), loop).zero(value.type)
        region = loop.detach_region(loop.body)
        new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, zero], region)
        parent = loop.parent_block()
        assert parent is not None
        parent.insert_op_before(new, loop)
        for old, res in zip(loop.results, new.results, strict=False):
            old.replace_all_uses_with(res)
        parent.erase_op(loop)
        body.detach_op(op)
        after = new.next_op
        if after is None:
            parent.add_op(op)
        else:
            parent.insert_op_before(op, after)
        summed = new.results[-1]
        for inner in op.walk():
            for i, v in enumerate(inner.operands):
                if v is value:
                    inner.operands[i] = summed
        return summed


def defined_inside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined inside `op`'s regions."""
    current = v.owner.parent_op()
    while current is not None:
        if current is op:
            return True
        current = current.parent_op()
    return False
