"""Lifting a region's cf branches into scf ops (`lift_region`), for
gpuc/transforms/lift_cf.py.

The region's blocks are emitted afresh, in one block, by following its
edges from the entry. A block ending in `cf.cond_br` or `cf.switch` becomes
an `scf.if` or `scf.index_switch` whose branches run until the block's
immediate post-dominator (the join); the join's block arguments are the
op's results. A block reached on two paths before their join is emitted on
both. A natural loop (a header dominating the sources of its back edges)
becomes an `scf.while` whose `before` region is the loop's body: its paths
end in `scf.condition`, true with the header's next arguments on a back
edge, false with an exit target's arguments on an exit edge, followed by
the loop's values used after it (placeholders for what a path does not
have); a loop with several exit targets also forwards which one it took,
and an `scf.index_switch` on it follows. The region's exits (its non-branch
terminators, all the same op) are one more target: an early return is a
path to it, from a loop too.

Left unchanged: irreducible control flow, a loop without an exit, exits of
different ops, placeholders of a type without a zero constant, and a lift
that would copy more than `GROWTH` times the region's ops.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gpuc.transforms.region_cfg import (
    TAIL,
    CannotLift,
    Edge,
    Loop,
    Node,
    RegionCfg,
    Scope,
    Values,
)

GROWTH = 4
"""How many times its own ops a lifted region may hold (blocks on several
paths are copied)."""


class _Lifter(RegionCfg):
    """One region's lift: its graph, and the emission of its scf ops."""

    def __init__(self, region: Region):
        super().__init__(region)
        self.budget = GROWTH * sum(len(b.ops) for b in self.order) + 64

    def lift(self) -> Block:
        exit_op = self.exit_op
        if exit_op is None:
            raise CannotLift
        top = Block(arg_types=self.entry.arg_types)
        values: Values = dict(zip(self.entry.args, top.args, strict=True))
        scope = Scope(
            set(self.order),
            None,
            lambda target, args, values: args,
            list(exit_op.operand_types),
            self.outermost(set(self.order), None),
        )
        self.post_dominators(scope)
        result = self._run(scope, self.entry, list(top.args), top, values, TAIL)
        top.add_op(
            exit_op.create(
                operands=result,
                attributes=exit_op.attributes.copy(),
                properties=exit_op.properties.copy(),
            )
        )
        return top

    def _get(self, values: Values, value: SSAValue) -> SSAValue:
        if value in values:
            return values[value]
        owner: Operation | Block | None = value.owner
        if isinstance(owner, Operation):
            owner = owner.parent_block()
        if owner in self.edges:
            raise CannotLift  # used where its definition does not dominate
        return value

    def _arrive(
        self, scope: Scope, target: Node, args: list[SSAValue], values: Values
    ) -> tuple[Node, list[SSAValue]]:
        node = scope.node(target)
        if node == TAIL:
            return TAIL, scope.tail_edge(target, args, values)
        return node, args

    def _run(
        self,
        scope: Scope,
        node: Node,
        args: list[SSAValue],
        out: Block,
        values: Values,
        stop: Node,
    ) -> list[SSAValue]:
        """Emit from `node` (entered with `args`) into `out` until `stop`;
        the values that reach it."""
        while node != stop:
            if not isinstance(node, Block):
                raise CannotLift
            values.update(zip(node.args, args, strict=True))
            loop = scope.loops.get(node)
            build: Callable[[list[Attribute], list[Region]], Operation]
            if loop is not None:
                edges, build = self._while(loop, out, values)
            else:
                term = node.last_op
                assert term is not None
                for op in node.ops:
                    if op is not term:
                        self.budget -= 1
                        out.add_op(op.clone(value_mapper=values))
                if self.budget < 0:
                    raise CannotLift
                edges = [
                    (t, [self._get(values, a) for a in ops])
                    for t, ops in self.edges[node]
                ]
                build = partial(self._branch, term, out, values)
            if len(edges) == 1:
                target, edge_args = edges[0]
                node, args = self._arrive(scope, target, list(edge_args), values)
                continue
            join = scope.ipdom[node]
            types = (
                list(join.arg_types) if isinstance(join, Block) else scope.tail_types
            )
            regions: list[Region] = []
            for target, edge_args in edges:
                block = Block()
                edge_args = list(edge_args)
                inner = dict(values)
                n, a = self._arrive(scope, target, edge_args, inner)
                block.add_op(scf.YieldOp(*self._run(scope, n, a, block, inner, join)))
                regions.append(Region(block))
            branch = build(types, regions)
            out.add_op(branch)
            node, args = join, list(branch.results)
        return args

    def _branch(
        self,
        term: Operation,
        out: Block,
        values: Values,
        types: list[Attribute],
        regions: list[Region],
    ) -> Operation:
        """The scf op that branches as `term` does, into `regions`."""
        if isinstance(term, cf.ConditionalBranchOp):
            return scf.IfOp(self._get(values, term.cond), types, regions[0], regions[1])
        assert isinstance(term, cf.SwitchOp)
        flag = self._get(values, term.flag)
        cases: list[int] = []
        if isinstance(flag.type, IntegerType):
            width = flag.type.width.data
            for v in term.case_values.get_values() if term.case_values else ():
                v &= (1 << width) - 1
                cases.append(v - (1 << width) if v >> (width - 1) else v)
            cast = arith.IndexCastOp(flag, IndexType())
            out.add_op(cast)
            flag = cast.result
        else:
            cases = list(term.case_values.get_values() if term.case_values else ())
        return scf.IndexSwitchOp(
            flag, DenseArrayBase.from_list(i64, cases), regions[0], regions[1:], types
        )

    def _while(
        self, loop: Loop, out: Block, values: Values
    ) -> tuple[list[Edge], Callable[[list[Attribute], list[Region]], Operation]]:
        """`loop` as an scf.while in `out`, entered with its header's
        arguments bound in `values`; binds its escaping values there. Returns
        the edges it leaves by (each exit target with its arguments), and
        how to branch on which one it took (an scf.index_switch on the
        exit's number, forwarded after the header's arguments)."""
        header = loop.header
        exit_op = self.exit_op
        assert exit_op is not None
        carried = list(header.arg_types)
        several = len(loop.exits) > 1
        leaving = [
            list(x.arg_types if isinstance(x, Block) else exit_op.operand_types)
            for x in loop.exits
        ]
        escaping = [v.type for v in loop.escaping]
        before = Block(arg_types=carried)
        for arg, old in zip(before.args, header.args, strict=True):
            arg.name_hint = old.name_hint
        zeros: dict[Attribute, SSAValue] = {}

        def zero(ty: Attribute) -> SSAValue:
            if ty not in zeros:
                zeros[ty] = _constant(out, 0, ty)
            return zeros[ty]

        again, done = _constant(out, 1, i1), _constant(out, 0, i1)
        count = len(loop.exits) if several else 0
        numbers = [_constant(out, j, IndexType()) for j in range(count)]

        def tail_edge(
            target: Node, args: list[SSAValue], inner: Values
        ) -> list[SSAValue]:
            if target is header:
                flag, head = again, args
                taken = None
            elif target in loop.exits:
                flag, head = done, list(before.args)
                taken = loop.exits.index(target)
            else:
                raise AssertionError(target)  # every edge out is an exit
            found = [flag, *head]
            if several:
                found.append(numbers[taken or 0])
            for j, types in enumerate(leaving):
                found += args if j == taken else [zero(t) for t in types]
            for v in loop.escaping:
                kept = taken is not None and v in inner
                found.append(inner[v] if kept else zero(v.type))
            return found

        forwarded = [
            *carried,
            *([IndexType()] if several else []),
            *(t for types in leaving for t in types),
            *escaping,
        ]
        scope = Scope(
            loop.body,
            header,
            tail_edge,
            [i1, *forwarded],
            self.outermost(loop.body, header),
        )
        self.post_dominators(scope)
        init = [values[a] for a in header.args]
        inner = dict(values)
        tail = self._run(scope, header, list(before.args), before, inner, TAIL)
        before.add_op(scf.ConditionOp(tail[0], *tail[1:]))
        after = Block(arg_types=forwarded)
        after.add_op(scf.YieldOp(*after.args[: len(carried)]))
        op = scf.WhileOp(init, forwarded, Region(before), Region(after))
        out.add_op(op)
        results: list[SSAValue] = list(op.results)
        first = len(results) - len(escaping)
        values.update(zip(loop.escaping, results[first:], strict=True))
        at = len(carried) + several
        edges: list[Edge] = []
        for target, types in zip(loop.exits, leaving, strict=True):
            edges.append((target, results[at : at + len(types)]))
            at += len(types)

        def build(types: list[Attribute], regions: list[Region]) -> Operation:
            cases = DenseArrayBase.from_list(i64, range(1, len(regions)))
            selector = results[len(carried)]
            return scf.IndexSwitchOp(selector, cases, regions[0], regions[1:], types)

        return edges, build


def _constant(out: Block, value: int, ty: Attribute) -> SSAValue:
    if isinstance(ty, IntegerType | IndexType):
        op = arith.ConstantOp(IntegerAttr(value, ty))
    elif isinstance(ty, AnyFloat):
        op = arith.ConstantOp(FloatAttr(float(value), ty))
    else:
        raise CannotLift  # no placeholder of this type
    out.add_op(op)
    return op.result


def lift_region(region: Region) -> bool:
    """Replace `region`'s blocks with one block of scf ops; False (and
    nothing changed) where it cannot (the module's docstring)."""
    try:
        lifted = _Lifter(region).lift()
    except CannotLift:
        return False
    entry = region.blocks.first
    assert entry is not None
    for old, new in zip(entry.args, lifted.args, strict=True):
        new.name_hint = old.name_hint
    blocks = list(region.blocks)
    for block in blocks:
        for op in block.ops:
            op.drop_all_references()
    for block in blocks:
        region.detach_block(block)
        block.erase(safe_erase=False)
    region.add_block(lifted)
    return True
