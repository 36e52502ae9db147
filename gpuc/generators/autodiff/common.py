"""What both modes share: which ops pass through as constants, the jobs for
callees' derivatives, and the diagnostics for what cannot be differentiated."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Operation, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import InlineHint, JobAttr, PtrType, Role
from gpuc.dialects.deferred import DeferredCallOp
from gpuc.dialects.functions import CallOp, FuncOp
from gpuc.dialects.symbols import lookup_in
from gpuc.generators.autodiff.conventions import is_duplicated
from gpuc.generators.autodiff.rules import is_float

GENERATOR = "autodiff"


def involves_floats(op: Operation) -> bool:
    """Whether differentiation has anything to do with `op`: a floating-point
    operand or result, or a pointer to floating-point data."""
    return any(
        is_float(v.type) or is_duplicated(v.type) for v in (*op.operands, *op.results)
    )


def no_rule(op: Operation, mode: str) -> OpError:
    if op.name == "gpuc.call_indirect":
        return OpError(
            op,
            f"autodiff ({mode} mode) differentiates a call through a function "
            "pointer only when the pointer is a gpuc.func_addr or "
            "gpuc.deferred_addr in the same function; call the function "
            "directly, or take its address next to the call",
        )
    return OpError(
        op,
        f"autodiff ({mode} mode) has no derivative rule for '{op.name}'; "
        "compute it with ops that have one (docs/autodiff.md lists them), or "
        "move it out of the function being differentiated",
    )


def callee(op: Operation, mode: str) -> tuple[str, InlineHint | None]:
    """The source symbol and the inline hint of a call to differentiate."""
    if isinstance(op, CallOp):
        return op.callee.root_reference.data, None
    assert isinstance(op, DeferredCallOp)
    if op.job.generator_name is not None:
        raise OpError(
            op,
            f"autodiff ({mode} mode) cannot differentiate a call of a function "
            f"made by generator '{op.job.generator_name}'; call a function the "
            "module or a library defines",
        )
    return op.source.root_reference.data, op.job.inline_hint


def function_named(near: FuncOp, name: str) -> FuncOp | None:
    """The function `name` of the symbol table holding `near` (the module or
    library of the function being differentiated), if there is one."""
    table = near.parent_op()
    found = lookup_in(table, name) if table is not None else None
    return found if isinstance(found, FuncOp) else None


def derivative_job(hint: InlineHint | None, mode: str, **flags: bool) -> JobAttr:
    params: dict[str, Attribute] = {"mode": StringAttr(mode)}
    for key, value in flags.items():
        if value:
            from xdsl.dialects.builtin import BoolAttr

            params[key] = BoolAttr.from_bool(True)
    return JobAttr(Role.HELPER, hint, GENERATOR, params)


def derivative_call(
    op: Operation,
    mode: str,
    args: list[SSAValue],
    result_types: list[Attribute],
    **flags: bool,
) -> DeferredCallOp:
    source, hint = callee(op, mode)
    call = DeferredCallOp(
        source, derivative_job(hint, mode, **flags), args, result_types
    )
    call.location = op.location
    return call


def is_call(op: Operation) -> bool:
    return isinstance(op, CallOp) or (
        isinstance(op, DeferredCallOp) and op.job.job_role == Role.HELPER
    )


STRUCTURED = (scf.IfOp, scf.ForOp, scf.WhileOp)


def check_bitcast(op: Operation, mode: str, active: bool) -> None:
    if isinstance(op, arith.BitcastOp) and active:
        raise OpError(
            op,
            f"autodiff ({mode} mode) cannot differentiate through "
            f"'{op.name}' of a differentiated value (its bits are not a "
            "differentiable function of it); compute without reinterpreting bits",
        )


def element(t: Attribute) -> Attribute:
    return t.element if isinstance(t, PtrType) else t
