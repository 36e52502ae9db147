"""`@gpuc.kernel` and `@gpuc.func`: a Python function marked for the
frontend. Decorating costs nothing (the source is read on the first
compile); `kernel[grid, block](*args)` compiles once per target and
constexpr values, then launches.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpuc.python.source import FunctionSource, KernelError, function_source
from gpuc.python.types import ArrayType, DType, _Constexpr, boolean

if TYPE_CHECKING:
    from gpuc.python.launch import PythonModule

ParamType = DType | ArrayType | _Constexpr
INLINE = (None, "always", "never")
_SAVE_REGISTERED: list[bool] = []


def prepare_compiler() -> None:
    """Before the first compile in this process imports xDSL: the start-up
    code cache (`gpuc.cache.startup`, as the commands use it), saved when the
    process exits, so a script's first compile starts faster each time."""
    import atexit

    from gpuc.cache import startup as code_cache

    code_cache.install()
    if not _SAVE_REGISTERED:
        _SAVE_REGISTERED.append(True)
        atexit.register(code_cache.save)


class PyFunction:
    """A decorated function: its Python object, parsed source and types."""

    is_kernel = False

    def __init__(self, fn: Callable[..., Any], inline: str | None = None) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name: str = fn.__name__
        self.qualname = f"{fn.__module__}.{fn.__qualname__}"
        self.inline = inline
        self._source: FunctionSource | None = None
        self._params: list[tuple[str, ParamType, ast.arg]] | None = None

    @property
    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = function_source(self.fn)
        return self._source

    def closure(self) -> dict[str, Any]:
        code = self.fn.__code__
        cells = self.fn.__closure__ or ()
        out: dict[str, Any] = {}
        for name, cell in zip(code.co_freevars, cells, strict=True):
            try:
                out[name] = cell.cell_contents
            except ValueError:
                pass
        return out

    def lookup(self, name: str) -> tuple[bool, Any]:
        """(found, value) of a free name of the function: its closure's, else
        its module's (builtins are not looked up here)."""
        closure = self.closure()
        if name in closure:
            return True, closure[name]
        if name in self.fn.__globals__:
            return True, self.fn.__globals__[name]
        return False, None

    def annotation(self, node: ast.expr | None, what: str, at: ast.AST) -> Any:
        if node is None:
            raise self.source.error(
                at,
                f"{what} needs a type annotation "
                "(gpuc.f32, gpuc.Array[gpuc.f32, 1], ...)",
            )
        scope = {**self.fn.__globals__, **self.closure()}
        try:
            value = eval(compile(ast.Expression(node), self.source.file, "eval"), scope)  # noqa: S307
            return boolean if value is bool else value
        except Exception as e:
            raise self.source.error(
                node, f"{what}: cannot evaluate its annotation ({e})"
            ) from None

    def parameters(self) -> list[tuple[str, ParamType, ast.arg]]:
        if self._params is None:
            args = self.source.tree.args
            if (
                args.vararg
                or args.kwarg
                or args.kwonlyargs
                or args.posonlyargs
                or args.defaults
            ):
                raise self.source.error(
                    args.vararg or args.kwarg or self.source.tree,
                    "gpuc functions take plain positional parameters (no *args, "
                    "**kwargs, keyword-only parameters or defaults)",
                )
            params: list[tuple[str, ParamType, ast.arg]] = []
            for a in args.args:
                t = self.annotation(a.annotation, f"parameter '{a.arg}'", a)
                if not isinstance(t, DType | ArrayType | _Constexpr):
                    raise self.source.error(
                        a.annotation or a,
                        f"parameter '{a.arg}' is annotated {t!r}; use a gpuc dtype, "
                        "gpuc.Array[dtype, ndim] or gpuc.constexpr",
                    )
                if isinstance(t, _Constexpr) and not self.is_kernel:
                    raise self.source.error(
                        a, "only kernels take gpuc.constexpr parameters"
                    )
                params.append((a.arg, t, a))
            self._params = params
        return self._params

    def result_type(self) -> DType | None:
        node = self.source.tree.returns
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return None
        t = self.annotation(node, "the return type", node)
        if not isinstance(t, DType):
            raise self.source.error(
                node, f"the return type must be a gpuc dtype, not {t!r}"
            )
        if self.is_kernel:
            raise self.source.error(
                node, "kernels return nothing; drop the return annotation"
            )
        return t

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.name} is compiled by gpuc: launch a kernel with "
            f"{self.name}[grid, block](*args); call a @gpuc.func from kernels"
        )


class DeviceFunction(PyFunction):
    """`@gpuc.func`: callable from kernels and other device functions."""

    def __repr__(self) -> str:
        return f"<gpuc device function {self.qualname}>"


class KernelFunction(PyFunction):
    """`@gpuc.kernel`: `k[grid, block](*args)` compiles and launches."""

    is_kernel = True

    def __init__(self, fn: Callable[..., Any], target: str | None = None) -> None:
        super().__init__(fn)
        self.target = target
        self._compiled: dict[tuple[object, ...], PythonModule] = {}

    def __repr__(self) -> str:
        return f"<gpuc kernel {self.qualname}>"

    def constexpr_names(self) -> list[str]:
        return [n for n, t, _ in self.parameters() if isinstance(t, _Constexpr)]

    def compiled(self, target: str, constexprs: dict[str, object]) -> PythonModule:
        """This kernel compiled for `target` with these constexpr values
        (once per process)."""
        key = (target, tuple(sorted(constexprs.items())))
        module = self._compiled.get(key)
        if module is not None and not module.captures_current():
            module = None  # a module-level constant it read has changed
        if module is None:
            prepare_compiler()
            from gpuc.python.launch import compile_functions

            module = compile_functions(
                [self], target, constexprs={self.name: constexprs}
            )
            self._compiled[key] = module
        return module

    def __getitem__(self, config: tuple[object, ...]) -> Callable[..., None]:
        from gpuc.targets import HOST_TARGET

        target = self.target or os.environ.get("GPUC_TARGET") or HOST_TARGET

        def launch(*args: Any) -> None:
            names = self.constexpr_names()
            if names:
                params = [n for n, _, _ in self.parameters()]
                if len(args) != len(params):
                    raise TypeError(
                        f"{self.name} takes {len(params)} arguments, got {len(args)}"
                    )
                values = {n: a for n, a in zip(params, args, strict=True) if n in names}
                module = self.compiled(target, values)
            else:
                module = self.compiled(target, {})
            module[self.name][config](*args)

        return launch


def kernel(fn: Callable[..., Any] | None = None, *, target: str | None = None) -> Any:
    """`@gpuc.kernel` (or `@gpuc.kernel(target="spirv")`, the target
    `k[grid, block](...)` compiles for; default: $GPUC_TARGET, else native)."""
    if fn is None:
        return lambda f: KernelFunction(f, target)
    return KernelFunction(fn, target)


def func(fn: Callable[..., Any] | None = None, *, inline: str | None = None) -> Any:
    """`@gpuc.func`, `@gpuc.func(inline="always" | "never")`."""
    if inline not in INLINE:
        raise ValueError(
            f"gpuc.func(inline=...) takes 'always' or 'never', got {inline!r}"
        )
    if fn is None:
        return lambda f: DeviceFunction(f, inline)
    return DeviceFunction(fn, inline)


__all__ = [
    "DeviceFunction",
    "KernelError",
    "KernelFunction",
    "PyFunction",
    "func",
    "kernel",
]
