"""Enzyme's argument conventions for gpuc's derivatives (docs/autodiff.md).

forward: each floating-point scalar argument is followed by its tangent, each
pointer to floating-point data by its shadow; the results are the tangents of
the floating-point results (after the primal results, with `primal`).
reverse: each pointer to floating-point data is followed by its shadow, into
which adjoints are added; with `seed`, one adjoint seed per floating-point
result follows the arguments (else a single floating-point result's seed is
1.0); the results are the adjoints of the floating-point scalar arguments, in
argument order. Everything else is passed as it is, as a constant.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import FunctionType, VectorType
from xdsl.ir import Attribute, Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import PtrType
from gpuc.dialects.functions import FuncOp
from gpuc.generators.autodiff.rules import is_float


def is_duplicated(t: Attribute) -> bool:
    """A pointer to floating-point data: followed by its shadow."""
    return isinstance(t, PtrType) and is_float(t.element)


def check_source(source: FuncOp) -> None:
    """Raise at `source` unless autodiff can differentiate its shape: argument
    and result types it knows, one block (structured control flow)."""
    check_types(source, source.function_type.inputs.data, "an argument")
    check_types(source, source.function_type.outputs.data, "a result")
    if len(source.body.blocks) != 1:
        raise OpError(
            source,
            "autodiff differentiates structured control flow (scf); this "
            "function has several blocks: run lift-cf, or write it with scf ops",
        )


def check_types(where: Operation, types: Sequence[Attribute], what: str) -> None:
    for t in types:
        element = t.element if isinstance(t, PtrType) else t
        if isinstance(element, VectorType | PtrType):
            raise OpError(
                where,
                f"{what} of type {t}: autodiff differentiates scalars and pointers "
                "to scalars, not vectors or pointers to pointers; pass the "
                "elements as scalars",
            )


def forward_type(source: FunctionType, primal: bool) -> FunctionType:
    inputs: list[Attribute] = []
    for t in source.inputs.data:
        inputs.append(t)
        if is_float(t) or is_duplicated(t):
            inputs.append(t)
    tangents = [t for t in source.outputs.data if is_float(t)]
    outputs = [*source.outputs.data, *tangents] if primal else tangents
    return FunctionType.from_lists(inputs, outputs)


def reverse_type(source: FunctionType, seed: bool) -> FunctionType:
    inputs: list[Attribute] = []
    for t in source.inputs.data:
        inputs.append(t)
        if is_duplicated(t):
            inputs.append(t)
    if seed:
        inputs.extend(t for t in source.outputs.data if is_float(t))
    outputs = [t for t in source.inputs.data if is_float(t)]
    return FunctionType.from_lists(inputs, outputs)
