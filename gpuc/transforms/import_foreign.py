"""`import`: modules from other xDSL frontends (func, gpu, memref) into gpuc.

Functions become `gpuc.func` with a role (kernel from a `gpu.kernel` unit
attribute or `gpu.func ... kernel`, else helper) and their MLIR visibility;
gpu index and barrier ops become gpuc's; memrefs become pointers with the
bare-pointer convention of foreign/bare_pointers.py; the affine ops of
tiled loops become arith (gpuc/dialects/foreign/affine.py). Host code with mapped
`scf.parallel` nests or `gpu.launch` ops is outlined first (MLIR's
`convert-parallel-loops-to-gpu` and `gpu-kernel-outlining`). When the module
holds gpu.modules, their contents are the compiled module (each its own
namespace: a name two of them define becomes `@"module::name"`) and the host
code around them is dropped; `gpu-module` picks one. Unsupported input is
reported (foreign/checks.py) before anything changes; gpuc ops pass through,
so running the pass twice is harmless.

A module of gpuc, arith, math, scf and cf ops alone, which is what gpuc's own
users write, has nothing to import: the pass sees that in one walk and never
imports the conversion (foreign/conversion.py) or xDSL's gpu and memref
dialects (about 30 ms of a compile's start).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    MemRefType,
    ModuleOp,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gpuc.dialects.call_graph import invalidate_call_graph

FOREIGN_DIALECTS = frozenset({"func", "gpu", "memref", "amdgpu", "affine"})
"""Dialects whose ops the import converts (or rejects with a diagnostic)."""
FOREIGN_TYPES = (MemRefType, UnrankedMemRefType, TensorType, UnrankedTensorType)
"""Types the import converts (or rejects), wherever a value has them."""


def is_foreign(op: Operation) -> bool:
    """Whether the import has anything to do with `op` itself (vectors of
    several dimensions, which it unrolls, included)."""
    if op.name.split(".")[0] in FOREIGN_DIALECTS:
        return True
    args = (a for region in op.regions for b in region.blocks for a in b.args)
    return any(
        isinstance(v.type, FOREIGN_TYPES)
        or isinstance(v.type, VectorType)
        and v.type.get_num_dims() != 1
        for v in (*op.results, *args)
    )


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

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(is_foreign(inner) for inner in op.walk()):
            return
        from gpuc.reader.text import upgrade_foreign_ops
        from gpuc.transforms.foreign.conversion import import_functions
        from gpuc.transforms.foreign.vector_unroll import unroll_vectors

        if self.upgrade:
            upgrade_foreign_ops(op)
        outline_host_code(ctx, op)
        unroll_vectors(op, self.gpu_module or None)
        import_functions(op, self.gpu_module or None)
        invalidate_call_graph(op)


def keep_gpu_module(ctx: Context, op: ModuleOp, name: str) -> None:
    """Outline the host code, then keep only gpu.module @name (the driver's
    `gpu_module` option; the pass's `gpu-module`)."""
    from gpuc.transforms.foreign.conversion import select_gpu_module

    outline_host_code(ctx, op)
    select_gpu_module(op, name)


def outline_host_code(ctx: Context, op: ModuleOp) -> None:
    """Run `convert-parallel-loops-to-gpu` and `gpu-kernel-outlining` on host
    code that has mapped loop nests or gpu.launch ops: their kernels are what
    the import then takes. The affine ops tiling leaves are expanded into
    arith first, so that loop bounds and launch sizes are plain arithmetic."""
    from xdsl.dialects import gpu

    from gpuc.dialects.foreign.affine import expand_affine_ops
    from gpuc.transforms.convert_parallel_loops_to_gpu import (
        ConvertParallelLoopsToGpu,
        outermost_mapped_loops,
    )
    from gpuc.transforms.gpu_kernel_outlining import GpuKernelOutlining

    expand_affine_ops(op)
    if outermost_mapped_loops(op):
        ConvertParallelLoopsToGpu().apply(ctx, op)
    if any(isinstance(o, gpu.LaunchOp) for o in op.walk()):
        GpuKernelOutlining().apply(ctx, op)
