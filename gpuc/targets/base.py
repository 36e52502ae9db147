"""What every target provides: data (triple, data layout, address-space
numbers) plus a few hooks. A new target is one new file in this package that
subclasses `Target` and registers itself in `gpuc/targets/__init__.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import ModuleOp

from gpuc.dialects.functions import FuncOp


@dataclass(frozen=True)
class Target:
    """Base of all targets; options are dataclass fields (frozen, hashable)."""

    name: ClassVar[str]

    def finalize_kernel(self, module: ModuleOp, kernel: FuncOp) -> None:
        """Per-kernel finishing at the dialect level (the finalization schedule
        calls this once for each kernel of the entrypoint set). Default: nothing."""

    def verify_module(self, module: ModuleOp) -> None:
        """Raise `DiagnosticException` for what this target cannot express.
        Default: everything is expressible."""
