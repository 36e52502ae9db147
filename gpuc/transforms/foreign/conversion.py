"""Functions from other frontends (func.func, gpu.func, their bodies) into
gpuc.func, for `import`: the conversion itself, run once checks.py has
found nothing it cannot take. It imports xDSL's func, gpu and memref dialects,
so the pass imports this module only for a module that holds foreign ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i32,
)
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from gpuc.diagnostics import ORIGINS, OpError, format_op_diagnostic
from gpuc.dialects.attrs import Dim, FuncPtrType, InlineHint, Role
from gpuc.dialects.deferred import DeferredCallOp, DeferredLaunchOp
from gpuc.dialects.foreign.func import CallIndirectOp as FuncCallIndirectOp
from gpuc.dialects.foreign.func import ConstantOp as FuncConstantOp
from gpuc.dialects.foreign.gpu import AllReduceOp as GPUAllReduceOp
from gpuc.dialects.foreign.gpu import ShuffleOp as GPUShuffleOp
from gpuc.dialects.foreign.gpu import (
    SubgroupReduceOp as GPUSubgroupReduceOp,
)
from gpuc.dialects.foreign.gpu_printf import PrintfOp as GPUPrintfOp
from gpuc.dialects.functions import (
    CallIndirectOp,
    CallOp,
    FuncAddrOp,
    FuncOp,
    ReturnOp,
)
from gpuc.dialects.index import (
    BarrierOp,
    BlockDimOp,
    BlockIdOp,
    DimIndexOp,
    GlobalIdOp,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from gpuc.dialects.printf import PrintfOp
from gpuc.dialects.subgroup import (
    NumSubgroupsOp,
    ShuffleMode,
    ShuffleOp,
    SubgroupIdOp,
    SubgroupIndexOp,
    SubgroupReduceOp,
    SubgroupSizeOp,
)
from gpuc.dialects.symbols import symbol_name
from gpuc.kernel_params import MEMREF_LAYOUTS_ATTR, MEMREF_PARAMS_ATTR
from gpuc.transforms.foreign.all_reduce import gpuc_kind, lower_all_reduce
from gpuc.transforms.foreign.amdgpu_buffers import convert_amdgpu_op
from gpuc.transforms.foreign.bare_pointers import (
    expand_signature,
    expand_type,
    memref_params,
)
from gpuc.transforms.foreign.checks import (
    ForeignFuncOp,
    Problem,
    import_problems,
    is_kernel,
)
from gpuc.transforms.foreign.memref_ops import FunctionMemory, replace_located
from gpuc.transforms.foreign.mma_ops import convert_mma, retype_fragments

INDEX_OPS: dict[type[Operation], type[DimIndexOp]] = {
    gpu.ThreadIdOp: ThreadIdOp,
    gpu.BlockIdOp: BlockIdOp,
    gpu.BlockDimOp: BlockDimOp,
    gpu.GridDimOp: GridDimOp,
    gpu.GlobalIdOp: GlobalIdOp,
}
SUBGROUP_INDEX_OPS: dict[type[Operation], type[SubgroupIndexOp]] = {
    gpu.SubgroupIdOp: SubgroupIdOp,
    gpu.SubgroupSizeOp: SubgroupSizeOp,
    gpu.NumSubgroupsOp: NumSubgroupsOp,
}
INLINE_HINT_ATTRS = {
    "llvm.always_inline": InlineHint.ALWAYS_INLINE,
    "llvm.no_inline": InlineHint.NO_INLINE,
}
"""MLIR's inlining hints on a func.func (func-to-llvm makes them the LLVM
function's always_inline / no_inline) become the gpuc.func's hint."""
# What a foreign function carries that gpuc.func states in its own terms.
FUNCTION_ATTRS = (
    "sym_name",
    "sym_visibility",
    "function_type",
    "arg_attrs",
    "res_attrs",
    "gpu.kernel",
    "kernel",
    "workgroup_attributions",
    "spirv.entry_point_abi",
    *INLINE_HINT_ATTRS,
)


NO_KERNEL = (
    "The module has no kernel (no gpu.module, no function with gpu.kernel, "
    "no gpu.launch or mapped scf.parallel), so all of it was taken as device "
    "code; if it is host code, run it with `gpuc run`"
)
"""What a failed import of a module without kernels adds to its first error."""

GPU_MODULE_ATTR = "gpuc.gpu_module"
"""On an imported kernel: the gpu.module it came from (`module::name`)."""


def fail(problems: list[Problem]) -> NoReturn:
    """Raise the first problem as an OpError, the others as its notes."""
    op, message = problems[0]
    error = OpError(op, message)
    for other, other_message in problems[1:]:
        error.add_note(format_op_diagnostic(other, other_message))
    raise error


def device_code(module: ModuleOp) -> list[Operation]:
    """The top-level ops that are compiled: the gpu.modules if any, else all."""
    ops = list(module.ops)
    gpu_modules = [op for op in ops if isinstance(op, gpu.ModuleOp)]
    return list(gpu_modules) if gpu_modules else ops


def hoist_gpu_modules(module: ModuleOp, gpu_modules: list[gpu.ModuleOp]) -> None:
    """Make the gpu.modules' contents the module; drop the host code around them."""
    seen: dict[str, str] = {}
    clashes: list[Problem] = []
    for gm in gpu_modules:
        for op in gm.body.ops:
            name = symbol_name(op)
            if name is None:
                continue
            if name in seen:
                message = (
                    f"defines @{name}, already defined in gpu.module @{seen[name]}, "
                    f"which also names a symbol @{name}; rename one"
                )
                clashes.append((op, message))
            seen[name] = gm.sym_name.data
    if clashes:
        fail(clashes)
    for op in list(module.ops):
        if isinstance(op, gpu.ModuleOp):
            for inner in list(op.body.ops):
                op.body.block.detach_op(inner)
                module.body.block.insert_op_before(inner, op)
        Rewriter.erase_op(op, safe_erase=False)
    module.attributes.pop("gpu.container_module", None)
    # MLIR's SPIR-V environment; gpuc's target is #gpuc.target (spirv_abi.py).
    module.attributes.pop("spirv.target_env", None)


def job_arguments(op: DeferredCallOp | DeferredLaunchOp) -> Sequence[SSAValue]:
    """What a deferred op passes its job (its last operands)."""
    return op.arguments if isinstance(op, DeferredCallOp) else op.args


def convert_body_op(op: Operation, memory: FunctionMemory) -> None:
    """Rewrite one op of a function body if it is a foreign op gpuc replaces."""
    if (
        memory.rewrite(op)
        or convert_amdgpu_op(op, memory.views)
        or convert_mma(op, memory)
    ):
        return
    if isinstance(op, func.CallOp):
        callee = op.callee.root_reference.data
        args = memory.operands(op.arguments, op)
        replace_located(op, CallOp(callee, args, op.res.types))
    elif isinstance(op, FuncConstantOp):
        assert op.callee is not None  # verified
        signature = expand_signature(op.result.type)
        replace_located(op, FuncAddrOp(op.callee.root_reference.data, signature))
    elif isinstance(op, FuncCallIndirectOp):
        # The callee's type becomes a !gpuc.funcptr once every function
        # value is retyped (retype_function_pointers).
        args = memory.operands(op.args, op)
        indirect = CallIndirectOp.create(
            operands=[op.callee, *args], result_types=list(op.results_.types)
        )
        replace_located(op, indirect)
    elif isinstance(op, CallIndirectOp) and any(
        isinstance(a.type, MemRefType) for a in op.arguments
    ):
        op.operands = [op.callee, *memory.operands(op.arguments, op)]
    elif isinstance(op, DeferredCallOp | DeferredLaunchOp) and any(
        isinstance(a.type, MemRefType) for a in job_arguments(op)
    ):
        given = job_arguments(op)
        args = memory.operands(given, op)
        op.operands = [*op.operands[: len(op.operands) - len(given)], *args]
        if isinstance(op, DeferredLaunchOp):
            segments = op.properties["operandSegmentSizes"]
            sizes = list(segments.get_values())  # type: ignore[attr-defined]
            op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(
                i32, [*sizes[:-1], len(args)]
            )
    elif isinstance(op, func.ReturnOp | gpu.ReturnOp):
        replace_located(op, ReturnOp(*op.operands))
    elif type(op) in INDEX_OPS:
        dimension = op.properties["dimension"]
        new = INDEX_OPS[type(op)](Dim(dimension.data.value))  # type: ignore[attr-defined]
        replace_located(op, new)
    elif isinstance(op, gpu.LaneIdOp):
        replace_located(op, LaneIdOp())
    elif isinstance(op, gpu.BarrierOp):
        replace_located(op, BarrierOp())
    elif isinstance(op, GPUPrintfOp):
        printf = PrintfOp(op.text or "", list(op.args))
        printf.location = op.location
        replace_located(op, printf)
    elif isinstance(op, GPUShuffleOp):
        mode = ShuffleMode(op.mode.data.value)
        replace_located(op, ShuffleOp(mode, op.value, op.offset, op.width))
    elif isinstance(op, GPUSubgroupReduceOp):
        replace_located(op, SubgroupReduceOp(gpuc_kind(op.op), op.value))
    elif isinstance(op, GPUAllReduceOp):
        lower_all_reduce(op)
    elif type(op) in SUBGROUP_INDEX_OPS:
        replace_located(op, SUBGROUP_INDEX_OPS[type(op)]())


def retype_function_pointers(region: Region) -> None:
    """Give each function pointer value in `region` whose signature holds
    memrefs (from gpuc.deferred_addr or gpuc.func_addr, through block
    arguments and structured control flow) its expanded signature, and each
    function value (func.constant's) its !gpuc.funcptr type."""

    def retype(value: SSAValue) -> None:
        t = value.type
        if (
            isinstance(t, FuncPtrType | FunctionType)
            and (new := expand_type(t)[0]) != t
        ):
            Rewriter.replace_value_with_new_type(value, new)

    for block in region.blocks:
        for arg in block.args:
            retype(arg)
    for op in region.walk():
        for value in op.results:
            retype(value)
        for inner in op.regions:
            for block in inner.blocks:
                for arg in block.args:
                    retype(arg)


def convert_function(op: ForeignFuncOp, globals: dict[str, memref.GlobalOp]) -> None:
    """Replace `op` by a gpuc.func with the same body, memrefs as pointers."""
    name = symbol_name(op)
    assert name is not None
    role = Role.KERNEL if is_kernel(op) else Role.HELPER
    visibility = op.attributes.get("sym_visibility") or op.properties.get(
        "sym_visibility"
    )
    body = op.detach_region(op.body)
    if not body.blocks:
        # MLIR requires declarations to be private and xDSL does not; a
        # declaration is defined elsewhere, so private is what it means.
        visibility = StringAttr("private")
    else:
        memory = FunctionMemory(globals, body.blocks[0])
        memory.bind_arguments()
        for inner in list(body.walk()):
            convert_body_op(inner, memory)
        memory.finish()
        retype_fragments(body)
        retype_function_pointers(body)
    given = op.function_type
    signature = expand_signature(given)
    hints = [h for a, h in INLINE_HINT_ATTRS.items() if a in op.attributes]
    new = FuncOp(
        name,
        (signature.inputs.data, signature.outputs.data),
        role,
        body,
        visibility=visibility.data if isinstance(visibility, StringAttr) else None,
        inline=hints[0] if hints else None,
    )
    new.location = op.location
    if (origin := ORIGINS.get(op)) is not None:
        ORIGINS[new] = origin
    new.attributes |= {
        k: v for k, v in op.attributes.items() if k not in FUNCTION_ATTRS
    }
    if (abi := op.attributes.get("spirv.entry_point_abi")) is not None:
        from gpuc.dialects.foreign.spirv_abi import workgroup_size

        size = workgroup_size(abi)
        assert not isinstance(size, str), size  # checks.py reported it
        if size is not None:
            new.attributes["gpu.known_block_size"] = DenseArrayBase.from_list(i32, size)
    if role is Role.KERNEL and (records := memref_params(given.inputs.data)):
        shapes, layouts = records
        new.attributes[MEMREF_PARAMS_ATTR] = shapes
        if layouts is not None:
            new.attributes[MEMREF_LAYOUTS_ATTR] = layouts
    Rewriter.replace_op(op, new)


def qualify_clashing_symbols(gpu_modules: list[gpu.ModuleOp]) -> None:
    """Make each gpu.module its own namespace: a symbol that several of them
    define becomes `@"module::name"` in each (its uses there follow), and
    every kernel records its gpu.module (GPU_MODULE_ATTR), so that it is
    addressed as `module::name` whether or not it was renamed."""
    defined: dict[str, int] = {}
    for gm in gpu_modules:
        for op in gm.body.ops:
            if (name := symbol_name(op)) is not None:
                defined[name] = defined.get(name, 0) + 1
    for gm in gpu_modules:
        prefix = gm.sym_name.data
        renames = {
            name: f"{prefix}::{name}"
            for op in gm.body.ops
            if (name := symbol_name(op)) is not None and defined[name] > 1
        }
        for op in gm.walk():
            if op is gm:
                continue
            for table in (op.properties, op.attributes):
                for key, attr in list(table.items()):
                    if isinstance(attr, SymbolRefAttr):
                        root = attr.root_reference.data
                        if root in renames:
                            table[key] = SymbolRefAttr(
                                renames[root], attr.nested_references
                            )
                    elif key == "sym_name" and isinstance(attr, StringAttr):
                        if op.parent_op() is gm and attr.data in renames:
                            table[key] = StringAttr(renames[attr.data])
            if op.parent_op() is gm and is_kernel(op):
                op.attributes[GPU_MODULE_ATTR] = StringAttr(prefix)


def select_gpu_module(module: ModuleOp, name: str) -> None:
    """Keep only gpu.module @name of `module` (the host code goes anyway)."""
    gpu_modules = [op for op in module.ops if isinstance(op, gpu.ModuleOp)]
    names = [gm.sym_name.data for gm in gpu_modules]
    if name not in names:
        raise OpError(
            module,
            f"has no gpu.module @{name} to compile; its gpu.modules: "
            + (", ".join(f"@{n}" for n in names) or "none"),
        )
    for gm in gpu_modules:
        if gm.sym_name.data != name:
            Rewriter.erase_op(gm, safe_erase=False)


def import_functions(module: ModuleOp) -> None:
    """Check `module`'s device code, then convert it (all or nothing); one
    gpu.module is chosen before, by select-gpu-module."""
    device = device_code(module)
    qualify_clashing_symbols([d for d in device if isinstance(d, gpu.ModuleOp)])
    globals = {
        g.sym_name.data: g
        for top in device
        for g in top.walk()
        if isinstance(g, memref.GlobalOp)
    }
    if problems := import_problems(device, globals):
        if not any(is_kernel(op) for top in device for op in top.walk()):
            op, message = problems[0]
            problems[0] = (op, f"{message}. {NO_KERNEL}")
        fail(problems)
    gpu_modules = [d for d in device if isinstance(d, gpu.ModuleOp)]
    if gpu_modules:
        hoist_gpu_modules(module, gpu_modules)
    for fn in list(module.ops):
        if isinstance(fn, ForeignFuncOp):
            convert_function(fn, globals)
    for glob in globals.values():
        Rewriter.erase_op(glob)
