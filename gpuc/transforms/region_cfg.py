"""A region's control-flow graph for gpuc/transforms/structurize.py: the edges of
its blocks' terminators (`cf.br`, `cf.cond_br`, `cf.switch`; any other
terminator is an edge to RETURN, the region's exit), dominators, the natural
loops (a header dominating the sources of its back edges; those sharing a
header are one loop) with their exit targets and the values used after
them, and immediate post-dominators within a `Scope`: the region or one
loop's body, its inner loops each one node, every edge leaving it an edge to
TAIL. A cycle left in a scope (irreducible control flow) raises CannotLift.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import cf
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

TAIL = "tail"
"""The node every path of a scope ends at: the region's exit, or a loop's
`scf.condition`."""
RETURN = "return"
"""The target of a region's own terminators (gpuc.return, scf.yield)."""

Node = Block | str
Edge = tuple[Node, Sequence[SSAValue]]
Values = dict[SSAValue, SSAValue]


BRANCH_OPS = (cf.BranchOp, cf.ConditionalBranchOp, cf.SwitchOp)


class CannotLift(Exception):
    """The region is not one `lift_region` lifts (it stays as it is)."""


def branch_edges(op: Operation) -> list[Edge]:
    """A terminator's successors with the operands it passes them; for a
    terminator that is not a branch, RETURN with its operands."""
    if isinstance(op, cf.BranchOp):
        return [(op.successor, op.arguments)]
    if isinstance(op, cf.ConditionalBranchOp):
        return [
            (op.then_block, op.then_arguments),
            (op.else_block, op.else_arguments),
        ]
    if isinstance(op, cf.SwitchOp):
        segments = op.case_operand_segments.get_values()
        operands = list(op.case_operands)
        found: list[Edge] = [(op.default_block, op.default_operands)]
        start = 0
        for block, size in zip(op.case_blocks, segments, strict=True):
            found.append((block, operands[start : start + size]))
            start += size
        return found
    return [(RETURN, op.operands)]


@dataclass
class Loop:
    """A natural loop: its header and its body (the header included)."""

    header: Block
    body: set[Block]
    exits: list[Node] = field(default_factory=list[Node])
    """Where it goes on leaving, in a fixed order (RETURN for the region's
    exit)."""
    escaping: list[SSAValue] = field(default_factory=list[SSAValue])
    """Values defined in the loop and used after it."""


@dataclass
class Scope:
    """The blocks one structured sequence is emitted from: the region, or
    one loop's body (its header's edges back to it end at TAIL)."""

    blocks: set[Block]
    header: Block | None
    tail_edge: Callable[[Node, list[SSAValue], Values], list[SSAValue]]
    tail_types: list[Attribute]
    loops: dict[Block, Loop]
    """The outermost loops inside the scope, by header."""
    ipdom: dict[Node, Node] = field(default_factory=dict[Node, Node])

    def node(self, target: Node) -> Node:
        """The node an edge to `target` reaches in this scope."""
        if target == RETURN or target is self.header or target not in self.blocks:
            return TAIL
        return target


class RegionCfg:
    """A region's control-flow graph: its blocks reachable from the entry
    (`order`), their edges, its exit op and its natural loops."""

    def __init__(self, region: Region):
        entry = region.blocks.first
        assert entry is not None
        self.region = region
        self.entry = entry
        self.edges: dict[Block, list[Edge]] = {}
        self.exit_op: Operation | None = None
        order: list[Block] = []
        stack = [entry]
        while stack:
            block = stack.pop()
            if block in self.edges:
                continue
            term = block.last_op
            if term is None or not term.has_trait(IsTerminator):
                raise CannotLift
            if term.successors and not isinstance(term, BRANCH_OPS):
                raise CannotLift
            self.edges[block] = branch_edges(term)
            if not term.successors:
                self._check_exit(term)
            order.append(block)
            stack.extend(t for t, _ in self.edges[block] if isinstance(t, Block))
        self.order = order
        self.loops = self._find_loops()

    def _check_exit(self, term: Operation) -> None:
        first = self.exit_op
        if first is None:
            self.exit_op = term
        elif first.name != term.name or first.operand_types != term.operand_types:
            raise CannotLift

    # -- analysis ------------------------------------------------------------

    def _find_loops(self) -> list[Loop]:
        preds: dict[Block, list[Block]] = {b: [] for b in self.order}
        for b in self.order:
            for t, _ in self.edges[b]:
                if isinstance(t, Block):
                    preds[t].append(b)
        every = set(self.order)
        dom = {b: {b} if b is self.entry else set(every) for b in self.order}
        changed = True
        while changed:
            changed = False
            for b in self.order:
                if b is self.entry:
                    continue
                new = set.intersection(*(dom[p] for p in preds[b])) | {b}
                if new != dom[b]:
                    dom[b], changed = new, True
        loops: dict[Block, Loop] = {}
        for b in self.order:
            for t, _ in self.edges[b]:
                if isinstance(t, Block) and t in dom[b]:
                    loop = loops.setdefault(t, Loop(t, {t}))
                    work = [b]
                    while work:
                        n = work.pop()
                        if n not in loop.body:
                            loop.body.add(n)
                            work.extend(preds[n])
        for loop in loops.values():
            exits = {
                t: None
                for b in self.order
                if b in loop.body
                for t, _ in self.edges[b]
                if not isinstance(t, Block) or t not in loop.body
            }
            if not exits:
                raise CannotLift  # it never ends
            loop.exits = list(exits)
            loop.escaping = [
                v for v in self._defined(loop.body) if self._used_outside(v, loop.body)
            ]
        return sorted(loops.values(), key=lambda loop: len(loop.body))

    def _defined(self, blocks: set[Block]) -> list[SSAValue]:
        found: list[SSAValue] = []
        for b in self.order:
            if b in blocks:
                found.extend(b.args)
                for op in b.ops:
                    found.extend(op.results)
        return found

    def _used_outside(self, value: SSAValue, blocks: set[Block]) -> bool:
        for use in value.uses:
            op: Operation | None = use.operation
            while op is not None and op.parent_region() is not self.region:
                op = op.parent_op()
            if op is not None and op.parent_block() not in blocks:
                return True
        return False

    def outermost(self, blocks: set[Block], header: Block | None) -> dict[Block, Loop]:
        inner = [
            loop
            for loop in self.loops
            if loop.header is not header and loop.header in blocks
        ]
        return {
            loop.header: loop
            for loop in inner
            if not any(loop.body < other.body for other in inner)
        }

    def post_dominators(self, scope: Scope) -> None:
        hidden = {b for loop in scope.loops.values() for b in loop.body - {loop.header}}
        start = scope.header or self.entry

        def successors(n: Block) -> list[Node]:
            if n in scope.loops:
                return [scope.node(x) for x in scope.loops[n].exits]
            found = [scope.node(t) for t, _ in self.edges[n]]
            if any(t in hidden for t in found):
                raise CannotLift  # a loop entered past its header
            return found

        pdom: dict[Node, frozenset[Node]] = {TAIL: frozenset({TAIL})}
        visiting: set[Node] = set()

        def visit(n: Node) -> frozenset[Node]:
            if n in pdom:
                return pdom[n]
            if n in visiting or not isinstance(n, Block):
                raise CannotLift  # a cycle: irreducible
            visiting.add(n)
            succ = [visit(s) for s in successors(n)]
            pdom[n] = frozenset.intersection(*succ) | {n}
            scope.ipdom[n] = max(pdom[n] - {n}, key=lambda m: len(pdom[m]))
            return pdom[n]

        visit(start)

    # -- emission ------------------------------------------------------------
