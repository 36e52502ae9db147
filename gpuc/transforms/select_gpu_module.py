"""`select-gpu-module`: keep only one gpu.module of a foreign module (by
name), the one to compile; the host code around it goes with the import
anyway. Naming a gpu.module the module does not have is a diagnostic listing
those it has. The driver's `gpu_module` option and `import{gpu-module=...}`
are this pass in the import's list.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class SelectGpuModule(ModulePass):
    """Keep gpu.module @name, erase the others."""

    name = "select-gpu-module"

    module: str = ""
    """The gpu.module's name (`select-gpu-module{module=b}`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gpuc.transforms.foreign.conversion import select_gpu_module

        select_gpu_module(op, self.module)
