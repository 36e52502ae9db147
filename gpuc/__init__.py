"""gpuc: a GPU kernel compiler on xDSL.

`import gpuc` stays cheap: `gpuc.compile` and friends load the compiler
(xDSL, llvmlite) and the executors on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "compile",
    "Module",
    "Kernel",
    "LaunchError",
    "UnknownKernel",
    "OptionError",
    "SourceParseError",
]

_LAZY = {
    "compile": "gpuc.api:compile",
    "Module": "gpuc.api:Module",
    "Kernel": "gpuc.api:Kernel",
    "LaunchError": "gpuc.runtime.args:LaunchError",
    "UnknownKernel": "gpuc.api:UnknownKernel",
    "OptionError": "gpuc.driver:OptionError",
    "SourceParseError": "gpuc.diagnostics:SourceParseError",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from gpuc.registry import lazy

        value = lazy(_LAZY[name])()
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gpuc' has no attribute '{name}'")
