"""`import`: modules from other xDSL frontends (func, gpu, memref) into gpuc,
as a list of passes (`ImportForeign.passes()`), each its own pass that runs
alone with `-p`; the dialect pipeline lists them in its own list, so
`--print-ir-after-all`, the dumps and `gpuc explain` show each:

    upgrade-foreign                MLIR's spellings (readers that did not)
    expand-affine                  affine.apply/min/max into arith
    convert-parallel-loops-to-gpu  mapped scf.parallel nests into gpu.launch
    gpu-kernel-outlining           gpu.launch bodies into gpu.func kernels
    select-gpu-module              one gpu.module, when one is named
    unroll-vectors                 n-D vectors into 1-D pieces
    convert-foreign-to-gpuc        functions into gpuc.func

A module of gpuc, arith, math, scf and cf ops alone, which is what gpuc's own
users write, has nothing to import (`import_needed`: one walk, or none where
the driver's reader knew it as it read the text): the pipeline then leaves
the list out and never imports the conversion or xDSL's gpu and
memref dialects (about 30 ms of a compile's start).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.transforms.convert_foreign_to_gpuc import has_foreign_ops


def outlining_passes() -> tuple[ModulePass, ...]:
    """Host code's mapped loop nests and gpu.launch ops into outlined kernels
    (MLIR's `convert-parallel-loops-to-gpu` and `gpu-kernel-outlining`), the
    affine ops tiling leaves expanded first."""
    from gpuc.transforms.convert_parallel_loops_to_gpu import (
        ConvertParallelLoopsToGpu,
    )
    from gpuc.transforms.expand_affine import ExpandAffine
    from gpuc.transforms.gpu_kernel_outlining import GpuKernelOutlining

    return (ExpandAffine(), ConvertParallelLoopsToGpu(), GpuKernelOutlining())


def outline_host_code(ctx: Context, op: ModuleOp) -> None:
    """Run the outlining passes on `op` (`gpuc run`'s host code)."""
    for outlining in outlining_passes():
        outlining.apply(ctx, op)


def import_needed(
    module: ModuleOp, gpu_module: str = "", foreign: bool | None = None
) -> bool:
    """Whether `module` gets the import's passes: it has foreign ops (`foreign`
    where the caller knows, else `has_foreign_ops` walks it), or a gpu.module
    to select is named (and naming one it lacks is a diagnostic)."""
    if gpu_module:
        return True
    return has_foreign_ops(module) if foreign is None else foreign


@dataclass(frozen=True)
class ImportForeign(ModulePass):
    """Turn func/gpu/memref modules from other frontends into the gpuc dialect."""

    name = "import"

    upgrade: bool = True
    """Upgrade MLIR's older spellings first. gpuc's readers (gpuc-opt,
    `gpuc.compile`) upgrade as they parse, and the driver turns this off; a
    module read by another tool (xdsl-opt, whose parser is xDSL's) needs it."""

    gpu_module: str = ""
    """Compile only this gpu.module (by name); empty: all of them."""

    def passes(self) -> tuple[ModulePass, ...]:
        """The import's passes, in order."""
        from gpuc.transforms.convert_foreign_to_gpuc import ConvertForeignToGpuc
        from gpuc.transforms.select_gpu_module import SelectGpuModule
        from gpuc.transforms.unroll_vectors import UnrollVectors
        from gpuc.transforms.upgrade_foreign import UpgradeForeign

        return (
            *((UpgradeForeign(),) if self.upgrade else ()),
            *outlining_passes(),
            *((SelectGpuModule(self.gpu_module),) if self.gpu_module else ()),
            UnrollVectors(),
            ConvertForeignToGpuc(),
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gpuc.transforms.gpuc_pipeline import run_passes

        if import_needed(op, self.gpu_module):
            run_passes(ctx, op, self.passes())
