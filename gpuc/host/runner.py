"""`gpuc.run_host(...)` (and `gpuc run FILE`, gpuc/cli/run.py): execute a
module's host code.

MLIR's GPU programs are a host part (`func.func @main` allocating buffers,
launching kernels, printing results with the runner libraries' functions)
around `gpu.module`s or `gpu.launch` regions. The host runner reads the whole
module (the gpu ops in generic form, as for `gpuc compile`), outlines launch
regions as the import does (`gpu-kernel-outlining`), compiles the gpu.modules
with gpuc for the chosen target, and interprets the host functions with
xDSL's interpreter (arith, scf, cf, func, math) and gpuc's functions for
memref, gpu, async and vector host ops (interpret.py), where each
`gpu.launch_func` launches gpuc's kernel on the host's buffers.

Every host op is checked before anything runs: one with no host
implementation is a diagnostic naming the op at its location.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from gpuc.targets import HOST_TARGET

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.interpreter import Interpreter, InterpreterFunctions
    from xdsl.ir import Operation

    from gpuc.api import Module


def parse_host_module(
    source: str | os.PathLike[str], name: str | None = None
) -> ModuleOp:
    """The module at path `source` (or the MLIR text `source`), host part
    included, upgraded from MLIR's older spellings like every gpuc input."""
    from gpuc.diagnostics import read_source, verify_located
    from gpuc.host.dialects import host_context, upgrade_host_ops
    from gpuc.reader.text import (
        ForeignParser,
        hoist_trailing_aliases,
        upgrade_foreign_ops,
    )

    text = str(source)
    if os.path.isfile(text) or isinstance(source, os.PathLike):
        name = name or str(source)
        text = read_source(source)
    text, moved = hoist_trailing_aliases(text)
    module = ForeignParser(
        host_context(), text, name or "<input>", -moved
    ).parse_module(True)
    upgrade_foreign_ops(module)
    upgrade_host_ops(module)
    verify_located(module)
    return module


def host_ops(module: ModuleOp) -> Iterator[Operation]:
    """Every op of the module's host functions (not of its gpu.modules)."""
    from xdsl.dialects import func

    for op in module.ops:
        if isinstance(op, func.FuncOp):
            yield from (inner for inner in op.walk() if inner is not op)


def functions(
    module: ModuleOp, kernels: Module | None, stdout: IO[str]
) -> list[InterpreterFunctions]:
    """The interpreter functions the host runner runs host code with."""
    from xdsl.interpreters.arith import ArithFunctions
    from xdsl.interpreters.cf import CfFunctions
    from xdsl.interpreters.func import FuncFunctions
    from xdsl.interpreters.math import MathFunctions
    from xdsl.interpreters.scf import ScfFunctions

    from gpuc.host.interpret import (
        ArithHostFunctions,
        AsyncHostFunctions,
        ControlHostFunctions,
        GpuHostFunctions,
        MemRefHostFunctions,
        RunnerUtilsFunctions,
        ScfHostFunctions,
        VectorHostFunctions,
    )

    return [
        ArithFunctions(),
        CfFunctions(),
        FuncFunctions(),
        MathFunctions(),
        ScfFunctions(),
        ScfHostFunctions(),
        ArithHostFunctions(),
        ControlHostFunctions(),
        MemRefHostFunctions(module),
        GpuHostFunctions(kernels, stdout),
        AsyncHostFunctions(),
        VectorHostFunctions(stdout),
        RunnerUtilsFunctions(stdout),
    ]


def make_interpreter(
    module: ModuleOp, implementations: list[InterpreterFunctions]
) -> Interpreter:
    """An interpreter of `module` with `implementations`. An op whose class
    subclasses one they implement (gpuc's `arith` casts subclass xDSL's,
    gpuc/dialects/foreign/arith.py) runs as its base class does."""
    from xdsl.interpreter import Interpreter

    interpreter = Interpreter(module)
    for implementation in implementations:
        # gpuc's arith.constant (vector constants too) replaces xDSL's.
        interpreter.register_implementations(implementation, override=True)
    table = interpreter._impls._impl_dict  # noqa: SLF001 - no public lookup
    for op in host_ops(module):
        kind = type(op)
        base = next((b for b in kind.__mro__ if b in table), None)
        if kind not in table and base is not None:
            table[kind] = table[base]
    return interpreter


def check_host_ops(module: ModuleOp, interpreter: Interpreter) -> None:
    """An OpError at the first host op the runner cannot execute, and at the
    first call of a declared function it does not provide."""
    from xdsl.dialects import func

    from gpuc.diagnostics import OpError
    from gpuc.host.interpret import EXTERNAL_FUNCTIONS

    supported = interpreter._impls._impl_dict  # noqa: SLF001
    declared = {
        op.sym_name.data
        for op in module.ops
        if isinstance(op, func.FuncOp) and not op.body.blocks
    }
    for op in host_ops(module):
        if type(op) not in supported:
            raise OpError(
                op,
                f"host op '{op.name}' has no host implementation in gpuc run "
                "(docs/frontends.md, 'Running host code', lists the host ops it runs)",
            )
        if isinstance(op, func.CallOp):
            callee = op.callee.root_reference.data
            if callee in declared and callee not in EXTERNAL_FUNCTIONS:
                raise OpError(
                    op,
                    f"calls @{callee}, a declaration gpuc run does not provide "
                    f"(it provides {', '.join(EXTERNAL_FUNCTIONS)})",
                )


def compile_kernels(module: ModuleOp, target: str, **options: Any) -> Module | None:
    """The gpu.modules of `module`, moved out of it and compiled for `target`
    (None when it has none)."""
    from xdsl.dialects import gpu
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.api import compile as compile_module

    device = [op for op in module.ops if isinstance(op, gpu.ModuleOp)]
    if not device:
        return None
    for op in device:
        module.body.block.detach_op(op)
    return compile_module(ModuleOp(device), target=target, **options)


def run_host(
    source: str | os.PathLike[str] | ModuleOp,
    target: str = HOST_TARGET,
    *,
    entry: str = "main",
    stdout: IO[str] | None = None,
    args: Sequence[Any] = (),
    **options: Any,
) -> tuple[Any, ...]:
    """Run host function `entry` of `source` (a path, MLIR text or an xDSL
    module, which is changed: its launch regions are outlined and its
    gpu.modules moved out) on `args` (numpy arrays for memrefs, which it
    changes in place, Python numbers for scalars), its kernels compiled by
    gpuc for `target` (compiler options as for `gpuc.compile`) and launched
    on that target's executor. What the host code prints goes to `stdout`
    (default sys.stdout). Returns what `entry` returns (memrefs as numpy
    arrays)."""
    from xdsl.context import Context
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.utils.exceptions import DiagnosticException

    from gpuc.diagnostics import OpError
    from gpuc.driver import OptionError
    from gpuc.transforms.import_foreign import outline_host_code

    module = source if isinstance(source, ModuleOp) else parse_host_module(source)
    outline_host_code(Context(), module)
    main = next(
        (
            op
            for op in module.ops
            if isinstance(op, func.FuncOp) and op.sym_name.data == entry
        ),
        None,
    )
    if main is None or not main.body.blocks:
        raise OptionError(f"the module has no host function @{entry} to run (--entry)")
    kinds = main.function_type.inputs.data
    if len(kinds) != len(args):
        raise OpError(
            main,
            f"@{entry} takes {len(kinds)} argument(s); gpuc run calls it with "
            f"{len(args)}",
        )
    out = stdout if stdout is not None else sys.stdout
    check_host_ops(module, make_interpreter(module, functions(module, None, out)))
    kernels = compile_kernels(module, target, **options)
    implementations = functions(module, kernels, out)
    interpreter = make_interpreter(module, implementations)
    from gpuc.host.interpret import GpuHostFunctions, host_argument, plain

    values = tuple(
        host_argument(interpreter, main, k, a, kind)
        for k, (a, kind) in enumerate(zip(args, kinds, strict=True))
    )

    streams = [i.streams for i in implementations if isinstance(i, GpuHostFunctions)]
    try:
        try:
            results = plain(interpreter.call_op(entry, values))
        except BaseException:
            for chains in streams:
                chains.drain()  # no kernel may run on past the error
            raise
        for chains in streams:
            chains.finish()  # the async work not waited for
        return results
    except DiagnosticException as e:
        cause: BaseException | None = e
        while cause is not None and not isinstance(cause, OpError):
            cause = cause.__cause__ or cause.__context__
        if cause is not None:
            # xDSL's interpreter noted a dump of the module on the error at
            # each op it passed through: the diagnostic is located already.
            notes = getattr(cause, "__notes__", [])
            notes[:] = [n for n in notes if "Error while interpreting op" not in n]
            raise cause from None
        raise
    finally:
        out.flush()
