"""Reverse mode: the function (the primal sweep), then the adjoint sweep.

The primal sweep copies the function. Values the adjoint sweep needs are
kept in registers: those of the function's own block directly, those made
inside an `scf.if` as extra results of the `scf.if` (its cache). A loop is
reversed by running its iterations backwards and *recomputing* each one's
values from its induction variable (and, when the adjoint needs them, its
loop-carried values, replayed from the start: quadratic in the trip count).
A recomputed load must read what the primal read: memory.py checks that and
refuses the function otherwise. `scf.while` counts its iterations.

Adjoints of floating-point values live in registers; adjoints of memory live
in shadows: a load's adjoint is added to its shadow, a store's adjoint reads
and zeroes it. Shadow additions are atomic except into private memory, or at
an address this thread also stores to in the same block (a data-race-free
function: no other thread touches it). Shared allocations get zeroed shadow
allocations; barriers are replayed in reverse order. A call asks for the
callee's reverse derivative with `seed = true` as a job of its own.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import MutableMapping

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace, AtomicKind, Dim, PtrType
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.index import BarrierOp, BlockDimOp, GlobalIdOp, GridDimOp, ThreadIdOp
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
    ptr_type_of,
)
from gpuc.generators.autodiff.common import (
    check_bitcast,
    derivative_call,
    involves_floats,
    is_call,
    no_rule,
)
from gpuc.generators.autodiff.conventions import (
    check_types,
    is_duplicated,
    reverse_type,
)
from gpuc.generators.autodiff.memory import Recomputed, root_of
from gpuc.generators.autodiff.rules import (
    CONSTANTS_FROM_INTEGERS,
    CONVERSIONS,
    RULES,
    Emitter,
    is_float,
)

MODE = "reverse"
Env = MutableMapping[SSAValue, SSAValue]
Adj = dict[SSAValue, SSAValue]
WRITES = (StoreOp, AtomicRMWOp, AtomicCmpXchgOp)


def _mapper(op: Operation, env: Env) -> dict[SSAValue, SSAValue]:
    """The values of `env` that `op` (and its regions) use."""
    mapping: dict[SSAValue, SSAValue] = {}
    for nested in op.walk():
        for v in nested.operands:
            if v in env:
                mapping[v] = env[v]
    return mapping


def free_floats(op: Operation) -> list[SSAValue]:
    """Floating-point values defined outside `op` and used inside it."""
    inside = {id(o) for o in op.walk()}
    seen: dict[SSAValue, None] = {}
    for nested in op.walk():
        if nested is op:
            continue
        for v in nested.operands:
            owner = v.owner
            defined_inside = (
                id(owner) in inside and owner is not op
                if isinstance(owner, Operation)
                else owner.parent_op() is not None and id(owner.parent_op()) in inside
            )
            if is_float(v.type) and not defined_inside:
                seen[v] = None
    return list(seen)


class Reverse:
    def __init__(self, source: FuncOp, seed: bool, always_inline: bool):
        self.source = source
        self.always_inline = always_inline
        self.seed = seed
        self.shadows: dict[SSAValue, SSAValue] = {}
        """Source pointer -> its shadow, for arguments and allocations."""
        self.recomputed = Recomputed(source)
        self.replaying = False
        """Replaying loop-carried values: registers only, no memory writes."""
        self.count_keys: dict[Operation, SSAValue] = {}
        """scf.while -> the stand-in under which envs hold its iteration count."""

    def count_key(self, op: Operation) -> SSAValue:
        if op not in self.count_keys:
            self.count_keys[op] = Block(arg_types=[IndexType()]).args[0]
        return self.count_keys[op]

    def build(self, name: str) -> FuncOp:
        source_type = self.source.function_type
        check_types(self.source, source_type.inputs.data, "an argument")
        check_types(self.source, source_type.outputs.data, "a result")
        if len(self.source.body.blocks) != 1:
            raise OpError(
                self.source,
                "autodiff differentiates structured control flow (scf); this "
                "function has several blocks: run lift-cf, or write it with scf ops",
            )
        new_type = reverse_type(source_type, self.seed)
        body = Block(arg_types=new_type.inputs.data)
        args = iter(body.args)
        env: dict[SSAValue, SSAValue] = {}
        src_args = self.source.body.block.args
        for arg in src_args:
            new = next(args)
            new.name_hint = arg.name_hint
            env[arg] = new
            if is_duplicated(arg.type):
                shadow = next(args)
                shadow.name_hint = f"d{arg.name_hint}" if arg.name_hint else None
                self.shadows[arg] = shadow
        b = Emitter(body)
        terminator = self.primal_ops(self.source.body.block, b, env, recompute=False)
        assert isinstance(terminator, ReturnOp)
        adj: Adj = {}
        for v in terminator.arguments:
            if is_float(v.type):
                seed = next(args) if self.seed else b.const(1.0, v.type)
                self.accumulate(adj, v, seed, b)
        self.adjoint_ops(self.source.body.block, b, env, adj)
        results = [adj.get(a) or b.zero(a.type) for a in src_args if is_float(a.type)]
        b.op(ReturnOp(*results))
        self.recomputed.finish(body)
        return FuncOp(name, new_type, self.source.role.data, Region(body))

    # -- helpers ------------------------------------------------------------

    def accumulate(self, adj: Adj, v: SSAValue, term: SSAValue, b: Emitter) -> None:
        if not is_float(v.type):
            return
        adj[v] = b.accumulate(adj.get(v), term)

    def value(self, v: SSAValue, env: Env, b: Emitter, where: Operation) -> SSAValue:
        """`v`'s primal value where `b` emits: from `env`, or recomputed when it
        is a pointer made from others (pointers are not cached)."""
        found = env.get(v)
        if found is not None:
            return found
        owner = v.owner
        if isinstance(owner, OffsetOp | AddrSpaceCastOp):
            new = b.op(
                owner.clone(
                    value_mapper={
                        o: self.value(o, env, b, where) for o in owner.operands
                    }
                )
            )
            env[v] = new.results[0]
            return new.results[0]
        raise OpError(
            where,
            "autodiff (reverse mode): internal error, a value the adjoint needs "
            "is not available",
        )

    def shadow(self, ptr: SSAValue, env: Env, b: Emitter, where: Operation) -> SSAValue:
        found = self.shadows.get(ptr)
        if found is not None:
            return found
        owner = ptr.owner
        if isinstance(owner, OffsetOp):
            base = self.shadow(owner.ptr, env, b, where)
            return b.value(OffsetOp(base, self.value(owner.index, env, b, where)))
        if isinstance(owner, AddrSpaceCastOp):
            base = self.shadow(owner.source, env, b, where)
            return b.value(
                AddrSpaceCastOp(base, ptr_type_of(owner.result).address_space)
            )
        if isinstance(owner, arith.SelectOp):
            t = self.shadow(owner.operands[1], env, b, where)
            f = self.shadow(owner.operands[2], env, b, where)
            return b.value(
                arith.SelectOp(self.value(owner.operands[0], env, b, where), t, f)
            )
        raise OpError(
            where,
            f"autodiff ({MODE} mode) does not know the shadow of this pointer to "
            "floating-point data (it comes from an op without a derivative rule); "
            "derive the pointer from an argument or an allocation",
        )

    def index(
        self, op: LoadOp | StoreOp | AtomicRMWOp, env: Env, b: Emitter
    ) -> SSAValue | None:
        return self.value(op.index, env, b, op) if op.index is not None else None

    # -- the primal sweep ---------------------------------------------------

    def primal_ops(
        self, block: Block, b: Emitter, env: Env, recompute: bool
    ) -> Operation | None:
        for op in block.ops:
            if isinstance(op, ReturnOp | scf.YieldOp | scf.ConditionOp):
                return op
            self.primal_op(op, b, env, recompute)
        return None

    def copy(self, op: Operation, b: Emitter, env: Env, recompute: bool) -> Operation:
        new = b.op(op.clone(value_mapper=_mapper(op, env)))
        for old, res in zip(op.results, new.results, strict=True):
            env[old] = res
        if recompute:
            self.recomputed.add(new, op)
        return new

    def primal_op(self, op: Operation, b: Emitter, env: Env, recompute: bool) -> None:
        if isinstance(op, scf.IfOp):
            return self.primal_if(op, b, env, recompute)
        if isinstance(op, scf.WhileOp):
            return self.primal_while(op, b, env, recompute)
        if isinstance(op, SharedAllocOp | PrivateAllocOp):
            return self.allocation(op, b, env)
        if recompute:
            if isinstance(op, AtomicRMWOp | AtomicCmpXchgOp):
                if op.result.uses:
                    raise OpError(
                        op,
                        f"autodiff ({MODE} mode) recomputes the iterations of a loop "
                        "backwards and cannot recompute the old value an atomic "
                        "returned; use the atomic's result outside loops only",
                    )
                return None
            if isinstance(op, StoreOp) and (
                self.replaying or root_of(op.ptr)[1] is None
            ):
                return None  # memory the caller sees: written once, by the primal sweep
            if isinstance(op, BarrierOp) and self.replaying:
                return None
            if is_call(op) and any(isinstance(v.type, PtrType) for v in op.operands):
                raise self.call_with_pointers(op)
        new = self.copy(op, b, env, recompute)
        if recompute and isinstance(op, scf.ForOp):
            self.recomputed.strip(new, op)
        return None

    def allocation(
        self, op: SharedAllocOp | PrivateAllocOp, b: Emitter, env: Env
    ) -> None:
        if op.parent_block() is not self.source.body.block:
            raise OpError(
                op,
                f"autodiff ({MODE} mode) needs allocations at the top of the "
                "function (not inside scf regions) to give them shadows",
            )
        new = self.copy(op, b, env, False)
        if not is_duplicated(op.result.type):
            return
        shadow = b.value(op.clone())
        shadow.name_hint = f"d{op.result.name_hint}" if op.result.name_hint else None
        self.shadows[op.result] = shadow
        self.zero_fill(op, shadow, b)
        del new

    def zero_fill(
        self, op: SharedAllocOp | PrivateAllocOp, shadow: SSAValue, b: Emitter
    ) -> None:
        """Zero a new shadow allocation: each thread of the block a stride of a
        shared one (then a barrier), each thread all of its private one."""
        index = IndexType()
        count = b.int_const(op.count.value.data, index)
        element = shadow.type.element  # type: ignore[attr-defined]
        if isinstance(op, SharedAllocOp):
            tx, ty, tz = (b.value(ThreadIdOp(d)) for d in (Dim.X, Dim.Y, Dim.Z))
            bx, by, bz = (b.value(BlockDimOp(d)) for d in (Dim.X, Dim.Y, Dim.Z))
            plane = b.value(arith.MuliOp(bx, by))
            linear = b.value(
                arith.AddiOp(
                    tx,
                    b.value(
                        arith.MuliOp(
                            bx, b.value(arith.AddiOp(ty, b.value(arith.MuliOp(by, tz))))
                        )
                    ),
                )
            )
            start, step = linear, b.value(arith.MuliOp(plane, bz))
        else:
            start, step = b.int_const(0, index), b.int_const(1, index)
        body = Block(arg_types=[index])
        inner = Emitter(body)
        inner.op(StoreOp(inner.zero(element), shadow, body.args[0]))
        inner.op(scf.YieldOp())
        b.op(scf.ForOp(start, count, step, [], body))
        if isinstance(op, SharedAllocOp):
            b.op(BarrierOp())

    def primal_if(self, op: scf.IfOp, b: Emitter, env: Env, recompute: bool) -> None:
        """The `scf.if` with, after its results, every value its branches make
        (the cache the adjoint sweep reads)."""
        branches = [op.true_region, op.false_region]
        cached: list[list[SSAValue]] = [[], []]
        built: list[tuple[Block, Emitter, list[SSAValue], Env]] = []
        for k, region in enumerate(branches):
            block = Block()
            inner = Emitter(block)
            benv: Env = ChainMap({}, env)
            yielded: list[SSAValue] = []
            if region.blocks:
                y = self.primal_ops(region.block, inner, benv, recompute)
                assert isinstance(y, scf.YieldOp)
                yielded = [
                    benv[v] if v in benv else self.value(v, benv, inner, op)
                    for v in y.arguments
                ]
                own = benv.maps[0]  # type: ignore[attr-defined]
                cached[k] = [v for v in own if not isinstance(v.type, PtrType)]
            built.append((block, inner, yielded, benv))
        types = [r.type for r in op.results] + [v.type for v in cached[0] + cached[1]]
        regions: list[Region] = []
        for k, (block, inner, yielded, benv) in enumerate(built):
            mine = [benv[v] for v in cached[k]]
            theirs = [inner.zero(v.type) for v in cached[1 - k]]
            out = yielded + (mine + theirs if k == 0 else theirs + mine)
            if out or branches[k].blocks:
                inner.op(scf.YieldOp(*out))
                regions.append(Region(block))
            else:
                regions.append(Region())
        if not regions[1].blocks and types:
            block = Block()
            Emitter(block).op(scf.YieldOp(*[Emitter(block).zero(t) for t in types]))
            regions[1] = Region(block)
        new = b.op(
            scf.IfOp(self.value(op.cond, env, b, op), types, regions[0], regions[1])
        )
        if recompute:
            self.recomputed.add(new, op)
        n = len(op.results)
        for i, r in enumerate(op.results):
            env[r] = new.results[i]
        for i, v in enumerate(cached[0] + cached[1]):
            env[v] = new.results[n + i]

    def primal_while(
        self, op: scf.WhileOp, b: Emitter, env: Env, recompute: bool
    ) -> None:
        """The `scf.while` counting its iterations in an extra result."""
        before_src, after_src = op.before_region.block, op.after_region.block
        cond = before_src.last_op
        assert isinstance(cond, scf.ConditionOp)
        if list(cond.args) != list(before_src.args):
            raise OpError(
                op,
                f"autodiff ({MODE} mode) reverses scf.while loops whose "
                "scf.condition passes the loop-carried values on unchanged; "
                "compute new values in the 'do' region",
            )
        index = IndexType()
        mapping = _mapper(op, env)
        before = Block(arg_types=[*(a.type for a in before_src.args), index])
        after = Block(arg_types=[*(a.type for a in after_src.args), index])
        for src_block, new_block in ((before_src, before), (after_src, after)):
            for a, n in zip(src_block.args, new_block.args, strict=False):
                mapping[a] = n
            for nested in src_block.ops:
                clone = nested.clone(value_mapper=mapping)
                new_block.add_op(clone)
                for o, r in zip(nested.results, clone.results, strict=True):
                    mapping[o] = r
        term = before.last_op
        assert isinstance(term, scf.ConditionOp)
        before.insert_op_before(
            scf.ConditionOp(term.condition, *term.args, before.args[-1]), term
        )
        before.erase_op(term)
        term = after.last_op
        assert isinstance(term, scf.YieldOp)
        one = Emitter(after, term).int_const(1, index)
        count = Emitter(after, term).value(arith.AddiOp(after.args[-1], one))
        after.insert_op_before(scf.YieldOp(*term.operands, count), term)
        after.erase_op(term)
        inits = [self.value(a, env, b, op) for a in op.arguments] + [
            b.int_const(0, index)
        ]
        new = b.op(
            scf.WhileOp(inits, [*op.result_types, index], Region(before), Region(after))
        )
        for r, res in zip(op.results, new.results, strict=False):
            env[r] = res
        env[self.count_key(op)] = new.results[-1]
        if recompute:
            self.recomputed.add(new, op)
            self.recomputed.strip(new, op)

    # -- the adjoint sweep --------------------------------------------------

    def adjoint_ops(self, block: Block, b: Emitter, env: Env, adj: Adj) -> None:
        for op in reversed(list(block.ops)):
            if not isinstance(op, ReturnOp | scf.YieldOp | scf.ConditionOp):
                self.adjoint_op(op, b, env, adj)

    def adjoint_op(self, op: Operation, b: Emitter, env: Env, adj: Adj) -> None:
        if isinstance(op, scf.IfOp):
            return self.adjoint_if(op, b, env, adj)
        if isinstance(op, scf.ForOp):
            return self.adjoint_for(op, b, env, adj)
        if isinstance(op, scf.WhileOp):
            return self.adjoint_while(op, b, env, adj)
        if isinstance(op, BarrierOp):
            b.op(BarrierOp())
            return None
        if is_call(op):
            return self.adjoint_call(op, b, env, adj)
        if self.adjoint_memory(op, b, env, adj):
            return None
        if op.regions:
            if involves_floats(op) or any(involves_floats(o) for o in op.walk()):
                raise no_rule(op, MODE)
            return None
        check_bitcast(op, MODE, any(is_float(v.type) for v in op.operands))
        if not involves_floats(op) or isinstance(
            op, (arith.ConstantOp, *CONSTANTS_FROM_INTEGERS)
        ):
            return None
        if not any(is_float(r.type) for r in op.results):
            return None  # comparisons and casts to integers
        if isinstance(op, arith.SelectOp):
            if not is_float(op.result.type):
                return None
            a = adj.pop(op.result, None)
            if a is not None:
                c = self.value(op.operands[0], env, b, op)
                zero = b.zero(a.type)
                self.accumulate(
                    adj, op.operands[1], b.value(arith.SelectOp(c, a, zero)), b
                )
                self.accumulate(
                    adj, op.operands[2], b.value(arith.SelectOp(c, zero, a)), b
                )
            return None
        if isinstance(op, CONVERSIONS):
            a = adj.pop(op.results[0], None)
            if a is not None:
                back = arith.TruncFOp if isinstance(op, arith.ExtFOp) else arith.ExtFOp
                self.accumulate(
                    adj, op.operands[0], b.value(back(a, op.operands[0].type)), b
                )
            return None
        rule = RULES.get(type(op))
        if rule is None or len(op.results) != 1:
            raise no_rule(op, MODE)
        a = adj.pop(op.results[0], None)
        if a is None:
            return None
        operands = [self.value(v, env, b, op) for v in op.operands]
        partials = rule(op, operands, self.value(op.results[0], env, b, op), b)
        for v, partial in zip(op.operands, partials, strict=True):
            if is_float(v.type) and not isinstance(v.owner, arith.ConstantOp):
                self.accumulate(adj, v, b.scale(partial, a), b)
        return None

    def add_to_shadow(
        self, op: LoadOp | AtomicRMWOp, value: SSAValue, env: Env, b: Emitter
    ) -> None:
        shadow = self.shadow(op.ptr, env, b, op)
        index = self.index(op, env, b)
        if self.single_writer(op):
            old = b.value(LoadOp(shadow, index))
            b.op(StoreOp(b.add(old, value), shadow, index))
        elif self.own_element(op):
            # Plain where the launch is one-dimensional (each thread its own
            # element), atomic otherwise: a uniform branch.
            plain, atomic = Block(), Block()
            p = Emitter(plain)
            old = p.value(LoadOp(shadow, index))
            p.op(StoreOp(p.add(old, value), shadow, index))
            p.op(scf.YieldOp())
            Emitter(atomic).op(AtomicRMWOp(AtomicKind.ADD, shadow, value, index))
            Emitter(atomic).op(scf.YieldOp())
            b.op(scf.IfOp(self.one_dimensional(b), [], Region(plain), Region(atomic)))
        else:
            b.op(AtomicRMWOp(AtomicKind.ADD, shadow, value, index))

    def own_element(self, op: LoadOp | AtomicRMWOp) -> bool:
        """Whether every access of the function to `op`'s argument is at
        element `gpuc.global_id x` of the argument itself: in a launch whose
        y and z extents are 1, no two threads share an element."""
        root, space = root_of(op.ptr)
        if root is None or space is not None:
            return False
        accesses = [
            o
            for o in self.source.walk()
            if isinstance(o, LoadOp | StoreOp | AtomicRMWOp | AtomicCmpXchgOp)
            and root_of(o.ptr)[0] == root
        ]
        return all(
            o.ptr == root
            and o.index is not None
            and isinstance(o.index.owner, GlobalIdOp)
            and o.index.owner.dimension.data == Dim.X
            for o in accesses
        )

    def one_dimensional(self, b: Emitter) -> SSAValue:
        """Whether the launch's y and z extents (blocks times threads) are 1."""
        extent = None
        for dim in (Dim.Y, Dim.Z):
            for op in (GridDimOp(dim), BlockDimOp(dim)):
                v = b.value(op)
                extent = v if extent is None else b.value(arith.MuliOp(extent, v))
        assert extent is not None
        return b.value(arith.CmpiOp(extent, b.int_const(1, IndexType()), "eq"))

    def single_writer(self, op: LoadOp | AtomicRMWOp) -> bool:
        """Whether only this thread updates the shadow at `op`'s address:
        private memory, or global memory this thread stores to at the same
        address in the same block (another thread touching it would race
        with that store in the primal function)."""
        space = root_of(op.ptr)[1]
        if space == AddressSpace.LOCAL:
            return True
        ptr_type = op.ptr.type
        if (
            not isinstance(ptr_type, PtrType)
            or ptr_type.address_space != AddressSpace.GLOBAL
        ):
            return False
        block = op.parent_block()
        return block is not None and any(
            isinstance(o, StoreOp) and o.ptr == op.ptr and o.index == op.index
            for o in block.ops
        )

    def adjoint_memory(self, op: Operation, b: Emitter, env: Env, adj: Adj) -> bool:
        if isinstance(op, LoadOp):
            if is_float(op.result.type):
                a = adj.pop(op.result, None)
                if a is not None:
                    self.add_to_shadow(op, a, env, b)
            return True
        if isinstance(op, StoreOp):
            if is_float(op.value.type):
                shadow = self.shadow(op.ptr, env, b, op)
                index = self.index(op, env, b)
                d = b.value(LoadOp(shadow, index))
                b.op(StoreOp(b.zero(d.type), shadow, index))
                if not isinstance(op.value.owner, arith.ConstantOp):
                    self.accumulate(adj, op.value, d, b)
            return True
        if isinstance(op, AtomicRMWOp):
            if not is_float(op.value.type):
                return True
            if op.kind.data != AtomicKind.ADD:
                raise no_rule(op, MODE)
            shadow = self.shadow(op.ptr, env, b, op)
            index = self.index(op, env, b)
            a = adj.pop(op.result, None)
            d = b.value(LoadOp(shadow, index))
            self.accumulate(adj, op.value, d, b)
            if a is not None:
                self.add_to_shadow(op, a, env, b)
            return True
        return isinstance(
            op,
            OffsetOp
            | AddrSpaceCastOp
            | SharedAllocOp
            | PrivateAllocOp
            | AtomicCmpXchgOp,
        )

    def call_with_pointers(self, op: Operation) -> OpError:
        return OpError(
            op,
            f"autodiff ({MODE} mode) differentiates calls of helpers that take no "
            "pointers (their derivative is a job of its own); make the helper "
            "take and return values, or write its body into this function",
        )

    def adjoint_call(self, op: Operation, b: Emitter, env: Env, adj: Adj) -> None:
        if not involves_floats(op):
            return
        check_types(
            op, [v.type for v in (*op.operands, *op.results)], "an operand or result"
        )
        if any(isinstance(v.type, PtrType) for v in op.operands):
            raise self.call_with_pointers(op)
        seeds = [adj.pop(r, None) for r in op.results if is_float(r.type)]
        floats = [v for v in op.operands if is_float(v.type)]
        if not floats or all(s is None for s in seeds):
            return
        args = [self.value(v, env, b, op) for v in op.operands]
        args += [
            s if s is not None else b.const(0.0, r.type)
            for s, r in zip(
                seeds, [r for r in op.results if is_float(r.type)], strict=True
            )
        ]
        call = b.op(
            derivative_call(
                op,
                MODE,
                args,
                [v.type for v in floats],
                seed=True,
                always_inline=self.always_inline,
            )
        )
        for v, d in zip(floats, call.results, strict=True):
            self.accumulate(adj, v, d, b)

    def adjoint_if(self, op: scf.IfOp, b: Emitter, env: Env, adj: Adj) -> None:
        free = free_floats(op)
        seeds = [adj.pop(r, None) for r in op.results]
        regions: list[Region] = []
        for region in (op.true_region, op.false_region):
            block = Block()
            inner = Emitter(block)
            inner_adj: Adj = {}
            if region.blocks:
                y = region.block.last_op
                assert isinstance(y, scf.YieldOp)
                for v, s in zip(y.arguments, seeds, strict=True):
                    if s is not None:
                        self.accumulate(inner_adj, v, s, inner)
                self.adjoint_ops(region.block, inner, ChainMap({}, env), inner_adj)
            inner.op(
                scf.YieldOp(*[inner_adj.get(v) or inner.zero(v.type) for v in free])
            )
            regions.append(Region(block))
        new = b.op(
            scf.IfOp(
                self.value(op.cond, env, b, op),
                [v.type for v in free],
                regions[0],
                regions[1],
            )
        )
        for v, r in zip(free, new.results, strict=True):
            self.accumulate(adj, v, r, b)

    def trip_count(self, op: scf.ForOp, env: Env, b: Emitter) -> SSAValue:
        lb, ub, step = (self.value(v, env, b, op) for v in (op.lb, op.ub, op.step))
        span = b.value(arith.SubiOp(ub, lb))
        count = b.value(arith.CeilDivSIOp(span, step))
        more = b.value(arith.CmpiOp(ub, lb, "sgt"))
        return b.value(arith.SelectOp(more, count, b.int_const(0, lb.type)))

    def reversed_loop(
        self,
        count: SSAValue,
        seeds: list[SSAValue],
        free: list[SSAValue],
        adj: Adj,
        b: Emitter,
    ) -> tuple[scf.ForOp, Block, SSAValue]:
        """`for k in [0, count)` carrying `seeds` then the adjoints of `free`
        (taken out of `adj`); returns the loop, its body and `count - 1 - k`."""
        inits = seeds + [_take(adj, v) or b.zero(v.type) for v in free]
        zero, one = b.int_const(0, count.type), b.int_const(1, count.type)
        block = Block(arg_types=[count.type, *(v.type for v in inits)])
        inner = Emitter(block)
        last = inner.value(arith.SubiOp(count, one))
        it = inner.value(arith.SubiOp(last, block.args[0]))
        loop = scf.ForOp(zero, count, one, inits, block)
        return loop, block, it

    def adjoint_for(self, op: scf.ForOp, b: Emitter, env: Env, adj: Adj) -> None:
        src = op.body.block
        floats = [i for i, a in enumerate(op.iter_args) if is_float(a.type)]
        free = free_floats(op)
        seeds = [
            _take(adj, op.results[i]) or b.zero(op.results[i].type) for i in floats
        ]
        count = self.trip_count(op, env, b)
        loop, block, it = self.reversed_loop(count, seeds, free, adj, b)
        inner = Emitter(block)
        lb, step = self.value(op.lb, env, b, op), self.value(op.step, env, b, op)
        iv = inner.value(arith.AddiOp(lb, inner.value(arith.MuliOp(it, step))))
        benv: Env = ChainMap({src.args[0]: iv}, env)
        if src.args[1:]:
            replay = self.replay_for(op, iv, env, inner)
            for a, r in zip(src.args[1:], replay.results, strict=True):
                benv[a] = r
        group = self.recomputed.group()
        self.primal_ops(src, inner, benv, recompute=True)
        self.recomputed.end(group)
        y = src.last_op
        assert isinstance(y, scf.YieldOp)
        self.loop_body_adjoint(src, y, floats, free, block, inner, benv, src.args[1:])
        b.op(loop)
        for k, i in enumerate(floats):
            self.accumulate(adj, op.iter_args[i], loop.results[k], b)
        for v, r in zip(free, loop.results[len(floats) :], strict=True):
            self.accumulate(adj, v, r, b)

    def loop_body_adjoint(
        self,
        src: Block,
        y: scf.YieldOp,
        floats: list[int],
        free: list[SSAValue],
        block: Block,
        inner: Emitter,
        benv: Env,
        carried: tuple[SSAValue, ...] | list[SSAValue],
    ) -> None:
        inner_adj: Adj = {}
        carried_adj = block.args[1 : 1 + len(floats)]
        for k, i in enumerate(floats):
            self.accumulate(inner_adj, y.arguments[i], carried_adj[k], inner)
        for v, acc in zip(free, block.args[1 + len(floats) :], strict=True):
            self.accumulate(inner_adj, v, acc, inner)
        self.adjoint_ops(src, inner, benv, inner_adj)
        out = [inner_adj.get(carried[i]) or inner.zero(carried[i].type) for i in floats]
        out += [inner_adj.get(v) or inner.zero(v.type) for v in free]
        inner.op(scf.YieldOp(*out))

    def replay_body(
        self, src: Block, args: list[SSAValue], env: Env, block: Block
    ) -> list[SSAValue]:
        """Copy `src`'s ops (without their stores, atomics or barriers) into
        `block` with `src`'s arguments as `args`; return its yielded values."""
        inner = Emitter(block)
        renv: Env = ChainMap(dict(zip(src.args, args, strict=True)), env)
        group = self.recomputed.group(replay=True)
        replaying, self.replaying = self.replaying, True
        y = self.primal_ops(src, inner, renv, recompute=True)
        self.replaying = replaying
        self.recomputed.end(group)
        assert isinstance(y, scf.YieldOp)
        return [self.value(v, renv, inner, y) for v in y.arguments]

    def replay_for(
        self, op: scf.ForOp, iv: SSAValue, env: Env, b: Emitter
    ) -> scf.ForOp:
        """The loop-carried values at induction variable `iv`: the loop run
        again from its start up to `iv`, on registers only."""
        src = op.body.block
        block = Block(arg_types=[a.type for a in src.args])
        out = self.replay_body(src, list(block.args), env, block)
        Emitter(block).op(scf.YieldOp(*out))
        inits = [self.value(a, env, b, op) for a in op.iter_args]
        lb, step = self.value(op.lb, env, b, op), self.value(op.step, env, b, op)
        replay = scf.ForOp(lb, iv, step, inits, block)
        b.op(replay)
        self.recomputed.add(replay, op)
        return replay

    def adjoint_while(self, op: scf.WhileOp, b: Emitter, env: Env, adj: Adj) -> None:
        before_src, after_src = op.before_region.block, op.after_region.block
        floats = [i for i, a in enumerate(op.arguments) if is_float(a.type)]
        free = free_floats(op)
        seeds = [
            _take(adj, op.results[i]) or b.zero(op.results[i].type) for i in floats
        ]
        count = env[self.count_key(op)]
        loop, block, it = self.reversed_loop(count, seeds, free, adj, b)
        inner = Emitter(block)
        # The carried values at iteration `it`: the 'do' region run `it` times.
        index = IndexType()
        rblock = Block(arg_types=[index, *(a.type for a in after_src.args)])
        renv: Env = ChainMap({}, env)
        for before_arg, carried_arg in zip(
            before_src.args, rblock.args[1:], strict=True
        ):
            renv[before_arg] = carried_arg
        group = self.recomputed.group(replay=True)
        replaying, self.replaying = self.replaying, True
        self.primal_ops(before_src, Emitter(rblock), renv, recompute=True)
        self.replaying = replaying
        self.recomputed.end(group)
        out = self.replay_body(after_src, list(rblock.args[1:]), renv, rblock)
        Emitter(rblock).op(scf.YieldOp(*out))
        zero, one = inner.int_const(0, index), inner.int_const(1, index)
        inits = [self.value(a, env, inner, op) for a in op.arguments]
        replay = inner.op(scf.ForOp(zero, it, one, inits, rblock))
        self.recomputed.add(replay, op)
        benv: Env = ChainMap({}, env)
        for before_arg, after_arg, carried in zip(
            before_src.args, after_src.args, replay.results, strict=True
        ):
            benv[before_arg] = carried
            benv[after_arg] = carried
        group = self.recomputed.group()
        self.primal_ops(before_src, inner, benv, recompute=True)
        self.primal_ops(after_src, inner, benv, recompute=True)
        self.recomputed.end(group)
        y = after_src.last_op
        assert isinstance(y, scf.YieldOp)
        self.loop_body_adjoint(
            after_src, y, floats, free, block, inner, benv, list(after_src.args)
        )
        b.op(loop)
        for k, i in enumerate(floats):
            self.accumulate(adj, op.arguments[i], loop.results[k], b)
        for v, r in zip(free, loop.results[len(floats) :], strict=True):
            self.accumulate(adj, v, r, b)


def _take(adj: Adj, v: SSAValue) -> SSAValue | None:
    """`v`'s adjoint, taken out of `adj` (None: it has none)."""
    return adj.pop(v, None)
