"""`gpuc.autodiff.forward(fn)` / `reverse(fn)` on a Python `@gpuc.kernel` or
`@gpuc.func`: the function's module (module.py), imported into the gpuc
dialect, with the derivative kernel `gpuc.autodiff` adds to any module
(gpuc/generators/autodiff/kernels.py), so the jobs are the same `autodiff`
jobs; launched with each array given as the array alone, as launch.py does
for the function itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpuc.python.decorators import KernelFunction, PyFunction, prepare_compiler
from gpuc.python.launch import flat_view
from gpuc.python.types import ArrayType, DType, _Constexpr
from gpuc.runtime.args import LaunchError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.api import Module


def floating(t: DType) -> bool:
    from gpuc.generators.autodiff.rules import is_float

    return is_float(t.mlir())


class Derivative:
    """The `mode` derivative of a Python function, launched as
    `d[grid, block](*args)`:

    - kernel, forward: each float scalar followed by its tangent, each float
      array by its shadow array (the tangents of its elements);
    - kernel, reverse: each float array followed by its shadow array, into
      which the adjoints are added; then one array of one element per float
      scalar parameter, into which its adjoint is added;
    - device function (of scalars): the job evaluated element-wise, one array
      per argument of the job, one per result, then `n` (docs/autodiff.md).

    A shadow has its array's shape and strides. Integers and integer arrays
    are passed as they are."""

    def __init__(
        self,
        fn: PyFunction,
        mode: str,
        target: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.fn = fn
        self.mode = mode
        self.target = target
        self.options = dict(options or {})
        self.name = f"{fn.name}_{mode}"
        self._modules: dict[tuple[str, bool], Module] = {}

    def __repr__(self) -> str:
        return f"<gpuc {self.mode} derivative of {self.fn.qualname}>"

    def source_module(self, strided: bool = False) -> ModuleOp:
        """The function's module with the derivative kernel, in the gpuc
        dialect (what `module()` compiles)."""
        from gpuc.autodiff import derivative_module
        from gpuc.python.module import ModuleBuilder, build_module
        from gpuc.python.source import KernelError, Where

        prepare_compiler()
        if isinstance(self.fn, KernelFunction):
            if self.fn.constexpr_names():
                raise KernelError(
                    self.fn.source.where(self.fn.source.tree),
                    f"gpuc.autodiff.{self.mode}: {self.fn.name} takes gpuc.constexpr "
                    "parameters; differentiate a kernel without them",
                )
            module, _ = build_module([self.fn], None, strided)
            symbol = self.fn.name
        else:
            unit = ModuleBuilder(strided)
            code = self.fn.fn.__code__
            where = Where(code.co_filename, code.co_firstlineno, 1)
            symbol, _ = unit.device(self.fn, (), where)  # type: ignore[arg-type]
            module = unit.module()
        return derivative_module(module, symbol, self.mode)

    def module(self, target: str | None = None, strided: bool = False) -> Module:
        """The compiled module holding the derivative kernel `self.name`."""
        from gpuc.api import Module
        from gpuc.compiler import compile_module
        from gpuc.targets import HOST_TARGET

        chosen = (
            target
            or self.target
            or getattr(self.fn, "target", None)
            or os.environ.get("GPUC_TARGET")
            or HOST_TARGET
        )
        key = (chosen, strided)
        if key not in self._modules:
            source = self.source_module(strided)
            kernel = f"{self.fn.name}_{self.mode}"
            result = compile_module(source, chosen, **self.options)
            self._modules[key] = Module(result)
            assert kernel in self._modules[key].signatures
        return self._modules[key]

    def __getitem__(self, config: tuple[object, ...]) -> Callable[..., None]:
        """`d[grid, block]` (or `[grid, block, stream, shared]`), as a
        kernel of a `gpuc.Module` is configured."""
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError(
                f"{self.name}: launch it as d[grid, block](*args), got d[{config!r}]"
            )

        def launch(*args: Any) -> None:
            if isinstance(self.fn, KernelFunction):
                expanded, unit = self.expand(args)
            else:
                expanded, unit = list(args), True
            module = self.module(strided=not unit)
            module[self.name][config](*expanded)

        return launch

    def expand(self, args: tuple[Any, ...]) -> tuple[list[Any], bool]:
        """A kernel derivative's Python arguments as the kernel takes them,
        and whether every array's last stride is 1."""
        params = self.fn.parameters()
        scalars = [p for p, t, _ in params if isinstance(t, DType) and floating(t)]
        names: list[str] = []
        for p, t, _ in params:
            names.append(p)
            if (isinstance(t, ArrayType) and floating(t.dtype)) or (
                self.mode == "forward" and isinstance(t, DType) and floating(t)
            ):
                names.append(f"d{p}")
        if self.mode == "reverse":
            names += [f"d{p}" for p in scalars]
        if len(args) != len(names):
            raise LaunchError(
                f"{self.name} takes {len(names)} argument(s) "
                f"({', '.join(names)}), got {len(args)}"
            )
        given = iter(args)
        expanded: list[Any] = []
        unit = True
        for p, t, _ in params:
            arg = next(given)
            if isinstance(t, _Constexpr):  # refused when compiled
                continue
            if isinstance(t, DType):
                expanded.append(arg)
                if self.mode == "forward" and floating(t):
                    expanded.append(next(given))
                continue
            assert isinstance(t, ArrayType)
            flat = flat_view(arg, p)
            unit = unit and (flat[-1] == 1 or flat[2 + t.ndim] <= 1)
            expanded.append(flat[0])
            if floating(t.dtype):
                shadow = flat_view(next(given), f"d{p}")
                if shadow[1:] != flat[1:] or getattr(shadow[0], "dtype", None) != (
                    getattr(flat[0], "dtype", None)
                ):
                    raise LaunchError(
                        f"{self.name}: the shadow d{p} must have the shape, "
                        f"strides and dtype of {p}"
                    )
                expanded.append(shadow[0])
            expanded += flat[1:]
        expanded += list(given)
        return expanded, unit


__all__ = ["Derivative"]
