"""`finalize-kernels`: the finalization schedule. The configured target's
per-kernel finishing (`Target.finalize_kernel`) runs on the kernels of the
entrypoint set, in its order, and on nothing else (an exported helper is
public but not finalized); each kernel gets the record of every decision the
target took for it, `#gpuc.finalized<...>`, which the lowering, the driver and
the executors read. The call-graph facts are computed once per module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.analysis import kernel_facts
from gpuc.dialects.attrs import ENTRYPOINTS_ATTR, FINALIZED_ATTR
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.symbols import lookup_in
from gpuc.targets import configured_target
from gpuc.transforms.classify_entrypoints import read_entrypoints


def finalization_schedule(module: ModuleOp) -> list[FuncOp]:
    """The kernels of the entrypoint set, in its order: what gets finalized."""
    kernels: list[FuncOp] = []
    for name in read_entrypoints(module):
        op = lookup_in(module, name)  # the table last built, each hit checked
        if op is None:
            raise OpError(
                module,
                f"entrypoint @{name} (in '{ENTRYPOINTS_ATTR}') is not in the module; "
                "re-run classify-entrypoints after changing the module's symbols",
            )
        if isinstance(op, FuncOp) and op.is_kernel:
            kernels.append(op)
    return kernels


def finalize_kernels(module: ModuleOp) -> list[FuncOp]:
    """Record the target's decisions on each kernel of the schedule; return it."""
    target = configured_target(module)
    schedule = finalization_schedule(module)
    facts = kernel_facts(module, [k.sym_name.data for k in schedule])
    for kernel in schedule:
        record = target.finalize_kernel(kernel, facts[kernel.sym_name.data])
        kernel.attributes[FINALIZED_ATTR] = record
    return schedule


@dataclass(frozen=True)
class FinalizeKernels(ModulePass):
    """Finish each kernel of the entrypoint set for the module's target."""

    name = "finalize-kernels"
    preserves_call_graph: ClassVar[bool] = True
    """It changes no call, function or op (`gpuc.dialects.call_graph`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        finalize_kernels(op)
