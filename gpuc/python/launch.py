"""Compiling Python kernels and launching them on numpy or device arrays.

`compile_functions` builds the module (module.py), compiles it with the
driver, and reports any diagnostic at the Python line its op came from. The
`PythonModule` it returns is a `gpuc.Module` whose launches take each
`Array` argument as the array alone: its buffer, offset, shape and strides
are passed for it, so a non-contiguous numpy view works, and writes through
it land in its base array.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.utils.exceptions import DiagnosticException

from gpuc.api import Module
from gpuc.python.decorators import KernelFunction, PyFunction
from gpuc.python.module import build_module, check_kernels
from gpuc.python.source import KernelError, Where, format_located
from gpuc.python.types import ArrayType, DType, _Constexpr
from gpuc.runtime.launch_types import LaunchError


def flat_view(array: Any, name: str) -> tuple[Any, ...]:
    """A numpy array (or view) as a kernel takes it: the contiguous buffer
    spanning its elements, its size, the offset of element 0 in it, its
    shape and its strides (elements)."""
    import numpy as np

    a = array
    if not isinstance(a, np.ndarray):
        # A device array: contiguous, row-major, passed whole as the buffer.
        shape = tuple(int(n) for n in getattr(a, "shape", ()))
        if not shape:
            raise LaunchError(
                f"argument '{name}' takes an array (numpy or device), got "
                f"{type(a).__name__}"
            )
        strides = [1]
        for size in reversed(shape[1:]):
            strides.insert(0, strides[0] * size)
        return (a, int(np.prod(shape)), 0, *shape, *strides)
    item = a.itemsize
    if any(s % item for s in a.strides):
        raise LaunchError(
            f"argument '{name}': its strides {a.strides} are not whole elements "
            f"of {item} bytes; pass a copy (np.ascontiguousarray)"
        )
    strides = [s // item for s in a.strides]
    if a.size == 0:
        return (np.zeros(1, a.dtype), 1, 0, *a.shape, *strides)
    if a.flags.c_contiguous:
        flat = a.reshape(-1)
        return (flat, flat.size, 0, *a.shape, *strides)
    low = sum((n - 1) * s for n, s in zip(a.shape, strides, strict=True) if s < 0)
    high = sum((n - 1) * s for n, s in zip(a.shape, strides, strict=True) if s > 0)
    first = a[
        tuple(
            slice(n - 1, n) if s < 0 else slice(0, 1)
            for n, s in zip(a.shape, strides, strict=True)
        )
    ]
    span = high - low + 1
    flat = np.lib.stride_tricks.as_strided(first, shape=(span,), strides=(item,))
    return (flat, span, -low, *a.shape, *strides)


class PythonModule(Module):
    """A module compiled from Python kernels."""

    functions: dict[str, KernelFunction]
    constexprs: dict[str, dict[str, object]]
    captured: dict[tuple[PyFunction, str], object]
    """The constants the kernels read from their modules, as compiled."""
    strided: PythonModule | None = None
    """The variant for arrays of any strides (made on the first launch with
    an array whose last stride is not 1); None until then, or this module
    if it is that variant."""
    recompile: Any = None
    """Compiles the strided variant (compile_functions's arguments bound)."""

    def captures_current(self) -> bool:
        """Whether every captured constant still has its compiled value."""
        for (fn, name), value in self.captured.items():
            found, now = fn.lookup(name)
            if not found or type(now) is not type(value) or now != value:
                return False
        return True

    def launch(
        self,
        name: str,
        grid: object,
        block: object,
        args: Sequence[object] = (),
        **options: Any,
    ) -> None:
        fn = self.functions.get(name)
        if fn is None:
            super().launch(name, grid, block, args, **options)
            return
        params = fn.parameters()
        if len(args) != len(params):
            raise LaunchError(
                f"kernel '{name}' takes {len(params)} argument(s) "
                f"({', '.join(p for p, _, _ in params)}), got {len(args)}"
            )
        expanded: list[object] = []
        position: dict[int, int] = {}
        """Expanded argument -> the Python argument it came from."""
        unit = True
        for k, ((pname, ptype, _), arg) in enumerate(zip(params, args, strict=True)):
            first = len(expanded)
            if isinstance(ptype, ArrayType):
                ndim = len(getattr(arg, "shape", ()))
                if ndim != ptype.ndim:
                    raise LaunchError(
                        f"kernel '{name}': argument '{pname}' has {ndim} "
                        f"dimension(s); the kernel takes {ptype!r}"
                    )
                flat = flat_view(arg, pname)
                # (buffer, size, offset, *shape, *strides): a last dimension of
                # one element reads index 0 only, whatever its stride.
                last_size, last_stride = flat[2 + ptype.ndim], flat[-1]
                unit = unit and (last_stride == 1 or last_size <= 1)
                expanded += flat
            elif isinstance(ptype, _Constexpr):
                compiled = self.constexprs.get(name, {}).get(pname)
                if arg != compiled:
                    raise LaunchError(
                        f"kernel '{name}' was compiled with {pname} = {compiled!r}, "
                        f"launched with {arg!r}; launch {name}[grid, block](...) "
                        "to compile a variant per value"
                    )
            else:
                assert isinstance(ptype, DType)
                expanded.append(arg)
            position.update(dict.fromkeys(range(first, len(expanded)), k))
        target: Module = self
        if not unit and self.strided is not self:
            if self.strided is None:
                self.strided = self.recompile()
            target = self.strided
        try:
            Module.launch(target, name, grid, block, expanded, **options)
        except LaunchError as e:
            renumber(e, position)
            show_python_line(e)
            raise


def renumber(error: LaunchError, position: dict[int, int]) -> None:
    """Number the arguments a launch error names as the Python call does
    (the executor counts each array's buffer, offset, shape and strides)."""
    import re

    if not error.args:
        return
    text = re.sub(
        r"\bargument (\d+) \(",
        lambda m: f"argument {position.get(int(m[1]), int(m[1]))} (",
        str(error.args[0]),
    )
    # A checked-mode fault names the buffer parameter: the array, in Python.
    text = re.sub(r"parameter %(\w+) \(argument \d+\)", r"array '\1'", text)
    error.args = (text, *error.args[1:])


def show_python_line(error: LaunchError) -> None:
    """Add the line a launch error names (a failed assert, a checked-mode
    fault: `file.py:line:col: ...`) and a caret under it to its message."""
    import re

    text = str(error.args[0]) if error.args else ""
    found = re.search(r"(\S+\.py):(\d+):(\d+): ", text)
    if found is None:
        return
    where = Where(found[1], int(found[2]), int(found[3]))
    shown = format_located(where, "").split("\n", 1)
    if len(shown) == 2:
        error.args = (f"{text}\n{shown[1]}", *error.args[1:])


def python_error(e: DiagnosticException) -> KernelError | None:
    """A compiler diagnostic about an op made from Python, at its line."""
    from gpuc.diagnostics import OpError, nearest_source_loc

    op = getattr(e, "op", None)
    if not isinstance(e, OpError) or op is None:
        return None
    loc, _ = nearest_source_loc(op)
    if loc is None or not loc.file.endswith(".py"):
        return None
    message = " ".join(e.message.removeprefix(f"'{op.name}' ").split("\n"))
    return KernelError(Where(loc.file, loc.line, loc.col), f"'{op.name}' op {message}")


def compile_functions(
    kernels: Sequence[KernelFunction],
    target: str | None = None,
    *,
    constexprs: Mapping[str, Mapping[str, object]] | None = None,
    device: str | int | None = None,
    strided: bool = False,
    **options: Any,
) -> PythonModule:
    """Compile Python kernels (and the device functions they call): for
    arrays whose last stride is 1, and for any strides on first need
    (`strided=True`: that variant now)."""
    from gpuc.compiler import compile_module
    from gpuc.runtime import check_device

    check_kernels(kernels)
    module, captured = build_module(kernels, constexprs, strided)
    try:
        try:
            # Compiled as built: the pipeline verifies it once, at its end.
            result = compile_module(module, target, owned=True, **options)
        except DiagnosticException:
            raise
        except Exception:
            # A pass failed on the module as built: if the frontend made IR
            # that does not verify, that is the error to report, located.
            from gpuc.diagnostics import verify_located

            verify_located(build_module(kernels, constexprs, strided)[0])
            raise
    except DiagnosticException as e:
        located = python_error(e)
        if located is None:
            raise
        raise located from None
    check_device(result.target, device)
    out = PythonModule(result, device)
    out.functions = {k.name: k for k in kernels}
    out.constexprs = {k: dict(v) for k, v in (constexprs or {}).items()}
    out.captured = captured
    if strided:
        out.strided = out
    else:
        out.recompile = lambda: compile_functions(
            kernels,
            target,
            constexprs=constexprs,
            device=device,
            strided=True,
            **options,
        )
    return out


__all__ = ["PythonModule", "compile_functions", "flat_view"]
