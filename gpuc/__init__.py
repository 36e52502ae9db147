"""gpuc: a GPU kernel compiler on xDSL.

`import gpuc` stays cheap: `gpuc.compile` and friends load the compiler
(xDSL, llvmlite) and the executors on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compile", "Module", "Kernel", "LaunchError"]

_LAZY = {
    "compile": "gpuc.api:compile",
    "Module": "gpuc.api:Module",
    "Kernel": "gpuc.api:Kernel",
    "LaunchError": "gpuc.runtime.args:LaunchError",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from gpuc.registry import lazy

        value = lazy(_LAZY[name])()
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gpuc' has no attribute '{name}'")
