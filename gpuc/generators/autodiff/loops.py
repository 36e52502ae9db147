"""Reverse mode's adjoint of loops: the iterations run backwards, each
recomputed from its induction variable; loop-carried values the adjoint
needs are replayed from the loop's start on registers (quadratic in the trip
count; memory.py prunes what the adjoint does not read). `scf.while` runs
backwards over the iteration count its primal sweep kept.
"""

from __future__ import annotations

from collections import ChainMap

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, SSAValue

from gpuc.generators.autodiff.rules import (
    Emitter,
    is_float,
)
from gpuc.generators.autodiff.sweep import Adj, Env, PrimalSweep, free_floats, take


class LoopAdjoints(PrimalSweep):
    def adjoint_ops(self, block: Block, b: Emitter, env: Env, adj: Adj) -> None:
        raise NotImplementedError  # the adjoint sweep: reverse.py

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
        inits = seeds + [take(adj, v) or b.zero(v.type) for v in free]
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
        seeds = [take(adj, op.results[i]) or b.zero(op.results[i].type) for i in floats]
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
        """Copy `src`'s ops (without atomics, barriers, or stores other than to
        private memory) into `block` with `src`'s arguments as `args`; return
        its yielded values."""
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
        seeds = [take(adj, op.results[i]) or b.zero(op.results[i].type) for i in floats]
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
