"""Reverse mode: the function (the primal sweep), then the adjoint sweep.

The primal sweep copies the function. Values the adjoint sweep needs are
kept in registers: those of the function's own block directly, those made
inside an `scf.if` as extra results of the `scf.if` (its cache). A loop is
reversed by running its iterations backwards and *recomputing* each one's
values from its induction variable (and, when the adjoint needs them, its
loop-carried values, replayed from the start: quadratic in the trip count).
A recomputed load must read what the primal read: memory.py checks that and
refuses the function otherwise. `scf.while` counts its iterations. The
primal sweep is sweep.py, the adjoint of loops loops.py.

Adjoints of floating-point values live in registers; adjoints of memory live
in shadows: a load's adjoint is added to its shadow, a store's adjoint reads
and zeroes it. Shadow additions are atomic except where only this thread
updates the address (writers.py: the single-writer rule). Shared
allocations get zeroed shadow allocations; barriers are replayed in reverse
order. A call asks for the callee's reverse derivative with `seed = true` as
a job of its own.
"""

from __future__ import annotations

import functools
from collections import ChainMap

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, UnitAttr
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Block, Operation, Region, SSAValue

from gpuc.dialects.attrs import AddressSpace, AtomicKind, Dim, PtrType
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.index import BarrierOp, BlockDimOp, DimIndexOp, GridDimOp
from gpuc.dialects.memory import (
    REGROUPED,
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.generators.autodiff.common import (
    check_bitcast,
    derivative_call,
    involves_floats,
    is_call,
    no_rule,
)
from gpuc.generators.autodiff.conventions import (
    check_source,
    check_types,
    is_duplicated,
    reverse_type,
)
from gpuc.generators.autodiff.fold import FoldedLoops
from gpuc.generators.autodiff.fuse import fuse_ifs
from gpuc.generators.autodiff.memory import root_of
from gpuc.generators.autodiff.rules import (
    CONSTANTS_FROM_INTEGERS,
    CONVERSIONS,
    RULES,
    Emitter,
    is_float,
)
from gpuc.generators.autodiff.sweep import MODE, Adj, Env, free_floats
from gpuc.generators.autodiff.writers import SingleWriter


class Reverse(FoldedLoops):
    def build(self, name: str) -> FuncOp:
        source_type = self.source.function_type
        check_source(self.source)
        new_type = reverse_type(source_type, self.seed)
        body = Block(arg_types=new_type.inputs.data)
        self.entry = body
        self.conditions: dict[tuple[tuple[Dim, ...], bool], SSAValue] = {}
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
        adj: Adj = {}

        def seed(terminator: Operation, at: Emitter) -> None:
            assert isinstance(terminator, ReturnOp)
            for v in terminator.arguments:
                if is_float(v.type):
                    value = next(args) if self.seed else at.const(1.0, v.type)
                    self.accumulate(adj, v, value, at)

        self.swept(self.source.body.block, b, env, adj, seed)
        results = [adj.get(a) or b.zero(a.type) for a in src_args if is_float(a.type)]
        b.op(ReturnOp(*results))
        self.recomputed.finish(body)
        drop_repeated_barriers(body)
        fuse_ifs(body, _no_memory)
        func = FuncOp(name, new_type, self.source.role.data, Region(body))
        self.accumulations.hoist()
        return func

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
        free = frozenset() if self.single_writer(op) else self.writers.free_dims(op)
        if free is None:
            atomic_add = b.op(regrouped_add(shadow, value, index))
            self.accumulations.add(atomic_add, value, shadow)
            return
        if not free:
            plain_add(shadow, index, value, b)
            return
        # Plain where the launch has one thread in the dimensions the index
        # does not tell apart, atomic otherwise: a uniform branch.
        plain, atomic = Block(), Block()
        plain_add(shadow, index, value, Emitter(plain))
        Emitter(plain).op(scf.YieldOp())
        Emitter(atomic).op(regrouped_add(shadow, value, index))
        Emitter(atomic).op(scf.YieldOp())
        shared = root_of(op.ptr)[1] == AddressSpace.SHARED
        cond = self.one_thread(tuple(sorted(free)), shared)
        branch = b.op(scf.IfOp(cond, [], Region(plain), Region(atomic)))
        self.accumulations.add(branch, value, shadow)

    @functools.cached_property
    def writers(self) -> SingleWriter:
        return SingleWriter(self.source)

    def one_thread(self, dims: tuple[Dim, ...], shared: bool) -> SSAValue:
        """Whether the launch's extents (blocks times threads; threads only,
        `shared`) in `dims` are all 1: computed once, at the function's
        start (so that an update using it can leave a loop)."""
        key = (dims, shared)
        if key in self.conditions:
            return self.conditions[key]
        first = self.entry.first_op
        b = Emitter(self.entry, first) if first is not None else Emitter(self.entry)
        extent = None
        for dim in dims:
            ops = (BlockDimOp(dim),) if shared else (GridDimOp(dim), BlockDimOp(dim))
            for op in ops:
                v = b.value(op)
                extent = v if extent is None else b.value(arith.MuliOp(extent, v))
        assert extent is not None
        cond = b.value(arith.CmpiOp(extent, b.int_const(1, IndexType()), "eq"))
        self.conditions[key] = cond
        return cond

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


NO_SIGNED_ZEROS = arith.FastMathFlagsAttr([FastMathFlag.NO_SIGNED_ZEROS])


def regrouped_add(
    shadow: SSAValue, value: SSAValue, index: SSAValue | None
) -> AtomicRMWOp:
    """shadow[index] += value, atomically; `gpuc.regrouped`: an adjoint is a
    sum of its contributions in no particular order or grouping (the native
    target adds a launch's into one copy of the shadow per OS thread, and
    sums the copies after it: gpuc/targets/native/private_sums.py)."""
    add = AtomicRMWOp(AtomicKind.ADD, shadow, value, index)
    add.attributes[REGROUPED] = UnitAttr()
    return add


def plain_add(
    shadow: SSAValue, index: SSAValue | None, value: SSAValue, b: Emitter
) -> None:
    """shadow[index] += value, a plain read-add-write. The add ignores the
    sign of zero (`nsz`), so that a shadow a store's adjoint has just zeroed
    and this adds back to is left as it was (`0 + d` is `d`; LLVM then drops
    the store of the value loaded)."""
    old = b.value(LoadOp(shadow, index))
    new = b.value(arith.AddfOp(old, value, NO_SIGNED_ZEROS))
    b.op(StoreOp(new, shadow, index))


def drop_repeated_barriers(body: Block) -> None:
    """Erase a barrier that follows another with nothing between them but
    ops that touch no memory (a recomputed loop body ends with the barrier
    its adjoint starts with): one barrier orders the same, and on a target
    that runs a block's threads in a loop (native), each is a pass more."""
    for op in list(body.walk()):
        if not isinstance(op, BarrierOp):
            continue
        prev = op.prev_op
        while prev is not None and _no_memory(prev):
            prev = prev.prev_op
        if isinstance(prev, BarrierOp):
            block = op.parent_block()
            assert block is not None
            block.erase_op(op)


def _no_memory(op: Operation) -> bool:
    """Integer, float and index arithmetic, thread and launch indices."""
    return (
        not op.regions
        and op.dialect_name() in ("arith", "math")
        or isinstance(op, DimIndexOp)
    )
