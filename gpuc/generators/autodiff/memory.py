"""What reverse mode recomputes, and whether recomputing it is right.

The adjoint sweep of a loop recomputes each iteration's values. Ops it does
not need are removed afterwards; shared and private stores are kept only
where a needed load reads their allocation. A needed recomputed load must read
what the primal read, so its memory must not have changed since: either
nothing in the function writes it, or every write to it comes before the
outermost op holding the load, or (shared and private memory) every write is
in the body of a loop around the load, ahead of the load, and so is
recomputed with it. Anything else is refused with a diagnostic at the load.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue, Use
from xdsl.rewriter import Rewriter

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.index import BarrierOp
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.generators.autodiff.rules import Emitter

WRITES = (StoreOp, AtomicRMWOp, AtomicCmpXchgOp)
LOOPS = (scf.ForOp, scf.WhileOp)


def root_of(ptr: SSAValue) -> tuple[SSAValue | None, AddressSpace | None]:
    """The argument or allocation `ptr` points into (None: unknown), and the
    allocation's space (None for an argument)."""
    while True:
        owner = ptr.owner
        if isinstance(owner, OffsetOp):
            ptr = owner.ptr
        elif isinstance(owner, AddrSpaceCastOp):
            ptr = owner.source
        elif isinstance(owner, arith.SelectOp):
            first, second = root_of(owner.operands[1]), root_of(owner.operands[2])
            return first if first == second else (None, None)
        elif isinstance(owner, SharedAllocOp):
            return ptr, AddressSpace.SHARED
        elif isinstance(owner, PrivateAllocOp):
            return ptr, AddressSpace.LOCAL
        elif isinstance(owner, Block) and isinstance(ptr, BlockArgument):
            parent = owner.parent_op()
            return (ptr, None) if isinstance(parent, FuncOp) else (None, None)
        else:
            return None, None


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _before(a: Operation, b: Operation) -> bool:
    block = a.parent_block()
    assert block is not None and b.parent_block() is block
    return block.get_operation_index(a) < block.get_operation_index(b)


@dataclass
class _Group:
    replay: bool
    ops: list[tuple[Operation, Operation]] = field(default_factory=list)


class Recomputed:
    """The ops the adjoint sweep recomputed, with their sources, by group (one
    loop body's recomputation, or one replay of loop-carried values)."""

    def __init__(self, source: FuncOp):
        self.source = source
        self.groups: list[_Group] = []
        self.opened: list[_Group] = []

    def group(self, replay: bool = False) -> _Group:
        g = _Group(replay)
        self.groups.append(g)
        self.opened.append(g)
        return g

    def end(self, group: _Group) -> None:
        assert self.opened and self.opened[-1] is group
        self.opened.pop()

    def add(self, new: Operation, source: Operation) -> None:
        if self.opened:
            self.opened[-1].ops.append((new, source))
        else:
            self.groups.append(_Group(False, [(new, source)]))

    def strip(self, new: Operation, source: Operation) -> None:
        """A loop copied whole for its values: drop its stores, atomics and
        barriers (the primal sweep made them), keep its loads for the check."""
        for n, s in zip(list(new.walk()), list(source.walk()), strict=True):
            if n is new:
                continue
            if isinstance(n, AtomicRMWOp | AtomicCmpXchgOp) and n.result.uses:
                raise OpError(
                    s,
                    "autodiff (reverse mode) recomputes loops and cannot recompute "
                    "the old value an atomic returned; use the atomic's result "
                    "outside loops only",
                )
            if isinstance(n, (*WRITES, BarrierOp)):
                Rewriter.erase_op(n)
            elif isinstance(n, LoadOp):
                self.add(n, s)

    def finish(self, body: Block) -> None:
        """Remove what the adjoint does not use; check the loads it does.

        A recomputed op is needed when the adjoint code uses one of its
        results, or a needed op does; a store when a needed load reads its
        allocation; a barrier when its group keeps a store; a region op when
        it holds a needed op."""
        records = [(n, s, g) for g in self.groups for n, s in g.ops]
        recorded = {n for n, _s, _g in records}

        def owner(user: Operation) -> Operation | None:
            current: Operation | None = user
            while current is not None:
                if current in recorded:
                    return current
                current = current.parent_op()
            return None

        needed: set[Operation] = set()

        def used(use: Use, by: Operation) -> bool:
            """Whether `use` of a result of `by` needs it: a recomputed
            `scf.if` yields it only for the result that is used."""
            user = use.operation
            parent = user.parent_op()
            if (
                isinstance(user, scf.YieldOp)
                and isinstance(parent, scf.IfOp)
                and parent in recorded
            ):
                return any(used(u, parent) for u in parent.results[use.index].uses)
            o = owner(user)
            return o is None or (o is not by and o in needed)

        changed = True
        while changed:
            changed = False
            roots = {
                root_of(s.ptr)[0]
                for n, s, _g in records
                if n in needed and isinstance(s, LoadOp)
            }
            for n, s, g in records:
                if n in needed:
                    continue
                if isinstance(n, StoreOp):
                    need = root_of(s.ptr)[0] in roots  # type: ignore[attr-defined]
                elif isinstance(n, BarrierOp):
                    need = any(
                        isinstance(o, StoreOp) and o in needed for o, _s in g.ops
                    )
                else:
                    need = any(used(use, n) for r in n.results for use in r.uses)
                if need:
                    changed = True
                    current: Operation | None = n
                    while current is not None:
                        if current in recorded:
                            needed.add(current)
                        current = current.parent_op()
        for n, _s, _g in records:
            if (
                n not in needed
                and n.parent is not None
                and n.parent_block() is not None
            ):
                for r in n.results:
                    for use in list(r.uses):
                        zero = Emitter(
                            use.operation.parent_block() or Block(), use.operation
                        ).zero(r.type)
                        use.operation.operands[use.index] = zero
                Rewriter.erase_op(n, safe_erase=False)
        for n, s, g in records:
            if n in needed and isinstance(n, LoadOp) and isinstance(s, LoadOp):
                self.check(s, g.replay)
        del body

    def check(self, load: LoadOp, replay: bool) -> None:
        root, space = root_of(load.ptr)
        if root is None:
            raise OpError(
                load,
                "autodiff (reverse mode) recomputes this load in the adjoint sweep "
                "and cannot tell which argument or allocation it reads; index an "
                "argument or an allocation directly",
            )
        writes = [
            o
            for o in self.source.walk()
            if isinstance(o, WRITES) and root_of(o.ptr)[0] == root
        ]
        if not writes:
            return
        top = self.source.body.block
        mine = _ancestor_in(load, top)
        assert mine is not None
        if all(
            _before(a, mine)
            for a in (_ancestor_in(w, top) for w in writes)
            if a is not None
        ):
            return
        if space is not None and (not replay or space == AddressSpace.LOCAL):
            loop = load.parent_op()
            while loop is not None and not isinstance(loop, FuncOp):
                if isinstance(loop, LOOPS) and all(
                    is_ancestor(loop, w) for w in writes
                ):
                    block = load.parent_block()
                    while block is not None and block.parent_op() is not loop:
                        parent = block.parent_op()
                        block = parent.parent_block() if parent is not None else None
                    if block is not None:
                        here = _ancestor_in(load, block)
                        theirs = [_ancestor_in(w, block) for w in writes]
                        if here is not None and all(
                            t is not None and _before(t, here) for t in theirs
                        ):
                            return
                loop = loop.parent_op()
        what = "an argument" if space is None else f"a {space.value} allocation"
        raise OpError(
            load,
            "autodiff (reverse mode) recomputes this load inside a loop, and the "
            f"function writes to the memory it reads ({what}) afterwards, so the "
            "recomputed value could differ from the one the primal read; load it "
            "before the loop, or write the results to other memory",
        )


def is_ancestor(op: Operation, inner: Operation) -> bool:
    current: Operation | None = inner
    while current is not None:
        if current is op:
            return True
        current = current.parent_op()
    return False
