"""`gpu-kernel-outlining`: each `gpu.launch` body becomes a kernel.

MLIR's pass of the same name, as MLIR 16 has it: the body of a `gpu.launch`
in function `@f` becomes `gpu.func @f_kernel kernel` in its own
`gpu.module @f_kernel` (`@f_kernel_0`, `_1`, ... for the next launches, each
module keeping the kernel name `@f_kernel`), launched by a `gpu.launch_func`
with the same sizes. Values the body uses from outside are the kernel's
parameters, in order of first use, named as those values are;
`arith.constant`s are cloned in instead, and so (unlike MLIR) are arith ops
of constants and view ops whose result is strided, so the kernel takes the
buffer, not the view (`sink_views`). The kernel, its module and the launch
carry the `gpu.launch`'s location.
Block and thread ids and sizes become `gpu` index ops. The functions and
globals the body names (`func.call`, `memref.get_global`), and those they
name in turn, are copied into the gpu.module. Constant launch sizes are
recorded as `gpu.known_block_size` / `gpu.known_grid_size`, as MLIR does.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, gpu, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import is_side_effect_free

from gpuc.diagnostics import ORIGINS
from gpuc.dialects.symbols import symbol_name
from gpuc.transforms.foreign.bare_pointers import has_identity_layout

DIMS = ("x", "y", "z")
# The launch body's 12 arguments: block ids, thread ids, grid sizes, block sizes.
INDEX_OPS: tuple[type[Operation], ...] = (
    gpu.BlockIdOp,
    gpu.ThreadIdOp,
    gpu.GridDimOp,
    gpu.BlockDimOp,
)


def captured_values(body: Region) -> list[SSAValue]:
    """Values `body` uses and does not define, in order of first use."""
    found: dict[SSAValue, None] = {}
    for op in body.walk():
        for operand in op.operands:
            owner = operand.owner
            block = owner.parent_block() if isinstance(owner, Operation) else owner
            if not _within(block, body):
                found.setdefault(operand)
    return list(found)


def _within(block: Block | None, region: Region) -> bool:
    while block is not None:
        if block.parent is region:
            return True
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return False


def referenced_symbols(ops: list[Operation]) -> list[str]:
    """The root symbols that `ops` (and their regions) refer to, in order."""
    names: dict[str, None] = {}
    for top in ops:
        for op in top.walk():
            for attr in (*op.properties.values(), *op.attributes.values()):
                if isinstance(attr, SymbolRefAttr):
                    names.setdefault(attr.root_reference.data)
    return list(names)


def copy_symbols(module: ModuleOp, body: list[Operation], into: Block) -> None:
    """Copy the top-level symbols `body` names, transitively, into `into`."""
    table = {symbol_name(op): op for op in module.ops if symbol_name(op) is not None}
    copied: set[str] = set()
    pending = referenced_symbols(body)
    while pending:
        name = pending.pop(0)
        source = table.get(name)
        if name in copied or source is None or isinstance(source, gpu.ModuleOp):
            continue
        copied.add(name)
        clone = source.clone()
        into.add_op(clone)
        pending += referenced_symbols([clone])


def unique_name(taken: set[str], base: str) -> str:
    """`base`, else `base_0`, `base_1`, ...: MLIR's SymbolTable uniquing."""
    if base not in taken:
        return base
    n = 0
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def _known_size(values: list[SSAValue]) -> DenseArrayBase | None:
    sizes: list[int] = []
    for value in values:
        owner = value.owner
        if not (
            isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)
        ):
            return None
        sizes.append(owner.value.value.data)
    return DenseArrayBase.from_list(i32, sizes)


VIEW_OPS = (
    memref.SubviewOp,
    memref.ReinterpretCastOp,
    memref.CastOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
)
"""Ops that make a new view of a buffer, which outlining moves into the kernel."""


def _of_constants(value: SSAValue) -> bool:
    """Whether `value` is arith of constants only (`%s = arith.muli %c1,
    %c8`, what loop tiling writes for a step): outlining clones it in."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.dialect_name() != "arith":
        return False
    if owner.regions or not is_side_effect_free(owner):
        return False
    return isinstance(owner, arith.ConstantOp) or all(
        _of_constants(v) for v in owner.operands
    )


def _sinkable(value: SSAValue) -> bool:
    if isinstance(value.owner, VIEW_OPS):
        return isinstance(value.type, MemRefType) and not has_identity_layout(
            value.type
        )
    return not isinstance(value.owner, arith.ConstantOp) and _of_constants(value)


def sink_views(launch: gpu.LaunchOp) -> None:
    """Clone into the launch body each view op whose strided result the body
    uses, the views it is made of too, so that the kernel takes the buffer
    (a plain memref parameter) and makes the view itself (unlike MLIR, whose
    kernels then take the strided view as a memref descriptor); and each
    arith op of constants, which MLIR's canonicalizer would have folded."""
    entry = launch.body.blocks[0]
    while True:
        sunk = [v for v in captured_values(launch.body) if _sinkable(v)]
        if not sunk:
            return
        for value in sunk:
            owner = value.owner
            assert isinstance(owner, Operation)
            clone = owner.clone()
            entry.insert_op_before(clone, entry.first_op)  # type: ignore[arg-type]
            for use in list(value.uses):
                if launch.is_ancestor(use.operation) and use.operation is not launch:
                    use.operation.operands[use.index] = clone.results[0]


def outline(module: ModuleOp, launch: gpu.LaunchOp, taken: set[str]) -> None:
    """Replace `launch` by a gpu.launch_func of a new kernel in a new gpu.module."""
    host = launch.parent_op()
    while host is not None and symbol_name(host) is None:
        host = host.parent_op()
    base = f"{symbol_name(host) if host is not None else 'launch'}_kernel"
    module_name = unique_name(taken, base)
    taken.add(module_name)

    sink_views(launch)
    # Constants are cloned into the body; every other outside value is a parameter.
    for value in captured_values(launch.body):
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            clone = owner.clone()
            first = launch.body.blocks[0]
            first.insert_op_before(clone, first.first_op)  # type: ignore[arg-type]
            for use in list(value.uses):
                # is_ancestor counts the launch itself: its sizes stay outside.
                if use.operation is not launch and launch.is_ancestor(use.operation):
                    use.operation.operands[use.index] = clone.result
    params = captured_values(launch.body)
    grid = [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ]
    block = [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ]

    body = launch.detach_region(launch.body)
    entry = Block(arg_types=[p.type for p in params])
    old_entry = body.blocks[0]
    for cls in INDEX_OPS:
        for dim in DIMS:
            index_op = cls.create(
                result_types=[old_entry.args[0].type],
                properties={"dimension": gpu.DimensionAttr(gpu.DimensionEnum(dim))},
            )
            entry.add_op(index_op)
    for arg, index_op in zip(list(old_entry.args), list(entry.ops), strict=True):
        arg.replace_all_uses_with(index_op.results[0])
    for param, arg in zip(params, entry.args, strict=True):
        for use in list(param.uses):
            if _within(use.operation.parent_block(), body):
                use.operation.operands[use.index] = arg
    for arg in reversed(old_entry.args):
        old_entry.erase_arg(arg)
    for op in list(body.walk()):
        if isinstance(op, gpu.TerminatorOp):
            Rewriter.replace_op(op, gpu.ReturnOp([]))
    if len(body.blocks) == 1:
        for op in list(old_entry.ops):
            old_entry.detach_op(op)
            entry.add_op(op)
        body.detach_block(old_entry)
        body.insert_block(entry, 0)
    else:
        entry.add_op(cf.BranchOp(old_entry))
        body.insert_block(entry, 0)

    kernel = gpu.FuncOp(base, ([p.type for p in params], []), body, kernel=True)
    # Diagnostics about the kernel or the ops outlining made point at the launch.
    kernel.location = launch.location
    ORIGINS[kernel] = ORIGINS.get(launch, "gpu.launch")
    for arg, param in zip(entry.args, params, strict=True):
        arg.name_hint = param.name_hint
    for key, values in (("gpu.known_block_size", block), ("gpu.known_grid_size", grid)):
        if (known := _known_size(values)) is not None:
            kernel.attributes[key] = known
    contents = Block([kernel])
    copy_symbols(module, [kernel], contents)
    gpu_module = gpu.ModuleOp(SymbolRefAttr(module_name), Region(contents))
    gpu_module.properties["sym_name"] = StringAttr(module_name)
    gpu_module.location = launch.location
    module.body.block.add_op(gpu_module)

    launch_func = gpu.LaunchFuncOp(
        SymbolRefAttr(module_name, [base]),
        grid,
        block,
        kernelOperands=params,
        async_launch=launch.asyncToken is not None,
        asyncDependencies=list(launch.asyncDependencies),
        dynamicSharedMemorySize=launch.dynamicSharedMemorySize,
    )
    launch_func.location = launch.location
    Rewriter.replace_op(launch, launch_func)


@dataclass(frozen=True)
class GpuKernelOutlining(ModulePass):
    """Outline gpu.launch bodies into gpu.func kernels (MLIR's pass)."""

    name = "gpu-kernel-outlining"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        launches = [
            launch
            for launch in op.walk()
            if isinstance(launch, gpu.LaunchOp) and not _in_gpu_module(launch)
        ]
        if not launches:
            return
        taken: set[str] = {n for o in op.ops if (n := symbol_name(o)) is not None}
        for launch in launches:
            outline(op, launch, taken)
        op.attributes["gpu.container_module"] = UnitAttr()


def _in_gpu_module(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, gpu.ModuleOp):
            return True
        parent = parent.parent_op()
    return False
