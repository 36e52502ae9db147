"""The LLVM side: llvmlite initialization, parsing and verifying the translated
module, and optimization through LLVM's new pass builder (the O0-O3 pipelines
clang uses, tuned for the target machine; at O0, constants folded for a
back-end that cannot emit them unfolded)."""

from __future__ import annotations

import os
import struct
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from llvmlite import binding as llvm

from gpuc.lowering.diagnostics import LoweringError

_INITIALIZED = False
_OPTIONS: set[str] = set()


@dataclass(frozen=True)
class PipelineTuning:
    """What a target changes in LLVM's O2/O3 pipeline: transformations that
    whoever consumes its output does better (a driver's JIT that unrolls and
    vectorizes for the device it knows) or that its hardware makes slow."""

    loop_unrolling: bool = True
    loop_vectorization: bool = True
    slp_vectorization: bool = True
    fold_constants_at_o0: bool = False
    """Run sparse conditional constant propagation even at -O0, and nothing
    else: for a back-end that cannot select some all-constant instructions.
    LLVM 22's SPIR-V back-end reaches UNREACHABLE ("Unexpected integer
    constant pattern") on some whose value is 0 (`xor i32 127, 127`, `sub`,
    `and` or `mul` giving 0), and LLVM's O0 pipeline folds nothing; SCCP
    replaces them (and branches on them) by their values."""


_TUNINGS: weakref.WeakKeyDictionary[llvm.TargetMachine, PipelineTuning] = (
    weakref.WeakKeyDictionary()
)


def tuned(tm: llvm.TargetMachine, tuning: PipelineTuning) -> llvm.TargetMachine:
    """`tm`, which `optimize` will run with `tuning`: like an LLVM target
    machine, a target's machine decides how the pipeline built for it differs
    from the default one."""
    _TUNINGS[tm] = tuning
    return tm


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


def parse(text: str) -> llvm.ModuleRef:
    """The llvmlite binding module of the LLVM IR `text`, verified."""
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
    """Run LLVM's default O`level` pipeline on `module`, in place, with the
    changes `tm`'s target asked for (`tuned`; at O0, constant folding where
    the back-end needs it: `PipelineTuning.fold_constants_at_o0`)."""
    if not 0 <= level <= 3:
        raise LoweringError(f"optimization level {level} is not one of 0, 1, 2, 3")
    tuning = _TUNINGS.get(tm, PipelineTuning())
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_unrolling = tuning.loop_unrolling
    pto.loop_vectorization = level >= 2 and tuning.loop_vectorization
    pto.slp_vectorization = level >= 2 and tuning.slp_vectorization
    builder = llvm.create_pass_builder(tm, pto)
    builder.getModulePassManager().run(module, builder)
    if level == 0 and tuning.fold_constants_at_o0:
        folding = llvm.create_new_module_pass_manager()
        folding.add_sccp_pass()
        folding.run(module, builder)


def _llvmlite_lock() -> AbstractContextManager[object]:
    """llvmlite's process-wide lock around its C API (a private attribute:
    without it, a null context)."""
    from llvmlite.binding import ffi

    lock = getattr(getattr(ffi, "lib", None), "_lock", None)
    return lock if isinstance(lock, AbstractContextManager) else nullcontext()


def in_child_process(work: Callable[[], bytes], what: str) -> bytes:
    """`work()`, run in a forked child that sends its bytes back and exits.

    For back-ends with process-wide state that leaks from one module into the
    next: LLVM 22's SPIR-V back-end keeps its module analysis in a static
    (llvm/llvm-project#160613) whose block-id table is never cleared, so once
    memory of an earlier module is reused, ids collide and the output changes
    (or is invalid). A child starts from the parent's state, where no SPIR-V
    was ever emitted, and a fatal LLVM error there ends the child, not the
    caller. Without fork (not POSIX), `work` runs here.
    """
    if not hasattr(os, "fork"):
        return work()
    read_end, write_end = os.pipe()
    # Fork holding llvmlite's lock (it serializes every LLVM call): had another
    # thread held it, the child would wait on it forever.
    with _llvmlite_lock():
        pid = os.fork()
    if pid == 0:  # the child: never return into the caller's code
        status = 1
        try:
            os.close(read_end)
            data = work()
            with os.fdopen(write_end, "wb") as out:
                out.write(struct.pack("<Q", len(data)) + data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or len(payload) < 8:
        raise LoweringError(
            f"{what} failed in LLVM (exit status {os.waitstatus_to_exitcode(status)}; "
            "its message, if any, is above); this is a bug in gpuc's verify-target "
            "or in LLVM: please report it with the input"
        )
    (size,) = struct.unpack("<Q", payload[:8])
    return payload[8 : 8 + size]
