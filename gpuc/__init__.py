"""gpuc: a GPU kernel compiler on xDSL.

`import gpuc` stays cheap: `gpuc.compile` and friends load the compiler
(xDSL, llvmlite) and the executors on first use, and `gpuc.__version__` reads
the installed distribution's metadata (pyproject.toml's version is the one
source).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the interpreter's own: instant
import os as _os
import sys as _sys


def _exit_quietly(signum: int, frame: object) -> None:
    _os._exit(130)


if (
    _os.path.basename(_sys.argv[0]) in ("gpuc", "gpuc-opt")
    and getattr(_sys.modules.get("__main__"), "__file__", None) == _sys.argv[0]
):
    # A command's console script is importing its client (gpuc/cli/client.py,
    # which gives Ctrl-C back to Python once the command starts): Ctrl-C
    # meanwhile ends it as the command would, with status 130 and no
    # traceback; nothing was read or written yet.
    _signal.signal(_signal.SIGINT, _exit_quietly)

TYPE_CHECKING = False  # typing itself costs a command's start 2 ms
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "__version__",
    "compile",
    "compile_many",
    "compile_each",
    "autotune",
    "run_host",
    "blocks",
    "SharedMemory",
    "Module",
    "Kernel",
    "LaunchError",
    "UnknownKernel",
    "OptionError",
    "SourceParseError",
    "kernel",
    "func",
    "to_mlir",
    "KernelError",
    "Array",
    "constexpr",
    "f16",
    "bf16",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "index",
    "bool",
    "thread_id",
    "block_id",
    "block_dim",
    "grid_dim",
    "global_id",
    "lane_id",
    "subgroup_size",
    "barrier",
    "shared",
    "local",
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_exchange",
    "atomic_cas",
    "shuffle",
    "shuffle_xor",
    "shuffle_down",
    "shuffle_up",
    "subgroup_sum",
    "subgroup_min",
    "subgroup_max",
    "vote_any",
    "vote_all",
    "ballot",
    "deferred",
    "address",
    "launch",
]

_LAZY = {
    "compile": "gpuc.api:compile",
    "compile_many": "gpuc.api:compile_many",
    "compile_each": "gpuc.api:compile_each",
    "autotune": "gpuc.tuning:autotune",
    "run_host": "gpuc.host.runner:run_host",
    "blocks": "gpuc.api:blocks",
    "SharedMemory": "gpuc.runtime.arrays:SharedMemory",
    "Module": "gpuc.api:Module",
    "Kernel": "gpuc.api:Kernel",
    "LaunchError": "gpuc.runtime.launch_types:LaunchError",
    "UnknownKernel": "gpuc.api:UnknownKernel",
    "OptionError": "gpuc.driver:OptionError",
    "SourceParseError": "gpuc.diagnostics:SourceParseError",
    # Kernels in Python (gpuc/python/, docs/python.md)
    "kernel": "gpuc.python.decorators:kernel",
    "func": "gpuc.python.decorators:func",
    "to_mlir": "gpuc.python.module:to_mlir",
    "KernelError": "gpuc.python.source:KernelError",
    "Array": "gpuc.python.types:Array",
    "constexpr": "gpuc.python.types:constexpr",
    "f16": "gpuc.python.types:f16",
    "bf16": "gpuc.python.types:bf16",
    "f32": "gpuc.python.types:f32",
    "f64": "gpuc.python.types:f64",
    "i8": "gpuc.python.types:i8",
    "i16": "gpuc.python.types:i16",
    "i32": "gpuc.python.types:i32",
    "i64": "gpuc.python.types:i64",
    "index": "gpuc.python.types:index",
    "bool": "gpuc.python.types:boolean",
    "thread_id": "gpuc.python.intrinsics:thread_id",
    "block_id": "gpuc.python.intrinsics:block_id",
    "block_dim": "gpuc.python.intrinsics:block_dim",
    "grid_dim": "gpuc.python.intrinsics:grid_dim",
    "global_id": "gpuc.python.intrinsics:global_id",
    "lane_id": "gpuc.python.intrinsics:lane_id",
    "subgroup_size": "gpuc.python.intrinsics:subgroup_size",
    "barrier": "gpuc.python.intrinsics:barrier",
    "shared": "gpuc.python.intrinsics:shared",
    "local": "gpuc.python.intrinsics:local",
    "atomic_add": "gpuc.python.intrinsics:atomic_add",
    "atomic_sub": "gpuc.python.intrinsics:atomic_sub",
    "atomic_min": "gpuc.python.intrinsics:atomic_min",
    "atomic_max": "gpuc.python.intrinsics:atomic_max",
    "atomic_exchange": "gpuc.python.intrinsics:atomic_exchange",
    "atomic_cas": "gpuc.python.intrinsics:atomic_cas",
    "shuffle": "gpuc.python.intrinsics:shuffle",
    "shuffle_xor": "gpuc.python.intrinsics:shuffle_xor",
    "shuffle_down": "gpuc.python.intrinsics:shuffle_down",
    "shuffle_up": "gpuc.python.intrinsics:shuffle_up",
    "subgroup_sum": "gpuc.python.intrinsics:subgroup_sum",
    "subgroup_min": "gpuc.python.intrinsics:subgroup_min",
    "subgroup_max": "gpuc.python.intrinsics:subgroup_max",
    "vote_any": "gpuc.python.intrinsics:vote_any",
    "vote_all": "gpuc.python.intrinsics:vote_all",
    "ballot": "gpuc.python.intrinsics:ballot",
    "deferred": "gpuc.python.intrinsics:deferred",
    "address": "gpuc.python.intrinsics:address",
    "launch": "gpuc.python.intrinsics:launch",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gpuc")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _LAZY:
        from gpuc.registry import lazy

        value = lazy(_LAZY[name])()
    else:
        raise AttributeError(f"module 'gpuc' has no attribute '{name}'")
    globals()[name] = value
    return value
