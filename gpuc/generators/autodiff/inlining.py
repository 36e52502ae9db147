"""What reverse mode does to the function before it differentiates it.

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
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import PtrType
from gpuc.dialects.deferred import DeferredCallOp
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.dialects.memory import PrivateAllocOp, SharedAllocOp
from gpuc.generators.autodiff.common import function_named, is_call
from gpuc.transforms.inliner import inline_call

MAX_DEPTH = 16
"""Rounds of inlining before a chain of pointer-taking helpers counts as
recursion."""


def _takes_pointers(op: Operation) -> bool:
    return is_call(op) and any(isinstance(v.type, PtrType) for v in op.operands)


def with_pointer_calls_inlined(source: FuncOp) -> FuncOp:
    """`source` itself when it calls no helper that takes pointers, else a
    copy (located as the original) with those calls inlined."""
    if not any(_takes_pointers(op) for op in source.walk()):
        return source
    func = source.clone()
    for _ in range(MAX_DEPTH):
        calls = [op for op in func.walk() if _takes_pointers(op)]
        if not calls:
            return func
        for op in calls:
            inline_call(_plain(op), _callee(op, source))
    raise OpError(
        next(op for op in func.walk() if _takes_pointers(op)),
        f"autodiff (reverse mode) inlines the helpers that take pointers, and "
        f"this chain is deeper than {MAX_DEPTH} (recursion?); make the helper "
        "take and return values, so that its derivative is a job of its own",
    )


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
