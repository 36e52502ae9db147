"""The public compile entry point: `compile_module` runs every stage of
`gpuc.driver` through the compile cache (gpuc/cache/) and returns what the
executors need. It sits above both: the driver knows nothing of the cache, and
the cache runs the driver's stages (`driver.run`), never this module.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from gpuc.driver import KernelInfo, kernel_infos, make_options
from gpuc.targets.base import Target


@dataclass
class CompileResult:
    target: Target
    """The configured target object."""
    module: ModuleOp
    """The module after the dialect pipeline."""
    llvm_ir: str
    """Optimized LLVM IR text."""
    artefact: bytes | str
    """PTX text, a SPIR-V binary or a native object file."""
    kernels: dict[str, KernelInfo]
    """The entrypoint set's kernels."""
    cache: str = "off"
    """How the compile cache served it: 'hit', 'miss' or 'off'
    (gpuc/cache/compiling.py)."""


def compile_module(
    source: str | os.PathLike[str] | ModuleOp,
    target: str | None = None,
    *,
    cache: bool | None = None,
    dump_dir: str | os.PathLike[str] | None = None,
    dump_filter: str | Sequence[str] | None = None,
    owned: bool = False,
    **options: Any,
) -> CompileResult:
    """Compile `source` (a path, MLIR text or an xDSL module) for `target`
    (None: the module's `#gpuc.target`, else `DEFAULT_TARGET`); options as on
    the command line: sm, ptx_isa, opt_level, exports, libraries, fp_contract,
    validate, line_info, and generators ({name: Generator}). A module is not changed: a
    copy is compiled. Text that does not parse is a SourceParseError.

    `owned=True`: `source` is a module a frontend just built for this compile,
    verified by construction (gpuc/python/): it is compiled in place, neither
    copied nor verified before the pipeline (whose end still verifies it).

    `cache` (None: GPUC_CACHE, on unless 0) uses the compile cache, `dump_dir`
    (None: GPUC_DUMP_DIR) writes every stage there, `dump_filter` keeps the
    stages matching its patterns (docs/cache.md)."""
    from xdsl.utils.exceptions import ParseError

    from gpuc.cache import store as compile_cache
    from gpuc.cache.compiling import compile_through
    from gpuc.diagnostics import SourceParseError
    from gpuc.dumps import Dumps, dump_directory, write_api_reproducer

    dumps_to = dump_directory(dump_dir)
    # A dump keeps the parse stage, which shows the module as it came.
    verified = owned and isinstance(source, ModuleOp) and not dumps_to
    if isinstance(source, ModuleOp) and not verified:
        source = source.clone()
    dumps = Dumps.create(dumps_to, source, dump_filter) if dumps_to else None
    store = compile_cache.Cache() if compile_cache.enabled(cache) else None
    try:
        cached = compile_through(
            source,
            make_options(target, options),
            cache=store,
            dumps=dumps,
            verified=verified,
        )
    except ParseError as e:
        raise SourceParseError(e) from None
    except Exception as e:
        if dumps is not None and not isinstance(e, DiagnosticException | OSError):
            where = write_api_reproducer(source, target, options, e, dumps.directory)
            e.add_note(f"gpuc: a reproducer is in {where} (run repro.py)")
        raise
    c = cached.compilation
    assert c.module is not None and c.llvm_ir is not None and c.artefact is not None
    return CompileResult(
        c.target,
        c.module,
        c.llvm_ir,
        c.artefact,
        kernel_infos(c.module),
        cached.outcome,
    )


def specialized_llvm_ir(module: ModuleOp, kernel: str, block: Sequence[int]) -> str:
    """The optimized LLVM IR of `module` (a CompileResult's, after the dialect
    pipeline) with `kernel` known to run with `block` (x, y, z), as if it had
    `gpu.known_block_size`: the native target's work-group function then
    loops over constant thread counts, which LLVM vectorizes and unrolls
    without run-time checks (what an OpenCL runtime gets by compiling each
    kernel for the local size of its launch). Only the stages from
    translation on run again, with the module's own settings."""
    from xdsl.dialects.builtin import DenseArrayBase, i32
    from xdsl.traits import SymbolTable

    from gpuc.dialects.attrs import FINALIZED_ATTR
    from gpuc.dialects.functions import FuncOp
    from gpuc.driver import CompileOptions, run
    from gpuc.targets import configured_attr, target_of_attr
    from gpuc.targets.base import KNOWN_BLOCK_SIZE_ATTR
    from gpuc.transforms.classify_entrypoints import write_entrypoints
    from gpuc.transforms.symbol_dce import symbol_dce
    from gpuc.transforms.symbol_privatize import set_visibility

    copy = module.clone()
    func = SymbolTable.lookup_symbol(copy, kernel)
    assert func is not None, kernel
    func.attributes[KNOWN_BLOCK_SIZE_ATTR] = DenseArrayBase.from_list(i32, block)
    # The other kernels go (unless something refers to them), and the helpers
    # only they call: the JIT compiles this kernel, not the module again.
    for op in copy.ops:
        if (
            op is not func
            and isinstance(op, FuncOp)
            and FINALIZED_ATTR in op.attributes
        ):
            set_visibility(op, "private")
    write_entrypoints(copy, [kernel])
    symbol_dce(copy)
    attr = configured_attr(copy)
    target, settings = target_of_attr(attr), attr.settings
    options = CompileOptions(
        target.name,
        tuple(sorted(target.options().items())),
        opt_level=settings.opt_level,
        fp_contract=settings.fp_contract,
        line_info=settings.line_info,
        checked=settings.checked,
    )
    c = run(copy, options, start="translate", stop_after="optimize")
    assert c.llvm_ir is not None
    return c.llvm_ir
