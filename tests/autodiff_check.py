"""Checking derivatives against central finite differences in float64.

A kernel is described by its arguments: float arrays (`In`, or `Out` whose
final values the objective weighs), float scalars and integers. The objective
is L = sum(w * final) over the `Out` arrays, with random weights w. The
derivative under test (f32, or f64) is compared with central differences of
the kernel compiled in f64 along random directions, with a tolerance from the
sum of the absolute terms of the dot product (its conditioning).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import gpuc
import gpuc.autodiff


@dataclass
class In:
    values: np.ndarray


@dataclass
class Out:
    values: np.ndarray
    """Initial contents (also differentiated: the kernel may read them)."""


Arg = In | Out | float | np.integer


def to_f64(text: str) -> str:
    return text.replace("f32", "f64")


def _run(mod: gpuc.Module, name: str, launch: tuple, args: list) -> None:
    mod[name][launch](*args)


def _primal_args(
    args: list[Arg], dtype: type, offsets: list | None = None, h: float = 0.0
) -> tuple[list, list]:
    out, arrays = [], []
    k = 0
    for a in args:
        if isinstance(a, In | Out):
            v = a.values.astype(dtype)
            if offsets is not None:
                v = v + h * offsets[k]
            k += 1
            out.append(v)
            arrays.append(v)
        elif isinstance(a, float):
            v = dtype(a + (h * offsets[k] if offsets is not None else 0.0))
            k += 1
            out.append(v)
        else:
            out.append(a)
    return out, arrays


def objective(
    mod: gpuc.Module,
    name: str,
    launch: tuple,
    args: list[Arg],
    weights: list,
    offsets: list,
    h: float,
) -> float:
    values, _ = _primal_args(args, np.float64, offsets, h)
    _run(mod, name, launch, values)
    outs = [v for a, v in zip(args, values, strict=True) if isinstance(a, Out)]
    return float(
        sum(np.dot(w.ravel(), o.ravel()) for w, o in zip(weights, outs, strict=True))
    )


def directions(args: list[Arg], rng: np.random.Generator) -> list:
    return [
        rng.standard_normal(a.values.shape)
        if isinstance(a, In | Out)
        else rng.standard_normal()
        for a in args
        if isinstance(a, In | Out | float)
    ]


def check(
    source: str,
    name: str,
    launch: tuple,
    make_args: Callable[[np.random.Generator], list[Arg]],
    target: str,
    *,
    seed: int,
    modes: tuple[str, ...] = ("reverse", "forward"),
    rtol: float = 2e-4,
    dtype: type = np.float32,
) -> None:
    """Derivatives of kernel `name` of `source` in `modes`, on `target`,
    against central differences of the f64 kernel (run natively)."""
    rng = np.random.default_rng(seed)
    args = make_args(rng)
    outs = [a for a in args if isinstance(a, Out)]
    weights = [rng.standard_normal(o.values.shape) for o in outs]
    primal = gpuc.compile(to_f64(source), "native", cache=False)
    text = source if dtype == np.float32 else to_f64(source)
    for trial in range(2):
        v = directions(args, rng)
        h = 1e-6
        fd = (
            objective(primal, name, launch, args, weights, v, h)
            - objective(primal, name, launch, args, weights, v, -h)
        ) / (2 * h)
        for mode in modes:
            if trial and mode == "forward":
                continue
            got, scale = derivative(
                text, name, mode, launch, args, weights, v, target, dtype
            )
            tol = rtol * scale + 1e-9
            assert abs(got - fd) <= tol, (
                f"{name} {mode} on {target}: <grad, v> = {got}, central "
                f"differences {fd}, |difference| {abs(got - fd)} > {tol}"
            )


_compiled: dict[tuple, gpuc.Module] = {}


def derivative(
    text: str,
    name: str,
    mode: str,
    launch: tuple,
    args: list[Arg],
    weights: list,
    v: list,
    target: str,
    dtype: type,
) -> tuple[float, float]:
    """<dL, v> by the derivative kernel, and the sum of its terms' sizes."""
    key = (text, name, mode, target)
    if key not in _compiled:
        make = gpuc.autodiff.reverse if mode == "reverse" else gpuc.autodiff.forward
        _compiled[key] = make(text, name, target=target, cache=False)
    mod = _compiled[key]
    values, _ = _primal_args(args, dtype)
    call: list = []
    shadows: list[np.ndarray] = []
    scalars: list[np.ndarray] = []
    k = w = 0
    for a, val in zip(args, values, strict=True):
        call.append(val)
        if isinstance(a, In | Out):
            if mode == "reverse":
                s = (
                    weights[w].astype(dtype)
                    if isinstance(a, Out)
                    else np.zeros_like(val)
                )
            else:
                s = v[k].astype(dtype)
            w += isinstance(a, Out)
            k += 1
            shadows.append(s)
            call.append(s)
        elif isinstance(a, float):
            if mode == "forward":
                call.append(dtype(v[k]))
            else:
                scalars.append(np.zeros(1, dtype))
            k += 1
    call += scalars
    _run(mod, f"{name}_{mode}", launch, call)
    if mode == "forward":
        outs = [
            s
            for a, s in zip(
                [a for a in args if isinstance(a, In | Out)], shadows, strict=True
            )
            if isinstance(a, Out)
        ]
        terms = [
            wt.ravel() * o.astype(np.float64).ravel()
            for wt, o in zip(weights, outs, strict=True)
        ]
    else:
        grads: list = []
        it_s, it_c = iter(shadows), iter(scalars)
        for a in args:
            if isinstance(a, In | Out):
                grads.append(next(it_s).astype(np.float64))
            elif isinstance(a, float):
                grads.append(float(next(it_c)[0]))
        terms = [np.ravel(g * d) for g, d in zip(grads, v, strict=True)]
    total = np.concatenate([np.atleast_1d(t) for t in terms])
    return float(total.sum()), float(np.abs(total).sum())
