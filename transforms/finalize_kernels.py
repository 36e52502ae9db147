"""`finalize-kernels`: the finalization schedule. The target's per-kernel
finishing (`Target.finalize_kernel`: ABI, calling convention, hidden state)
runs on the kernels of the entrypoint set, in its order, and on nothing else:
an exported helper is public but not finalized. The target is the pass
option, else the module's `gpuc.target`, else ptx.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import ENTRYPOINTS_ATTR, TARGET_ATTR
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.symbols import build_table
from gpuc.targets import get_target
from gpuc.transforms.classify_entrypoints import read_entrypoints

DEFAULT_TARGET = "ptx"


def target_name(module: ModuleOp, option: str = "") -> str:
    """The target a stage works for: its option, the module's, or the default."""
    if option:
        return option
    attr = module.attributes.get(TARGET_ATTR)
    if attr is None:
        return DEFAULT_TARGET
    if not isinstance(attr, StringAttr):
        raise OpError(module, f"'{TARGET_ATTR}' must be a string, got {attr}")
    return attr.data


def finalization_schedule(module: ModuleOp) -> list[FuncOp]:
    """The kernels of the entrypoint set, in its order: what gets finalized."""
    table = build_table(module)
    kernels: list[FuncOp] = []
    for name in read_entrypoints(module):
        op = table.get(name)
        if op is None:
            raise OpError(
                module,
                f"entrypoint @{name} (in '{ENTRYPOINTS_ATTR}') is not in the module; "
                "re-run classify-entrypoints after changing the module's symbols",
            )
        if isinstance(op, FuncOp) and op.is_kernel:
            kernels.append(op)
    return kernels


def finalize_kernels(module: ModuleOp, target: str = "") -> list[FuncOp]:
    """Run the target's kernel finishing on the schedule; return the schedule."""
    chosen = get_target(target_name(module, target))
    schedule = finalization_schedule(module)
    for kernel in schedule:
        chosen.finalize_kernel(module, kernel)
    return schedule


@dataclass(frozen=True)
class FinalizeKernels(ModulePass):
    """Finish each kernel of the entrypoint set for `target`."""

    name = "finalize-kernels"

    target: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        finalize_kernels(op, self.target)
