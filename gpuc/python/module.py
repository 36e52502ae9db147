"""The module of standard-dialect functions compiled from Python kernels:
the kernels asked for, then every device function they call (one
`func.func` per device function and memory spaces of its array arguments).
`to_mlir` returns it; it is what `gpuc.compile` hands the driver.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gpuc.python.source import KernelError, Where

if TYPE_CHECKING:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import FunctionType, ModuleOp

    from gpuc.python.decorators import DeviceFunction, KernelFunction, PyFunction
    from gpuc.python.types import DType


class ModuleBuilder:
    def __init__(self, strided: bool = False) -> None:
        self.strided = strided
        """Kernels for arrays of any strides; else the last stride is 1."""
        self.functions: list[func.FuncOp] = []
        self.symbols: dict[
            tuple[PyFunction, tuple[str, ...]], tuple[str, DType | None]
        ] = {}
        self.taken: set[str] = set()
        self.active: list[tuple[PyFunction, tuple[str, ...]]] = []
        self.captured: dict[tuple[PyFunction, str], object] = {}
        """Module-level constants the functions read (the cache keys on them)."""

    def symbol(self, name: str) -> str:
        chosen, n = name, 0
        while chosen in self.taken:
            n += 1
            chosen = f"{name}.{n}"
        self.taken.add(chosen)
        return chosen

    def kernel(self, fn: KernelFunction, constexprs: Mapping[str, object]) -> None:
        from gpuc.python.function import FunctionCompiler

        symbol = self.symbol(fn.name)
        self.active.append((fn, ()))
        self.functions.append(
            FunctionCompiler(self, fn).compile(symbol, (), dict(constexprs))
        )
        self.active.pop()

    def device(
        self, fn: DeviceFunction, spaces: tuple[str, ...], where: Where
    ) -> tuple[str, DType | None]:
        """The symbol of `fn` for arrays in `spaces`, compiled on first use."""
        from gpuc.python.function import FunctionCompiler

        key = (fn, spaces)
        if any(f is fn for f, _ in self.active):
            chain = " -> ".join(f.name for f, _ in self.active) + f" -> {fn.name}"
            raise KernelError(
                where, f"recursion ({chain}): gpuc functions cannot call themselves"
            )
        if key in self.symbols:
            return self.symbols[key]
        suffix = "" if all(s == "global" for s in spaces) else "." + ".".join(spaces)
        symbol = self.symbol(fn.name + suffix)
        self.symbols[key] = (symbol, fn.result_type())
        self.active.append(key)
        self.functions.append(FunctionCompiler(self, fn).compile(symbol, spaces, {}))
        self.active.pop()
        return self.symbols[key]

    def function_type(self, symbol: str) -> FunctionType:
        """The type of compiled function @symbol."""
        for f in self.functions:
            if f.sym_name.data == symbol:
                return f.function_type
        raise AssertionError(f"@{symbol} is not compiled")

    def module(self) -> ModuleOp:
        from xdsl.dialects.builtin import ModuleOp

        return ModuleOp(list(self.functions))


def build_module(
    kernels: Sequence[KernelFunction],
    constexprs: Mapping[str, Mapping[str, object]] | None = None,
    strided: bool = False,
) -> tuple[ModuleOp, dict[tuple[PyFunction, str], object]]:
    """The module holding `kernels` (and what they call), and the constants
    it captured. `strided`: its kernels take arrays of any strides (else the
    last stride of each array is 1: the variant launches use first)."""
    from gpuc.python.function import checked_constexprs

    unit = ModuleBuilder(strided)
    try:
        for k in kernels:
            values = dict((constexprs or {}).get(k.name, {}))
            checked_constexprs(k, values)
            unit.kernel(k, values)
    except KernelError as e:
        # The diagnostic says where; the frontend's frames would only hide it.
        raise e.with_traceback(None) from None
    return unit.module(), unit.captured


def to_mlir(fn: Any, constexprs: Mapping[str, object] | None = None) -> ModuleOp:
    """The standard-dialect module `gpuc.compile` compiles for kernel `fn`
    (or a list of kernels); `constexprs` gives constexpr parameters' values
    (for one kernel: {name: value}; for a list: {kernel: {name: value}})."""
    from gpuc.python.decorators import prepare_compiler

    prepare_compiler()
    kernels = list(fn) if isinstance(fn, list | tuple) else [fn]
    check_kernels(kernels)
    values: Mapping[str, Mapping[str, object]] | None
    if constexprs is not None and not isinstance(fn, list | tuple):
        values = {kernels[0].name: constexprs}
    else:
        values = constexprs  # type: ignore[assignment]
    module, _ = build_module(kernels, values)
    return module


def check_kernels(kernels: Sequence[object]) -> None:
    from gpuc.python.decorators import KernelFunction

    for k in kernels:
        if not isinstance(k, KernelFunction):
            raise TypeError(f"expected @gpuc.kernel functions, got {k!r}")


def module_of_file(path: str) -> ModuleOp:
    """The module of the kernels a Python file defines (`gpuc compile k.py`,
    `gpuc explain k.py`): the file runs as a module named `__gpuc__` (not
    `__main__`, so its launches under `if __name__ == "__main__"` do not),
    and its `@gpuc.kernel` functions without constexpr parameters compile."""
    import runpy

    from gpuc.python.decorators import KernelFunction, prepare_compiler

    prepare_compiler()
    where = Where(path, 1, 1)
    try:
        namespace = runpy.run_path(path, run_name="__gpuc__")
    except KernelError:
        raise
    except Exception as e:
        raise KernelError(
            where,
            f"running the file to find its kernels failed: {type(e).__name__}: {e}",
        ) from None
    here = os.path.abspath(path)
    kernels = [
        v
        for v in namespace.values()
        if isinstance(v, KernelFunction)
        and os.path.abspath(v.fn.__code__.co_filename) == here
        and not v.constexpr_names()
    ]
    if not kernels:
        raise KernelError(
            where, "defines no @gpuc.kernel without constexpr parameters to compile"
        )
    module, _ = build_module(kernels)
    return module
