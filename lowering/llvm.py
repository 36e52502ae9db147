"""The LLVM side: llvmlite initialization, parsing and verifying the translated
module, and optimization through LLVM's new pass builder (the O0-O3 pipelines
clang uses, tuned for the target machine)."""

from __future__ import annotations

from gpuc.lowering.diagnostics import LoweringError
from llvmlite import binding as llvm
from llvmlite import ir

_INITIALIZED = False
_OPTIONS: set[str] = set()


def initialize(options: tuple[str, ...] = ()) -> None:
    """Initialize LLVM's targets once per process; apply `llvm::cl` options once each
    (they are process-wide, so each is set the first time a target asks)."""
    global _INITIALIZED
    if not _INITIALIZED:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        _INITIALIZED = True
    for option in options:
        if option not in _OPTIONS:
            llvm.set_option("gpuc", option)
            _OPTIONS.add(option)


def parse(module: ir.Module) -> llvm.ModuleRef:
    """The llvmlite binding module of `module`, verified."""
    text = str(module)
    try:
        parsed = llvm.parse_assembly(text)
        parsed.verify()
    except RuntimeError as e:
        raise LoweringError(
            f"internal error: the translated LLVM IR does not verify (please report "
            f"it with the input):\n{e}"
        ) from None
    return parsed


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine, level: int) -> None:
    """Run LLVM's default O`level` pipeline on `module`, in place."""
    if not 0 <= level <= 3:
        raise LoweringError(f"optimization level {level} is not one of 0, 1, 2, 3")
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_vectorization = level >= 2
    pto.slp_vectorization = level >= 2
    builder = llvm.create_pass_builder(tm, pto)
    builder.getModulePassManager().run(module, builder)
