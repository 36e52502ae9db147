"""What gpuc registers, by name, without importing any of it.

Every factory imports its module only when called, so `xdsl-opt` (which loads
every plugin's universe) and `gpuc-opt` pay for a pass or dialect only when a
module or pipeline uses it. An import error inside a factory surfaces only for
that pass, never for every `xdsl-opt` call on the machine.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy(path: str) -> Callable[[], Any]:
    """A factory returning the object named by `module:attribute` on first call."""
    module_name, attribute = path.split(":")

    def factory() -> Any:
        return getattr(import_module(module_name), attribute)

    factory.__qualname__ = f"lazy({path})"
    return factory


# Pass name -> "module:ModulePass subclass". The generic passes keep MLIR's names.
PASSES: dict[str, str] = {
    "import": "gpuc.transforms.import_foreign:ImportForeign",
    "upgrade-foreign": "gpuc.transforms.upgrade_foreign:UpgradeForeign",
    "expand-affine": "gpuc.transforms.expand_affine:ExpandAffine",
    "select-gpu-module": "gpuc.transforms.select_gpu_module:SelectGpuModule",
    "unroll-vectors": "gpuc.transforms.unroll_vectors:UnrollVectors",
    "convert-foreign-to-gpuc": (
        "gpuc.transforms.convert_foreign_to_gpuc:ConvertForeignToGpuc"
    ),
    "convert-parallel-loops-to-gpu": (
        "gpuc.transforms.convert_parallel_loops_to_gpu:ConvertParallelLoopsToGpu"
    ),
    "gpu-kernel-outlining": "gpuc.transforms.gpu_kernel_outlining:GpuKernelOutlining",
    "resolve-deferred": "gpuc.transforms.resolve_deferred:ResolveDeferred",
    "classify-entrypoints": "gpuc.transforms.classify_entrypoints:ClassifyEntrypoints",
    "symbol-privatize": "gpuc.transforms.symbol_privatize:SymbolPrivatize",
    "privatize": "gpuc.transforms.privatize:Privatize",
    "inline": "gpuc.transforms.inline:Inline",
    "symbol-dce": "gpuc.transforms.symbol_dce:SymbolDCE",
    "lift-cf": "gpuc.transforms.lift_cf:LiftCf",
    "attach-target": "gpuc.transforms.attach_target:AttachTarget",
    "finalize-kernels": "gpuc.transforms.finalize_kernels:FinalizeKernels",
    "verify-target": "gpuc.transforms.verify_target:VerifyTarget",
    "form-work-groups": "gpuc.targets.native.form_work_groups:FormWorkGroups",
    "plan-printing": "gpuc.targets.spirv.plan_printing:PlanPrinting",
    "gpuc-pipeline": "gpuc.transforms.gpuc_pipeline:GpucPipeline",
}

# Dialects gpuc-opt understands. xDSL's `gpu` is only needed by the import pass
# (foreign modules), so it is registered lazily like the rest.
DIALECTS: dict[str, str] = {
    "builtin": "xdsl.dialects.builtin:Builtin",
    "gpuc": "gpuc.dialects.gpuc:GPUC",
    "func": "gpuc.dialects.foreign.func:Func",
    "arith": "gpuc.dialects.foreign.arith:Arith",
    "math": "xdsl.dialects.math:Math",
    "scf": "xdsl.dialects.scf:Scf",
    "cf": "xdsl.dialects.cf:Cf",
    "vector": "gpuc.dialects.foreign.vector:Vector",
    "memref": "gpuc.dialects.foreign.memref:MemRef",
    "gpu": "gpuc.dialects.foreign.gpu:GPU",
    "amdgpu": "gpuc.dialects.foreign.amdgpu:AMDGPU",
    "affine": "gpuc.dialects.foreign.affine:Affine",
    "llvm": "gpuc.dialects.foreign.llvm_types:LLVMTypes",
    "spirv": "gpuc.dialects.foreign.spirv_abi:SPIRV",
}
