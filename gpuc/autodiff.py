"""`gpuc.autodiff`: derivatives of kernels and device functions from Python.

    mod = gpuc.autodiff.reverse("examples/saxpy.mlir", "saxpy", target="native")
    mod["saxpy_reverse"][grid, block](a, x, dx, y, dy, n, da)

    @gpuc.kernel
    def saxpy(a: gpuc.f32, x: gpuc.Array[gpuc.f32, 1], ...): ...
    dsaxpy = gpuc.autodiff.reverse(saxpy)
    dsaxpy[grid, block](a, x, dx, y, dy, n, da)

`forward(source, name)` and `reverse(source, name)` compile `source` with one
more kernel, `<name>_forward` or `<name>_reverse`, that calls the `autodiff`
job of `@name` (always inlined) and returns the compiled `gpuc.Module`.

- For a kernel, the derivative kernel takes the arguments of the job
  (docs/autodiff.md: each float scalar followed by its tangent in forward
  mode, each pointer to floats by its shadow) and, in reverse mode, one more
  `!gpuc.ptr<T, global>` per floating-point scalar argument, into which each
  thread adds its adjoint (atomically). Launch it with the kernel's grid.
- For a device function, the derivative kernel evaluates the job over arrays:
  one array per argument of the job, then one per result of the job, then
  the element count `n: i32`; thread `i < n` reads element `i` of each input
  and writes element `i` of each output.
- A Python `@gpuc.kernel` or `@gpuc.func` (gpuc/python/) is given alone:
  `reverse(fn)` returns a `Derivative`, launched as `d[grid, block](...)`
  with the job's arguments at the Python level (each float array followed by
  its shadow array of the same shape and strides, each float scalar by its
  tangent in forward mode; in reverse mode one 1-element array per float
  scalar parameter last, into which its adjoint is added). Its module is
  compiled for the kernel's target (else $GPUC_TARGET, else the host) on the
  first launch, or for `target=`.

The job is the same `#gpuc.job<helper, generator = "autodiff" {mode = ...,
always_inline}>` that MLIR asks for; the kernel is how the host launches it
(docs/autodiff.md, "Derivative kernels").
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.api import Module
    from gpuc.python.decorators import PyFunction
    from gpuc.python.derivatives import Derivative


@overload
def forward(
    source: PyFunction,
    name: None = None,
    target: str | None = None,
    **options: Any,
) -> Derivative: ...


@overload
def forward(
    source: str | os.PathLike[str] | ModuleOp,
    name: str,
    target: str | None = None,
    **options: Any,
) -> Module: ...


def forward(
    source: str | os.PathLike[str] | ModuleOp | PyFunction,
    name: str | None = None,
    target: str | None = None,
    **options: Any,
) -> Any:
    """`source` compiled with `<name>_forward`, the forward derivative of
    `@name`; for a Python kernel or device function, its `Derivative`."""
    return _derivative(source, name, "forward", target, options)


@overload
def reverse(
    source: PyFunction,
    name: None = None,
    target: str | None = None,
    **options: Any,
) -> Derivative: ...


@overload
def reverse(
    source: str | os.PathLike[str] | ModuleOp,
    name: str,
    target: str | None = None,
    **options: Any,
) -> Module: ...


def reverse(
    source: str | os.PathLike[str] | ModuleOp | PyFunction,
    name: str | None = None,
    target: str | None = None,
    **options: Any,
) -> Any:
    """`source` compiled with `<name>_reverse`, the reverse derivative of
    `@name`; for a Python kernel or device function, its `Derivative`."""
    return _derivative(source, name, "reverse", target, options)


def derivative_module(
    source: str | os.PathLike[str] | ModuleOp, name: str, mode: str
) -> ModuleOp:
    """`source` parsed, with the derivative kernel `<name>_<mode>` added."""
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.context import make_context
    from gpuc.dialects.functions import FuncOp
    from gpuc.driver import OptionError, load_module
    from gpuc.generators.autodiff.kernels import derivative_kernel
    from gpuc.transforms.import_foreign import ImportForeign

    module = load_module(source.clone() if isinstance(source, ModuleOp) else source)
    ImportForeign(upgrade=False).apply(make_context(), module)
    found = [
        op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == name
    ]
    if not found or found[0].is_declaration:
        raise OptionError(
            f"gpuc.autodiff.{mode}: the module defines no gpuc.func @{name}; "
            "name a kernel or device function it defines"
        )
    module.body.block.add_op(derivative_kernel(found[0], mode, f"{name}_{mode}"))
    return module


def _derivative(
    source: str | os.PathLike[str] | ModuleOp | PyFunction,
    name: str | None,
    mode: str,
    target: str | None,
    options: dict[str, Any],
) -> Any:
    from gpuc.api import compile
    from gpuc.driver import OptionError
    from gpuc.python.decorators import PyFunction

    if isinstance(source, PyFunction):
        if name is not None:
            raise OptionError(
                f"gpuc.autodiff.{mode}(fn): a Python function is its own "
                f"source; drop the name {name!r}"
            )
        from gpuc.python.derivatives import Derivative

        return Derivative(source, mode, target, options)
    if name is None:
        raise OptionError(
            f"gpuc.autodiff.{mode}(source, name): name the function of the "
            "module to differentiate"
        )
    return compile(derivative_module(source, name, mode), target, **options)
