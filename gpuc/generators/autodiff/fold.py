"""Reverse mode: a loop's primal sweep folded into its adjoint sweep.

The reverse derivative of `pre; L; post` (L an `scf.for` in the function's
own block) is `pre; L; post; adjoint(post); reversed(L); adjoint(pre)`,
where the reversed loop recomputes each iteration. When the adjoint of
`post` needs nothing that L or `post`'s effects make, and the adjoint of
each iteration of L passes its loop-carried adjoints through unchanged (a
sum's `s2 = s + p`: every iteration then sees the same seeds, in any
order), it is instead

    pre; adjoint(post); for i { L's body; its adjoint }; post; adjoint(pre)

one loop in forward order whose iterations run the primal body and then its
adjoint, on the values of that same iteration (matmul's tiles are loaded
once, with one set of barriers, and the product is not done twice). It is
right when the orders it changes do not matter:

- `adjoint(post)` moves before L and before `post`: `post` has no loop, no
  call and no barrier inside an op, and touches memory (arguments and
  allocations, by root) that L does not touch at all; its adjoint touches
  only the shadows of `post`'s memory and reads only values made before L
  (integer and float arithmetic of `post` that needs nothing of L runs
  before L);
- the adjoint of iteration i moves before the primal of iterations after i
  and the adjoints run in forward order: L writes only shared or private
  allocations, with stores directly in its body at addresses made before
  it (an atomic, a store under a condition or at an address that changes
  with the iteration may leave what a later iteration reads), and every
  load in L of an allocation L writes comes after all of those writes in
  the body: what is read was written in the same iteration, so each
  iteration's adjoint collects in the shadow exactly what its own loads
  added; shadow adds are sums in any order; the loop-carried adjoints are
  checked, once generated, to pass through unchanged (through
  inner loops too), else the loop is reversed as usual.
"""

from __future__ import annotations

import functools
from collections import ChainMap
from collections.abc import Callable, Sequence

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, OpResult, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.functions import CallIndirectOp, CallOp
from gpuc.dialects.index import BarrierOp, DimIndexOp
from gpuc.dialects.memory import (
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    StoreOp,
)
from gpuc.generators.autodiff.accumulate import Accumulations, defined_inside
from gpuc.generators.autodiff.common import is_call
from gpuc.generators.autodiff.loops import LoopAdjoints
from gpuc.generators.autodiff.memory import root_of
from gpuc.generators.autodiff.rules import Emitter, is_float
from gpuc.generators.autodiff.sweep import Adj, Env, free_floats, take

ACCESSES = (LoadOp, StoreOp, AtomicRMWOp, AtomicCmpXchgOp)
WRITES = (StoreOp, AtomicRMWOp, AtomicCmpXchgOp)


def pure(op: Operation) -> bool:
    """Integer, float and index arithmetic, thread and launch indices."""
    return (
        not op.regions
        and op.dialect_name() in ("arith", "math")
        or isinstance(op, DimIndexOp | OffsetOp)
    )


def _roots(ops: Sequence[Operation]) -> set[SSAValue] | None:
    """The arguments and allocations `ops` access (None: one is unknown)."""
    roots: set[SSAValue] = set()
    for op in ops:
        for inner in op.walk():
            if isinstance(inner, ACCESSES):
                root = root_of(inner.ptr)[0]
                if root is None:
                    return None
                roots.add(root)
    return roots


def _top(op: Operation, block: Block) -> Operation:
    current = op
    while current.parent_block() is not block:
        parent = current.parent_op()
        assert parent is not None
        current = parent
    return current


def foldable(loop: scf.ForOp, post: Sequence[Operation]) -> bool:
    """Whether the memory effects allow folding `loop`, followed in its block
    by `post`, into its adjoint (the module's doc)."""
    for op in post:
        for inner in op.walk():
            if (inner is not op and isinstance(inner, BarrierOp)) or (
                isinstance(inner, scf.ForOp | scf.WhileOp | CallOp | CallIndirectOp)
                or is_call(inner)
            ):
                return False
    mine, theirs = _roots([loop]), _roots(post)
    if mine is None or theirs is None or mine & theirs:
        return False
    body = loop.body.block
    written: dict[SSAValue, list[Operation]] = {}
    for inner in loop.walk():
        if isinstance(inner, scf.WhileOp):
            return False
        if isinstance(inner, WRITES):
            root, space = root_of(inner.ptr)
            if root is None or space is None or not isinstance(inner, StoreOp):
                # An argument's memory (or unknown), or an atomic: it reads
                # what earlier iterations left.
                return False
            if _top(inner, body) is not inner or any(
                defined_inside(v, loop) for v in inner.operands[1:]
            ):
                # Under a condition, in an inner loop, or at an address that
                # changes from one iteration to the next: an iteration may
                # read what an earlier one wrote.
                return False
            written.setdefault(root, []).append(inner)
    for inner in loop.walk():
        if isinstance(inner, LoadOp):
            root = root_of(inner.ptr)[0]
            if root in written:
                here = body.get_operation_index(_top(inner, body))
                if any(body.get_operation_index(w) >= here for w in written[root]):
                    return False
    return True


def passed_through(value: SSAValue | None) -> SSAValue | None:
    """`value`, seen through the results of loops that yield their block
    argument unchanged at that place (the result is then the init)."""
    while isinstance(value, OpResult) and isinstance(value.op, scf.ForOp):
        loop, i = value.op, value.index
        y = loop.body.block.last_op
        assert isinstance(y, scf.YieldOp)
        if y.arguments[i] is not loop.body.block.args[1 + i]:
            break
        value = loop.iter_args[i]
    return value


class FoldedLoops(LoopAdjoints):
    def adjoint_op(self, op: Operation, b: Emitter, env: Env, adj: Adj) -> None:
        raise NotImplementedError  # the adjoint sweep: reverse.py

    @functools.cached_property
    def accumulations(self) -> Accumulations:
        return Accumulations()

    def swept(
        self,
        block: Block,
        b: Emitter,
        env: Env,
        adj: Adj,
        seed: Callable[[Operation, Emitter], None],
    ) -> tuple[Operation, Env]:
        """The primal and the adjoint sweep of `block` (a function's body, or
        a folded loop's), its last `scf.for` folded where it may be; `seed`
        seeds `adj` with the adjoints of what its terminator passes on.
        Returns the terminator and the environment its values are in."""
        ops = list(block.ops)
        terminator = ops[-1]
        split = self.fold_split(block)
        primal = ops[:-1] if split is None else ops[:split]
        for op in primal:
            self.primal_op(op, b, env, recompute=False)
        seed(terminator, b)
        folded = None
        if split is not None:
            loop = ops[split]
            assert isinstance(loop, scf.ForOp)
            folded = self.folded(loop, ops[split + 1 : -1], b, env, adj)
        if folded is None:
            for op in ops[len(primal) : -1]:
                self.primal_op(op, b, env, recompute=False)
            self.adjoint_ops(block, b, env, adj)
            return terminator, env
        late, env = folded
        for op in late:
            self.primal_op(op, b, env, recompute=False)
        for op in reversed(primal):
            self.adjoint_op(op, b, env, adj)
        return terminator, env

    def fold_split(self, block: Block) -> int | None:
        """The index in `block` of the last `scf.for` that may be folded into
        its adjoint, as far as memory tells (`foldable`)."""
        ops = list(block.ops)
        for k in range(len(ops) - 2, -1, -1):
            op = ops[k]
            if isinstance(op, scf.ForOp):
                return k if foldable(op, ops[k + 1 : -1]) else None
            if not pure(op) and not isinstance(op, scf.IfOp | BarrierOp):
                return None
        return None

    def folded(
        self, loop: scf.ForOp, post: list[Operation], b: Emitter, env: Env, adj: Adj
    ) -> tuple[list[Operation], Env] | None:
        """Emit, at `b`, what of `post` needs nothing of `loop`, the adjoint of
        `post` (seeding `adj`), and `loop` folded into its adjoint; return the
        ops of `post` left to emit after it, and the environment to go on
        with. None (nothing emitted, nothing changed) where the folding is
        not right (the module's doc)."""
        groups, opened = len(self.recomputed.groups), len(self.recomputed.opened)
        updates, replaying = dict(self.accumulations.updates), self.replaying
        scratch = Block()
        inner_b = Emitter(scratch)
        fenv: Env = ChainMap({}, env)
        fadj: Adj = dict(adj)
        try:
            late = self._emit_early(loop, post, inner_b, fenv)
            for op in reversed(post):
                self.adjoint_op(op, inner_b, fenv, fadj)
            if not self._fold_loop(loop, inner_b, fenv, fadj):
                raise _NotFoldable
        except (OpError, _NotFoldable):
            del self.recomputed.groups[groups:]
            del self.recomputed.opened[opened:]
            self.accumulations.updates, self.replaying = updates, replaying
            return None
        for op in list(scratch.ops):
            scratch.detach_op(op)
            b.op(op)
        adj.clear()
        adj.update(fadj)
        return late, fenv

    def _emit_early(
        self, loop: scf.ForOp, post: list[Operation], b: Emitter, env: Env
    ) -> list[Operation]:
        """Emit the pure ops of `post` that need no value of `loop` or of the
        other ops of `post`; return the others."""
        late: list[Operation] = []
        waiting: set[SSAValue] = set(loop.results)
        for op in post:
            if pure(op) and not any(v in waiting for v in op.operands):
                self.primal_op(op, b, env, recompute=False)
            else:
                late.append(op)
                waiting.update(op.results)
        return late

    def _fold_loop(self, loop: scf.ForOp, b: Emitter, env: Env, adj: Adj) -> bool:
        src = loop.body.block
        floats = [i for i, a in enumerate(loop.iter_args) if is_float(a.type)]
        seeds = [take(adj, loop.results[i]) for i in floats]
        free = free_floats(loop)
        inits = [self.value(v, env, b, loop) for v in loop.iter_args]
        accs = [take(adj, v) or b.zero(v.type) for v in free]
        block = Block(arg_types=[a.type for a in src.args] + [v.type for v in free])
        inner = Emitter(block)
        benv: Env = ChainMap(dict(zip(src.args, block.args, strict=False)), env)
        inner_adj: Adj = {}
        carried_accs = block.args[len(src.args) :]

        def seed_yield(y: Operation, at: Emitter) -> None:
            for i, seed in zip(floats, seeds, strict=True):
                if seed is not None:
                    self.accumulate(inner_adj, y.operands[i], seed, at)
            for v, acc in zip(free, carried_accs, strict=True):
                self.accumulate(inner_adj, v, acc, at)

        y, benv = self.swept(src, inner, benv, inner_adj, seed_yield)
        assert isinstance(y, scf.YieldOp)
        yielded = [self.value(v, benv, inner, y) for v in y.arguments]
        for i, seed in zip(floats, seeds, strict=True):
            if passed_through(inner_adj.get(src.args[1 + i])) is not seed:
                return False
        out = [inner_adj.get(v) or inner.zero(v.type) for v in free]
        inner.op(scf.YieldOp(*yielded, *out))
        lb, ub, step = (
            self.value(v, env, b, loop) for v in (loop.lb, loop.ub, loop.step)
        )
        new = b.op(scf.ForOp(lb, ub, step, [*inits, *accs], block))
        for r, res in zip(loop.results, new.results, strict=False):
            env[r] = res
        for i, seed in zip(floats, seeds, strict=True):
            if seed is not None:
                self.accumulate(adj, loop.iter_args[i], seed, b)
        for v, r in zip(free, new.results[len(loop.results) :], strict=True):
            self.accumulate(adj, v, r, b)
        return True


class _NotFoldable(Exception):
    """The loop's carried adjoints do not pass through unchanged."""
