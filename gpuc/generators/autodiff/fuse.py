"""One `scf.if` where the reverse derivative has two on one condition.

The primal sweep of a kernel guarded by `scf.if %in { ... }` is that
`scf.if` (yielding its cache), and the adjoint sweep another `scf.if %in`
right after it. Fused into one, the derivative has the shape of the kernel
again: on native, a barrier-free kernel whose body is one guarded `scf.if`
runs its threads below the bound only (gpuc/targets/thread_guards.py),
instead of masking every load and store of its vectorized thread loop.
Ops that touch no memory between the two move before the first; results
that nothing uses are dropped.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, Region, SSAValue, Use

from gpuc.generators.autodiff.memory import is_ancestor


def fuse_ifs(block: Block, pure: Callable[[Operation], bool]) -> None:
    """Fuse each `scf.if` of `block` with the next one on the same condition
    when only ops `pure` says touch no memory stand between them."""
    op = block.first_op
    while op is not None:
        if isinstance(op, scf.IfOp):
            between: list[Operation] = []
            after = op.next_op
            while after is not None and not isinstance(after, scf.IfOp):
                if not pure(after) or any(v.owner is op for v in after.operands):
                    break
                between.append(after)
                after = after.next_op
            if isinstance(after, scf.IfOp) and after.cond is op.cond:
                for moved in between:
                    block.detach_op(moved)
                    block.insert_op_before(moved, op)
                op = _fuse(op, after, pure)
                continue
        op = op.next_op


def _inside(use: Use, op: Operation) -> bool:
    return is_ancestor(op, use.operation)


def _within(region: Region) -> Callable[[Use], bool]:
    return lambda use: _in_region(use, region)


def _in_region(use: Use, region: Region) -> bool:
    current: Operation | None = use.operation
    while current is not None:
        if current.parent_region() is region:
            return True
        current = current.parent_op()
    return False


def _fuse(
    first: scf.IfOp, second: scf.IfOp, pure: Callable[[Operation], bool]
) -> scf.IfOp:
    keep_first = [
        r for r in first.results if any(not _inside(u, second) for u in r.uses)
    ]
    keep_second = [r for r in second.results if r.uses]
    regions: list[Region] = []
    for a, b in (
        (first.true_region, second.true_region),
        (first.false_region, second.false_region),
    ):
        merged = Block()
        yielded: dict[SSAValue, SSAValue] = {}
        for region, results in ((a, first.results), (b, second.results)):
            if not region.blocks:
                continue
            inner = region.block
            term = inner.last_op
            assert isinstance(term, scf.YieldOp)
            values = list(term.operands)
            yielded.update(zip(results, values, strict=True))
            if region is a:
                for r, v in zip(first.results, values, strict=True):
                    r.replace_uses_with_if(v, _within(b))
            for o in list(inner.ops):
                inner.detach_op(o)
                if o is not term:
                    merged.add_op(o)
            term.erase()
        outs = [yielded[r] for r in (*keep_first, *keep_second) if r in yielded]
        used = set(outs)
        for o in reversed(list(merged.ops)):  # the dropped results' values
            if (
                pure(o)
                and not o.regions
                and not any(r.uses or r in used for r in o.results)
            ):
                merged.erase_op(o)
        if merged.ops or outs or not regions:
            merged.add_op(scf.YieldOp(*outs))
            regions.append(Region(merged))
    fused = scf.IfOp(
        first.cond,
        [r.type for r in (*keep_first, *keep_second)],
        regions[0],
        regions[1] if len(regions) > 1 else None,
    )
    fused.location = first.location
    parent = first.parent_block()
    assert parent is not None
    parent.insert_op_before(fused, first)
    for r, new in zip((*keep_first, *keep_second), fused.results, strict=True):
        r.replace_all_uses_with(new)
    parent.erase_op(second)
    parent.erase_op(first)
    return fused
