"""Which values of a barrier kernel are the same for every thread of a block
(uniform) and which may differ (varying), for the native target's work-group
functions (gpuc/targets/native/work_groups.py).

Uniform values are computed once per block, outside the loops over the
block's threads; varying values live in registers inside one such loop, or,
when they are live across a barrier, in per-thread context storage. A value
is *thread-dependent* when it is computed from a thread index by pure ops: a
barrier under such a condition is one that not every thread reaches, which
the target reports at compile time. Varying values that are not
thread-dependent (loaded from memory, returned by a call) are checked for
agreement when the block runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from gpuc.dialects.functions import CallIndirectOp, CallOp
from gpuc.dialects.index import (
    BarrierOp,
    BlockDimOp,
    BlockIdOp,
    GlobalIdOp,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from gpuc.dialects.memory import SharedAllocOp
from gpuc.dialects.subgroup import COLLECTIVE_OPS

THREAD_INDEX_OPS = (ThreadIdOp, GlobalIdOp, LaneIdOp)
BLOCK_UNIFORM_OPS = (BlockIdOp, BlockDimOp, GridDimOp, SharedAllocOp)


VALUE_DIALECTS = ("arith", "math")
"""Dialects whose ops compute their results from their operands alone (xDSL
does not give every one of them a memory-effect trait, e.g. arith.remui)."""


def computes_only(op: Operation) -> bool:
    """`op` reads and writes no memory: its results depend on its operands."""
    return is_side_effect_free(op) or (
        not op.regions and op.dialect_name() in VALUE_DIALECTS
    )


class Uniformity:
    """The varying and thread-dependent values of the blocks classified.

    `split` says which ops with regions the work-group function runs at the
    block level (their results may be uniform); the results of every other
    such op are computed inside a loop over the threads, so they are varying
    whatever they compute.
    """

    def __init__(self, split: Callable[[Operation], bool]) -> None:
        self.split = split
        self.varying: set[SSAValue] = set()
        self.thread_dependent: set[SSAValue] = set()

    def is_varying(self, value: SSAValue) -> bool:
        return value in self.varying

    def _mark(self, value: SSAValue, varying: bool, dependent: bool) -> bool:
        """Classify `value` (only ever upwards); True if that changed it."""
        changed = False
        if varying and value not in self.varying:
            self.varying.add(value)
            changed = True
        if dependent and value not in self.thread_dependent:
            self.thread_dependent.add(value)
            changed = True
        return changed

    def like(self, target: SSAValue, sources: Iterable[SSAValue], forced: bool) -> bool:
        """`target` is as varying as any of `sources` (or varying if `forced`)."""
        sources = list(sources)
        varying = forced or any(s in self.varying for s in sources)
        dependent = any(s in self.thread_dependent for s in sources)
        return self._mark(target, varying, dependent)

    def update(self, other: Uniformity) -> None:
        self.varying |= other.varying
        self.thread_dependent |= other.thread_dependent

    def classify(self, block: Block) -> None:
        """Classify the values `block`'s ops define (its arguments first)."""
        for op in block.ops:
            self._op(op)

    def _control(self, values: Iterable[SSAValue]) -> tuple[bool, bool]:
        values = list(values)
        return (
            any(v in self.varying for v in values),
            any(v in self.thread_dependent for v in values),
        )

    def _agreed(self, op: Operation, control: list[SSAValue]) -> tuple[bool, bool]:
        """Whether `op`'s control (condition, selector, bounds) makes what it
        computes varying, and thread-dependent. An op run at the block level
        branches once for all threads, on a value they are checked to agree
        on (or that is a diagnostic if thread-dependent), so its control makes
        nothing varying there."""
        varying, dependent = self._control(control)
        return varying and not self.split(op), dependent

    def _op(self, op: Operation) -> None:
        self._classify_op(op)
        if op.regions and not self.split(op):
            for r in op.results:
                self._mark(r, True, False)

    def _classify_op(self, op: Operation) -> None:
        if isinstance(op, THREAD_INDEX_OPS):
            for r in op.results:
                self._mark(r, True, True)
        elif isinstance(op, BLOCK_UNIFORM_OPS):
            pass
        elif isinstance(op, scf.IfOp | scf.IndexSwitchOp):
            self._branches(op)
        elif isinstance(op, scf.ForOp):
            self._for(op)
        elif isinstance(op, scf.WhileOp):
            self._while(op)
        elif isinstance(op, scf.ExecuteRegionOp) and len(op.region.blocks) == 1:
            body = op.region.block
            self.classify(body)
            terminator = body.last_op
            assert terminator is not None
            for result, value in zip(op.results, terminator.operands, strict=True):
                self.like(result, [value], False)
        elif op.regions or isinstance(op, CallOp | CallIndirectOp):
            # Other regions, and helpers (which may read the thread index):
            # varying, but not provably thread-dependent.
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        self._mark(arg, True, False)
                    self.classify(block)
            for r in op.results:
                self._mark(r, True, False)
        else:
            pure = computes_only(op)
            for r in op.results:
                if pure:
                    self.like(r, op.operands, False)
                else:  # what memory holds is not a function of the index
                    self._mark(r, True, False)

    def _branches(self, op: scf.IfOp | scf.IndexSwitchOp) -> None:
        selector = op.cond if isinstance(op, scf.IfOp) else op.arg
        varying, dependent = self._agreed(op, [selector])
        for region in op.regions:
            for block in region.blocks:
                self.classify(block)
                terminator = block.last_op
                assert terminator is not None
                for result, value in zip(op.results, terminator.operands, strict=True):
                    self.like(result, [value], varying)
                    if dependent:
                        self._mark(result, True, True)

    def _loop(
        self,
        args: list[SSAValue],
        inits: list[SSAValue],
        body: list[Block],
        carried: list[SSAValue] | None = None,
    ) -> None:
        """A fixed point: loop-carried `args` are as varying as their `inits`
        and as what the loop carries back (`carried`, read after classifying
        `body`, or the terminator of the last body block)."""
        for arg, init in zip(args, inits, strict=True):
            self.like(arg, [init], False)
        while True:
            for block in body:
                self.classify(block)
            back = carried
            if back is None:
                terminator = body[-1].last_op
                assert terminator is not None
                back = list(terminator.operands)
            changed = False
            for arg, value in zip(args, back, strict=True):
                changed |= self.like(arg, [value], False)
            if not changed:
                return

    def _for(self, op: scf.ForOp) -> None:
        varying, dependent = self._agreed(op, [op.lb, op.ub, op.step])
        body = op.body.block
        iv, *iter_args = body.args
        self._mark(iv, varying, dependent)
        for arg in iter_args:
            self._mark(arg, varying, dependent)
        self._loop(list(iter_args), list(op.iter_args), [body])
        for result, arg in zip(op.results, iter_args, strict=True):
            self.like(result, [arg], False)

    def _while(self, op: scf.WhileOp) -> None:
        before, after = op.before_region.block, op.after_region.block
        condition = before.last_op
        assert isinstance(condition, scf.ConditionOp)
        while True:
            self._loop(list(before.args), list(op.arguments), [before, after])
            varying, dependent = self._agreed(op, [condition.condition])
            changed = False
            for arg, result, value in zip(
                after.args, op.results, condition.args, strict=True
            ):
                changed |= self.like(arg, [value], varying)
                changed |= self.like(result, [value], varying)
                if dependent:
                    changed |= self._mark(arg, True, True)
                    changed |= self._mark(result, True, True)
            if varying:
                for arg in before.args:
                    changed |= self._mark(arg, True, dependent)
            if not changed:
                return


def first_barrier(op: Operation, barrier_helpers: set[str]) -> Operation:
    """The first barrier or subgroup collective `op` reaches (itself, a nested
    one, or a call to a helper that reaches one), to locate a diagnostic at."""
    for inner in op.walk():
        if isinstance(inner, (BarrierOp, *COLLECTIVE_OPS)):
            return inner
        if (
            isinstance(inner, CallOp)
            and inner.callee.root_reference.data in barrier_helpers
        ):
            return inner
    return op
