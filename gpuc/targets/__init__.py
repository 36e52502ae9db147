"""Target registry: name -> Target subclass, imported lazily."""

from __future__ import annotations

from typing import Any

from xdsl.utils.exceptions import DiagnosticException

from gpuc.registry import lazy
from gpuc.targets.base import Target

TARGETS: dict[str, str] = {
    "ptx": "gpuc.targets.ptx:PTXTarget",
    "spirv": "gpuc.targets.spirv:SPIRVTarget",
    "native": "gpuc.targets.native:NativeTarget",
}


def get_target(name: str, **options: Any) -> Target:
    """The target called `name`, configured with `options`."""
    if name not in TARGETS:
        raise DiagnosticException(
            f"unknown target '{name}'; expected one of: {', '.join(TARGETS)}"
        )
    cls: type[Target] = lazy(TARGETS[name])()
    return cls(**options)
