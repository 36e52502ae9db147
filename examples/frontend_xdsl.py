"""A frontend's kernels, built with xDSL's Python API in standard dialects.

Nothing here uses the gpuc dialect: the kernels are `func`, `gpu`, `memref`,
`arith` and `scf` ops, as any xDSL frontend would produce them, and gpuc's
`import` pass (the first stage of every compile) turns them into gpuc. Memref
parameters follow the bare-pointer convention of docs/frontends.md: each is
passed as its array, followed by one `index` per dynamic size.

    python examples/frontend_xdsl.py [native|spirv|ptx]

builds saxpy, compiles it, runs it on random data and checks it against
numpy. tests/test_frontends_e2e.py runs all three builders on every executor.
"""

from __future__ import annotations

import sys

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Block, Region, SSAValue

f32 = Float32Type()
index = IndexType()
VECTOR = MemRefType(f32, [DYNAMIC_INDEX])
MATRIX = MemRefType(f32, [DYNAMIC_INDEX, DYNAMIC_INDEX])
WORKGROUP = IntegerAttr(3, i64)  # NVVM's number for workgroup (shared) memory
REDUCE_BLOCK = 256
"""Threads per block that `block_sum` must be launched with (its tile size)."""


def const(value: int) -> SSAValue:
    return arith.ConstantOp(IntegerAttr(value, index)).result


def global_id(dim: gpu.DimensionEnum) -> SSAValue:
    return gpu.GlobalIdOp(gpu.DimensionAttr(dim)).result


def params(block: Block, *names: str) -> tuple[SSAValue, ...]:
    """The block's arguments, named as printed (`%x`) and in launch errors."""
    for arg, name in zip(block.args, names, strict=True):
        arg.name_hint = name
    return block.args


def when(condition: SSAValue) -> Block:
    """The body of an `scf.if condition` without results; fill it, it yields."""
    then = Block()
    scf.IfOp(condition, [], Region(then))
    return then


def saxpy() -> ModuleOp:
    """`y[i] = a * x[i] + y[i]` for `i < len(y)`: saxpy(a, x, len(x), y, len(y))."""
    kernel = func.FuncOp("saxpy", ([f32, VECTOR, VECTOR], []))
    kernel.attributes["gpu.kernel"] = UnitAttr()
    a, x, y = params(kernel.body.block, "a", "x", "y")
    with ImplicitBuilder(kernel.body.block):
        i = global_id(gpu.DimensionEnum.X)
        n = memref.DimOp(y, const(0)).result
        with ImplicitBuilder(when(arith.CmpiOp(i, n, "ult").result)):
            xi = memref.LoadOp.get(x, [i]).res
            yi = memref.LoadOp.get(y, [i]).res
            r = arith.AddfOp(arith.MulfOp(a, xi).result, yi).result
            memref.StoreOp.get(r, y, [i])
            scf.YieldOp()
        func.ReturnOp()
    return ModuleOp([kernel])


def block_sum() -> ModuleOp:
    """`out[b]` = the sum of block `b`'s slice of `in` (zero past its end).

    A gpu.module with a workgroup memref.global as the tile and a tree
    reduction with a barrier after each step; launch with REDUCE_BLOCK threads.
    """
    tile_type = MemRefType(f32, [REDUCE_BLOCK], memory_space=WORKGROUP)
    tile_global = memref.GlobalOp.get(StringAttr("tile"), tile_type, UnitAttr())
    kernel = gpu.FuncOp("block_sum", ([VECTOR, VECTOR], []), kernel=True)
    src, out = params(kernel.body.block, "src", "out")
    with ImplicitBuilder(kernel.body.block):
        t = gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)).result
        b = gpu.BlockIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)).result
        i = global_id(gpu.DimensionEnum.X)
        n = memref.DimOp(src, const(0)).result
        tile = memref.GetGlobalOp("tile", tile_type).memref
        zero = arith.ConstantOp(FloatAttr(0.0, f32)).result
        memref.StoreOp.get(zero, tile, [t])
        with ImplicitBuilder(when(arith.CmpiOp(i, n, "ult").result)):
            memref.StoreOp.get(memref.LoadOp.get(src, [i]).res, tile, [t])
            scf.YieldOp()
        gpu.BarrierOp()
        steps = REDUCE_BLOCK.bit_length() - 1
        step = Block(arg_types=[index])
        with ImplicitBuilder(step):
            (k,) = step.args
            stride = arith.ShRUIOp(const(REDUCE_BLOCK // 2), k).result
            with ImplicitBuilder(when(arith.CmpiOp(t, stride, "ult").result)):
                other = memref.LoadOp.get(tile, [arith.AddiOp(t, stride).result]).res
                mine = memref.LoadOp.get(tile, [t]).res
                memref.StoreOp.get(arith.AddfOp(mine, other).result, tile, [t])
                scf.YieldOp()
            gpu.BarrierOp()
            scf.YieldOp()
        scf.ForOp(const(0), const(steps), const(1), [], step)
        with ImplicitBuilder(when(arith.CmpiOp(t, const(0), "eq").result)):
            memref.StoreOp.get(memref.LoadOp.get(tile, [const(0)]).res, out, [b])
            scf.YieldOp()
        gpu.ReturnOp([])
    device = gpu.ModuleOp(StringAttr("reduce"), Region(Block([tile_global, kernel])))
    return ModuleOp([device])


def transpose_scale() -> ModuleOp:
    """`dst[j, i] = a * src[i, j]` for a rows x cols `src`, through a helper.

    transpose_scale(a, src, rows, cols, dst, cols, rows); grid x covers
    columns, grid y rows.
    """
    helper = func.FuncOp(
        "scaled", ([f32, MATRIX, index, index], [f32]), visibility="private"
    )
    a, m, i, j = params(helper.body.block, "a", "m", "i", "j")
    with ImplicitBuilder(helper.body.block):
        v = memref.LoadOp.get(m, [i, j]).res
        func.ReturnOp(arith.MulfOp(a, v).result)
    kernel = func.FuncOp("transpose_scale", ([f32, MATRIX, MATRIX], []))
    kernel.attributes["gpu.kernel"] = UnitAttr()
    a, src, dst = params(kernel.body.block, "a", "src", "dst")
    with ImplicitBuilder(kernel.body.block):
        rows = memref.DimOp(src, const(0)).result
        cols = memref.DimOp(src, const(1)).result
        col = global_id(gpu.DimensionEnum.X)
        row = global_id(gpu.DimensionEnum.Y)
        inside = arith.AndIOp(
            arith.CmpiOp(row, rows, "ult").result, arith.CmpiOp(col, cols, "ult").result
        ).result
        with ImplicitBuilder(when(inside)):
            r = func.CallOp("scaled", [a, src, row, col], [f32]).res[0]
            memref.StoreOp.get(r, dst, [col, row])
            scf.YieldOp()
        func.ReturnOp()
    return ModuleOp([helper, kernel])


def main(target: str) -> int:
    import numpy as np

    import gpuc

    n = 1000
    rng = np.random.default_rng()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    expected = np.float32(2.5) * x + y
    module = gpuc.compile(saxpy(), target=target)
    block = 128
    module.launch(
        "saxpy",
        grid=((n + block - 1) // block,),
        block=(block,),
        args=(np.float32(2.5), x, n, y, n),
    )
    ok = np.allclose(y, expected, rtol=1e-6, atol=1e-6)
    print(f"saxpy on {target}: {'ok' if ok else 'WRONG'} ({n} elements)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "native"))
