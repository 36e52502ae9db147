"""`gpuc.autodiff`: derivatives of kernels and device functions from Python.

    mod = gpuc.autodiff.reverse("examples/saxpy.mlir", "saxpy", target="native")
    mod["saxpy_reverse"][grid, block](a, x, dx, y, dy, n, da)

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

The job is the same `#gpuc.job<helper, generator = "autodiff" {mode = ...,
always_inline}>` that MLIR asks for; the kernel is how the host launches it
(docs/autodiff.md, "Derivative kernels").
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.api import Module


def forward(
    source: str | os.PathLike[str] | ModuleOp,
    name: str,
    target: str | None = None,
    **options: Any,
) -> Module:
    """`source` compiled with `<name>_forward`, the forward derivative of `@name`."""
    return _derivative(source, name, "forward", target, options)


def reverse(
    source: str | os.PathLike[str] | ModuleOp,
    name: str,
    target: str | None = None,
    **options: Any,
) -> Module:
    """`source` compiled with `<name>_reverse`, the reverse derivative of `@name`."""
    return _derivative(source, name, "reverse", target, options)


def derivative_module(
    source: str | os.PathLike[str] | ModuleOp, name: str, mode: str
) -> ModuleOp:
    """`source` parsed, with the derivative kernel `<name>_<mode>` added."""
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.dialects.functions import FuncOp
    from gpuc.driver import OptionError, load_module
    from gpuc.generators.autodiff.kernels import derivative_kernel

    module = load_module(source.clone() if isinstance(source, ModuleOp) else source)
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
    source: str | os.PathLike[str] | ModuleOp,
    name: str,
    mode: str,
    target: str | None,
    options: dict[str, Any],
) -> Module:
    from gpuc.api import compile

    return compile(derivative_module(source, name, mode), target, **options)
