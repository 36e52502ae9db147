"""Reverse mode's primal sweep and what the adjoint sweep reads of it.

The primal sweep copies the function; the `scf.if`s it copies yield every
value their branches make (their cache), `scf.while`s count their
iterations, and allocations of floats get zeroed shadows. The same code
recomputes a loop body for the adjoint sweep (`recompute`: without writes to
memory the caller sees) or replays loop-carried values (`replaying`: writing
only the thread's private memory). `value` and `shadow` give the adjoint
sweep a primal value or a shadow pointer where it emits.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import MutableMapping

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import (
    AddressSpace,
    Dim,
    FuncPtrType,
    InlineHint,
    JobAttr,
    PtrType,
    Role,
)
from gpuc.dialects.deferred import DeferredCallOp
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.index import BarrierOp, BlockDimOp, ThreadIdOp
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
    callee,
    function_named,
    is_call,
)
from gpuc.generators.autodiff.conventions import (
    is_duplicated,
)
from gpuc.generators.autodiff.inlining import (
    with_allocations_hoisted,
    with_indirect_calls_resolved,
    with_pointer_calls_inlined,
    with_while_conditions_rotated,
)
from gpuc.generators.autodiff.memory import Recomputed, root_of
from gpuc.generators.autodiff.rules import (
    Emitter,
    is_float,
)

MODE = "reverse"
Env = MutableMapping[SSAValue, SSAValue]
Adj = dict[SSAValue, SSAValue]


def mapper(op: Operation, env: Env) -> dict[SSAValue, SSAValue]:
    """The values of `env` that `op` (and its regions) use."""
    mapping: dict[SSAValue, SSAValue] = {}
    for nested in op.walk():
        for v in nested.operands:
            if v in env:
                mapping[v] = env[v]
    return mapping


def free_floats(op: Operation) -> list[SSAValue]:
    """Floating-point values defined outside `op` and used inside it, but
    constants (their adjoints go nowhere: a loop carrying them would only
    cost a value per thread kept across barriers)."""
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
            if is_float(v.type) and not defined_inside and not is_constant(v):
                seen[v] = None
    return list(seen)


INTEGER_ARITH = (
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.ConstantOp,
)
"""Integer ops an scf.if's cache leaves out: the adjoint sweep computes them
again from their operands (an index `y * n + x` then stays visibly affine in
the thread index, and costs no value kept per thread)."""


def recomputable(v: SSAValue, env: Env, depth: int = 4) -> bool:
    """Whether `v` is integer arithmetic (`INTEGER_ARITH`), at most `depth`
    ops deep, on values `env` has."""
    owner = v.owner
    if not isinstance(owner, INTEGER_ARITH) or isinstance(v.type, PtrType):
        return False
    return depth > 0 and all(
        o in env or recomputable(o, env, depth - 1) for o in owner.operands
    )


def is_constant(v: SSAValue) -> bool:
    """`v` is an `arith.constant`: it has no adjoint to keep."""
    return isinstance(v.owner, arith.ConstantOp)


def _generated(op: Operation) -> bool:
    return isinstance(op, DeferredCallOp) and op.job.generator_name is not None


def take(adj: Adj, v: SSAValue) -> SSAValue | None:
    """`v`'s adjoint, taken out of `adj` (None: it has none)."""
    return adj.pop(v, None)


class PrimalSweep:
    def __init__(self, source: FuncOp, seed: bool, always_inline: bool):
        self.original = source
        self.source = with_while_conditions_rotated(
            with_allocations_hoisted(
                with_pointer_calls_inlined(with_indirect_calls_resolved(source), source)
            )
        )
        self.always_inline = always_inline
        self.seed = seed
        self.shadows: dict[SSAValue, SSAValue] = {}
        """Source pointer -> its shadow, for arguments and allocations."""
        self.recomputed = Recomputed(self.source)
        self.replaying = False
        """Replaying loop-carried values: registers only, no memory writes."""
        self.count_keys: dict[Operation, SSAValue] = {}
        """scf.while -> the stand-in under which envs hold its iteration count."""

    def count_key(self, op: Operation) -> SSAValue:
        if op not in self.count_keys:
            self.count_keys[op] = Block(arg_types=[IndexType()]).args[0]
        return self.count_keys[op]

    # -- helpers ------------------------------------------------------------

    def accumulate(self, adj: Adj, v: SSAValue, term: SSAValue, b: Emitter) -> None:
        if not is_float(v.type) or is_constant(v):
            return
        adj[v] = b.accumulate(adj.get(v), term)

    def value(self, v: SSAValue, env: Env, b: Emitter, where: Operation) -> SSAValue:
        """`v`'s primal value where `b` emits: from `env`, or recomputed when it
        is a pointer made from others (pointers are not cached) or integer
        arithmetic on values `env` has (`recomputable`)."""
        found = env.get(v)
        if found is not None:
            return found
        owner = v.owner
        if isinstance(owner, OffsetOp | AddrSpaceCastOp) or recomputable(v, env):
            assert isinstance(owner, Operation)
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
        new = b.op(op.clone(value_mapper=mapper(op, env)))
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
            space = root_of(op.ptr)[1] if isinstance(op, StoreOp) else None
            if isinstance(op, StoreOp) and (
                space is None or (self.replaying and space != AddressSpace.LOCAL)
            ):
                # Memory the caller sees: written once, by the primal sweep;
                # a replay writes the thread's own private memory only.
                return None
            if isinstance(op, BarrierOp) and self.replaying:
                return None
            if is_call(op) and any(isinstance(v.type, PtrType) for v in op.operands):
                raise self.call_with_pointers(op)
        if self.always_inline and is_call(op) and not _generated(op):
            return self.inlined_call(op, b, env, recompute)
        new = self.copy(op, b, env, recompute)
        if recompute and isinstance(op, scf.ForOp):
            self.recomputed.strip(new, op)
        return None

    def inlined_call(
        self, op: Operation, b: Emitter, env: Env, recompute: bool
    ) -> None:
        """A call in a derivative marked always-inline: the callee as an
        always-inline helper job (so nothing of it is left after inlining),
        unless the callee is `no_inline`."""
        name, hint = callee(op, MODE)
        found = function_named(self.original, name)
        if hint is None and found is not None and found.inline_hint is None:
            hint = InlineHint.ALWAYS_INLINE
        if hint != InlineHint.ALWAYS_INLINE:
            self.copy(op, b, env, recompute)
            return
        args = [self.value(v, env, b, op) for v in op.operands]
        call = DeferredCallOp(name, JobAttr(Role.HELPER, hint), args, op.result_types)
        call.location = op.location
        b.op(call)
        for old, res in zip(op.results, call.results, strict=True):
            res.name_hint = old.name_hint
            env[old] = res
        if recompute:
            self.recomputed.add(call, op)

    def allocation(
        self, op: SharedAllocOp | PrivateAllocOp, b: Emitter, env: Env
    ) -> None:
        # Nested allocations were hoisted (inlining.with_allocations_hoisted).
        assert op.parent_block() is self.source.body.block
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
                cached[k] = [
                    v
                    for v in own
                    if not isinstance(v.type, PtrType | FuncPtrType)
                    and not recomputable(v, env)
                ]
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
        # Other conditions were rotated (inlining.with_while_conditions_rotated).
        assert list(cond.args) == list(before_src.args)
        index = IndexType()
        mapping = mapper(op, env)
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

    def call_with_pointers(self, op: Operation) -> OpError:
        return OpError(
            op,
            f"autodiff ({MODE} mode) differentiates calls of helpers that take no "
            "pointers (their derivative is a job of its own); make the helper "
            "take and return values, or write its body into this function",
        )
