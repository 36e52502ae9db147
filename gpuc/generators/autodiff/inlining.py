"""What the modes do to the function before they differentiate it.

Both call a function pointer they can trace as they call the function: an
indirect call through `gpuc.func_addr @f` is `gpuc.call @f`, one through
`gpuc.deferred_addr @f #job` is `gpuc.deferred_call @f #job` (what calling
the job's address does), so the callee's derivative is a job of its own, as
for any call. A function pointer from anywhere else (an argument, a select,
memory) stays a call `autodiff` has no rule for.

The rest is reverse mode's.

It inlines the calls of helpers that take pointers: such a call's effects on
memory would run twice if the helper's derivative were a job of its own (its
primal call, then its derivative), so its body joins the function being
differentiated. Helpers that take values only stay calls, and their
derivatives jobs of their own.

It then hoists the allocations made inside `scf` regions (an `scf.if`, a
loop's body, an inlined helper's) to the top of the function, where their
shadows can be made and zeroed once for the adjoint sweep, which visits the
regions in other places. An allocation's size is static and its memory is
undefined until written, so one allocation at the top is what each
execution of the nested one would have given: the memory a loop iteration
writes before it reads, as a recomputed load requires (memory.py).

And it rotates each `scf.while` whose `scf.condition` passes on values other
than the carried ones (what the adjoint of a while loop expects: the carried
values, unchanged): the `before` region, which must not write memory, is run
again at the start of the `do` region and after the loop to make the values
it passed on, and the condition passes the carried values.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import PtrType
from gpuc.dialects.deferred import DeferredAddrOp, DeferredCallOp
from gpuc.dialects.functions import CallIndirectOp, CallOp, FuncAddrOp, FuncOp
from gpuc.dialects.index import BarrierOp
from gpuc.dialects.memory import (
    AtomicCmpXchgOp,
    AtomicRMWOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.generators.autodiff.common import function_named, is_call
from gpuc.transforms.inliner import inline_call

MAX_DEPTH = 16
"""Rounds of inlining before a chain of pointer-taking helpers counts as
recursion."""


def _takes_pointers(op: Operation) -> bool:
    return is_call(op) and any(isinstance(v.type, PtrType) for v in op.operands)


def with_pointer_calls_inlined(source: FuncOp, near: FuncOp | None = None) -> FuncOp:
    """`source` itself when it calls no helper that takes pointers, else a
    copy (located as the original) with those calls inlined; callees are
    looked up next to `near` (default: `source`)."""
    if not any(_takes_pointers(op) for op in source.walk()):
        return source
    func = source.clone()
    for _ in range(MAX_DEPTH):
        calls = [op for op in func.walk() if _takes_pointers(op)]
        if not calls:
            return func
        for op in calls:
            inline_call(_plain(op), _callee(op, near or source))
    raise OpError(
        next(op for op in func.walk() if _takes_pointers(op)),
        f"autodiff (reverse mode) inlines the helpers that take pointers, and "
        f"this chain is deeper than {MAX_DEPTH} (recursion?); make the helper "
        "take and return values, so that its derivative is a job of its own",
    )


def _traceable(op: Operation) -> bool:
    return isinstance(op, CallIndirectOp) and isinstance(
        op.callee.owner, FuncAddrOp | DeferredAddrOp
    )


def with_indirect_calls_resolved(source: FuncOp) -> FuncOp:
    """`source` itself when it makes no indirect call it can trace, else a
    copy with those calls made direct (and addresses no longer used gone)."""
    if not any(_traceable(op) for op in source.walk()):
        return source
    func = source.clone()
    for op in [o for o in func.walk() if _traceable(o)]:
        assert isinstance(op, CallIndirectOp)
        address = op.callee.owner
        args, types = list(op.arguments), list(op.res.types)
        direct: Operation
        if isinstance(address, FuncAddrOp):
            direct = CallOp(address.callee.root_reference.data, args, types)
        else:
            assert isinstance(address, DeferredAddrOp)
            direct = DeferredCallOp(
                address.source.root_reference.data, address.job, args, types
            )
        direct.location = op.location
        Rewriter.replace_op(op, direct)
        if not address.result.uses:  # no value to carry: gone
            Rewriter.erase_op(address)
    return func


def with_allocations_hoisted(source: FuncOp) -> FuncOp:
    """`source` itself when every allocation is in its top block, else a
    copy with the nested ones moved to the top, in order."""
    top = source.body.block
    if all(
        op.parent_block() is top
        for op in source.walk()
        if isinstance(op, SharedAllocOp | PrivateAllocOp)
    ):
        return source
    func = source.clone()
    top = func.body.block
    nested = [
        op
        for op in func.walk()
        if isinstance(op, SharedAllocOp | PrivateAllocOp)
        and op.parent_block() is not top
    ]
    first = top.first_op
    assert first is not None
    for op in nested:
        block = op.parent_block()
        assert block is not None
        block.detach_op(op)
        top.insert_op_before(op, first)
    return func


def _forwards_other_values(op: Operation) -> bool:
    if not isinstance(op, scf.WhileOp):
        return False
    cond = op.before_region.block.last_op
    assert isinstance(cond, scf.ConditionOp)
    return list(cond.args) != list(op.before_region.block.args)


def with_while_conditions_rotated(source: FuncOp) -> FuncOp:
    """`source` itself when every `scf.while` condition passes on its carried
    values, else a copy with the others rotated (`_rotate`)."""
    if not any(_forwards_other_values(op) for op in source.walk()):
        return source
    func = source.clone()
    for op in [o for o in func.walk() if _forwards_other_values(o)]:
        _rotate(op)  # type: ignore[arg-type]
    return func


def _clone_ops(
    ops: list[Operation], into: Block, mapping: dict[SSAValue, SSAValue]
) -> None:
    for o in ops:
        new = o.clone(value_mapper=mapping)
        into.add_op(new)
        for r, n in zip(o.results, new.results, strict=True):
            mapping[r] = n


def _rotate(op: scf.WhileOp) -> None:
    """`while (s) { f = B(s); condition(c(s)) f } do { ^(f): yield A(f) }`
    as `while (s) { condition(c(s)) s } do { ^(s): yield A(B(s)) }`, then
    `B(s)` of its results for the original's results."""
    before, after = op.before_region.block, op.after_region.block
    cond = before.last_op
    assert isinstance(cond, scf.ConditionOp)
    body = [o for o in before.ops if o is not cond]
    for o in body:
        for inner in o.walk():
            if isinstance(
                inner, StoreOp | AtomicRMWOp | AtomicCmpXchgOp | BarrierOp
            ) or is_call(inner):
                raise OpError(
                    inner,
                    "autodiff (reverse mode) reverses an scf.while whose "
                    "scf.condition passes on other values than the carried ones "
                    "by computing them again, and this op of its 'before' region "
                    "writes memory or calls; compute it in the 'do' region",
                )
    types = [a.type for a in before.args]
    new_before = Block(arg_types=types)
    mapping: dict[SSAValue, SSAValue] = dict(
        zip(before.args, new_before.args, strict=True)
    )
    _clone_ops(body, new_before, mapping)
    new_before.add_op(
        scf.ConditionOp(mapping.get(cond.condition, cond.condition), *new_before.args)
    )
    new_after = Block(arg_types=types)
    mapping = dict(zip(before.args, new_after.args, strict=True))
    _clone_ops(body, new_after, mapping)
    for a, v in zip(after.args, cond.args, strict=True):
        mapping[a] = mapping.get(v, v)
    _clone_ops(list(after.ops), new_after, mapping)
    new = scf.WhileOp(op.arguments, types, Region(new_before), Region(new_after))
    new.location = op.location
    parent = op.parent_block()
    assert parent is not None
    parent.insert_op_before(new, op)
    tail = Block()
    mapping = dict(zip(before.args, new.results, strict=True))
    _clone_ops(body, tail, mapping)
    for o in list(tail.ops):
        tail.detach_op(o)
        parent.insert_op_before(o, op)
    for r, v in zip(op.results, cond.args, strict=True):
        r.replace_all_uses_with(mapping.get(v, v))
    parent.erase_op(op)


def _callee(op: Operation, source: FuncOp) -> FuncOp:
    name = (
        op.callee.root_reference.data
        if isinstance(op, CallOp)
        else op.source.root_reference.data  # type: ignore[attr-defined]
    )
    callee = function_named(source, name)
    if callee is None or callee.is_declaration or len(callee.body.blocks) != 1:
        raise OpError(
            op,
            "autodiff (reverse mode) inlines the helpers that take pointers, and "
            f"@{name} is not a function of one block in this module; define it "
            "here with scf control flow, or make it take and return values",
        )
    return callee


def _plain(op: Operation) -> CallOp:
    """`op` as a `gpuc.call` (a deferred call of a helper is replaced)."""
    if isinstance(op, CallOp):
        return op
    assert isinstance(op, DeferredCallOp)
    call = CallOp(op.source.root_reference.data, list(op.arguments), op.res.types)
    call.location = op.location
    Rewriter.replace_op(op, call)
    return call
