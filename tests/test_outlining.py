"""gpuc's `convert-parallel-loops-to-gpu` and `gpu-kernel-outlining` against
mlir-opt-16's passes on the same inputs: both outlined modules are compiled
by gpuc, launched as their host code's `gpu.launch_func` says (sizes and
arguments evaluated from the host function), and checked against numpy; and
an xDSL frontend's loop nest, mapped by xDSL's `gpu-map-parallel-loops`,
runs with gpuc alone. Inputs are random per run, outputs poisoned with NaN.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

import gpuc
from gpuc.reader.text import parse_foreign_module
from gpuc.transforms.convert_parallel_loops_to_gpu import ConvertParallelLoopsToGpu
from gpuc.transforms.gpu_kernel_outlining import GpuKernelOutlining

TARGETS = ["native", "spirv"]
MLIR_OPT = shutil.which("mlir-opt-16")

FIXTURES = Path(__file__).parent / "fixtures" / "outlining"
# loops.mlir: a 2-D nest (blocks x threads, a step) and a nest whose inner
# dimension is sequential. launches.mlir: two launches in one function (two
# gpu.modules defining @twice_kernel), one calling a helper function. xDSL
# reads the generic form only; *.generic.mlir says which command made it.
LOOPS = (FIXTURES / "loops.generic.mlir").read_text()
LAUNCHES = (FIXTURES / "launches.generic.mlir").read_text()

HOST_OPS: dict[str, Any] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: int(a / b),
    "arith.remsi": lambda a, b: a - b * int(a / b),
    "arith.ceildivsi": lambda a, b: -(-a // b),
    "arith.floordivsi": lambda a, b: a // b,
    "arith.select": lambda c, a, b: a if c else b,
}
PREDICATES = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge"}


def host_value(value: SSAValue, env: dict[SSAValue, Any]) -> Any:
    """Evaluate a host-side index value (the launch's sizes and arguments)."""
    if value in env:
        return env[value]
    op = value.owner
    assert isinstance(op, Operation), value
    if isinstance(op, arith.ConstantOp):
        attr = op.value
        if isinstance(attr, FloatAttr):
            return np.float32(attr.value.data)
        assert isinstance(attr, IntegerAttr)
        return attr.value.data
    args = [host_value(v, env) for v in op.operands]
    if isinstance(op, arith.CmpiOp):
        a, b = args
        kind = PREDICATES[op.predicate.value.data]
        return {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b}.get(
            kind, a > b if kind == "sgt" else a >= b
        )
    return HOST_OPS[op.name](*args)


def launches(
    module: ModuleOp,
    function: str,
    inputs: list[Any],
    known: dict[SSAValue, Any] | None = None,
) -> list[tuple[str, tuple[int, ...], tuple[int, ...], list[Any]]]:
    """Each gpu.launch_func of `function`: (kernel, grid, block, arguments)
    with `inputs` bound to the function's parameters (and `known` values)."""
    host = next(
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == function
    )
    env = {**(known or {}), **dict(zip(host.body.blocks[0].args, inputs, strict=True))}
    found = []
    for op in host.walk():
        if not isinstance(op, gpu.LaunchFuncOp):
            continue
        kernel = op.kernel
        name = f"{kernel.root_reference.data}::{kernel.nested_references.data[0].data}"
        grid = tuple(
            host_value(v, env) for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ)
        )
        block = tuple(
            host_value(v, env) for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ)
        )
        args: list[Any] = []
        for v in op.kernelOperands:
            value = host_value(v, env)
            args.append(value)
            if isinstance(v.type, MemRefType):  # the bare-pointer convention
                args += [
                    value.shape[d] for d, s in enumerate(v.type.get_shape()) if s == -1
                ]
        found.append((name, grid, block, args))
    return found


def outlined_by_gpuc(text: str) -> str:
    module = parse_foreign_module(text)
    ConvertParallelLoopsToGpu().apply(Context(), module)
    GpuKernelOutlining().apply(Context(), module)
    return str(module)


def outlined_by_mlir(text: str) -> str:
    if MLIR_OPT is None:
        pytest.skip("mlir-opt-16 is not installed (.ci/run installs it)")
    run = subprocess.run(
        [
            MLIR_OPT,
            "--convert-parallel-loops-to-gpu",
            "--gpu-kernel-outlining",
            "--lower-affine",
            "--mlir-print-op-generic",
        ],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout


def run_outlined(text: str, target: str, function: str, inputs: list[Any]) -> None:
    module = parse_foreign_module(text)
    mod = gpuc.compile(module, target=target)
    for kernel, grid, block, args in launches(module, function, inputs):
        mod.launch(kernel, grid=grid, block=block, args=args)


OUTLINERS = {"gpuc": outlined_by_gpuc, "mlir-opt-16": outlined_by_mlir}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("outliner", list(OUTLINERS))
def test_mapped_loops_compute_what_numpy_does(outliner: str, target: str) -> None:
    text = OUTLINERS[outliner](LOOPS)
    rng = np.random.default_rng()
    n = int(rng.integers(100, 300))
    a = rng.standard_normal(n).astype(np.float32)
    b = np.full(n, np.nan, np.float32)
    s = np.float32(rng.uniform(0.5, 2))
    run_outlined(text, target, "scale", [a, b, n, s])
    np.testing.assert_array_equal(b, a * s)

    m = rng.standard_normal((8, 64)).astype(np.float32)
    out = np.full(8, np.nan, np.float32)
    run_outlined(text, target, "rows", [m, out])
    np.testing.assert_allclose(out, m.sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("outliner", list(OUTLINERS))
def test_two_launches_and_a_called_function(outliner: str, target: str) -> None:
    text = OUTLINERS[outliner](LAUNCHES)
    assert text.count('"gpu.module"') == 2
    rng = np.random.default_rng()
    blocks = int(rng.integers(2, 6))
    a = rng.standard_normal(blocks * 64).astype(np.float32)
    b = np.full_like(a, np.nan)
    run_outlined(text, target, "twice", [a, b, blocks])
    np.testing.assert_allclose(b, a * 0.5 * 3, rtol=1e-6)


def test_the_import_outlines_by_itself_and_names_kernels_by_module() -> None:
    mod = gpuc.compile(LAUNCHES, target="native")
    assert sorted(mod) == ["twice_kernel::twice_kernel", "twice_kernel_0::twice_kernel"]
    a = np.arange(128, dtype=np.float32)
    b = np.full_like(a, np.nan)
    mod["twice_kernel::twice_kernel"][(2,), (64,)](a, 128, b, 128)
    np.testing.assert_array_equal(b, a * 0.5)
    with pytest.raises(gpuc.LaunchError, match="twice_kernel_0::twice_kernel"):
        mod["twice_kernel"]
    one = gpuc.compile(LAUNCHES, target="native", gpu_module="twice_kernel_0")
    assert list(one) == ["twice_kernel"]
    assert "twice_kernel_0::twice_kernel" in one.aliases
    b[:] = 1
    one["twice_kernel_0::twice_kernel"][(2,), (64,)](b, 128)
    np.testing.assert_array_equal(b, np.full_like(b, 3))


def test_an_xdsl_frontend_loop_nest_runs_without_mlir_opt() -> None:
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import memref, scf
    from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, f32
    from xdsl.transforms.gpu_map_parallel_loops import GpuMapParallelLoopsPass

    vector = MemRefType(f32, [DYNAMIC_INDEX])
    fn = func.FuncOp("axpy", ([vector, vector, IndexType()], []))
    x, y, n = fn.body.block.args
    with ImplicitBuilder(fn.body.block):
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        body = Block(arg_types=[IndexType()])
        scf.ParallelOp([zero], [n], [one], Region(body))
        func.ReturnOp()
    (i,) = body.args
    with ImplicitBuilder(body):
        xv = memref.LoadOp.get(x, [i])
        yv = memref.LoadOp.get(y, [i])
        s = arith.AddfOp(xv, yv)
        memref.StoreOp.get(s, y, [i])
        scf.ReduceOp()
    module = ModuleOp([fn])
    GpuMapParallelLoopsPass().apply(Context(), module)
    mod = gpuc.compile(module, target="native")
    assert list(mod) == ["axpy_kernel"]
    rng = np.random.default_rng()
    count = int(rng.integers(50, 200))
    xs = rng.standard_normal(count).astype(np.float32)
    ys = rng.standard_normal(count).astype(np.float32)
    want = xs + ys
    # One block of `count` threads: the loop is mapped to block_x, so the
    # grid is the trip count and the block is 1 thread.
    mod.launch("axpy_kernel", grid=(count,), block=(1,), args=(xs, count, ys, count))
    np.testing.assert_array_equal(ys, want)


@pytest.mark.parametrize("target", TARGETS)
def test_an_xdsl_frontend_nest_maps_to_blocks_and_threads(target: str) -> None:
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import memref, scf
    from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, f32
    from xdsl.transforms.gpu_map_parallel_loops import GpuMapParallelLoopsPass

    vector = MemRefType(f32, [DYNAMIC_INDEX])
    fn = func.FuncOp("square", ([vector, IndexType(), IndexType()], []))
    x, n, blocks = fn.body.block.args
    outer = Block(arg_types=[IndexType()])
    inner = Block(arg_types=[IndexType()])
    with ImplicitBuilder(fn.body.block):
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        width = arith.ConstantOp(IntegerAttr(64, IndexType()))
        scf.ParallelOp([zero], [blocks], [one], Region(outer))
        func.ReturnOp()
    with ImplicitBuilder(outer):
        scf.ParallelOp([zero], [width], [one], Region(inner))
        scf.ReduceOp()
    with ImplicitBuilder(inner):
        base = arith.MuliOp(outer.args[0], width)
        i = arith.AddiOp(base, inner.args[0])
        inside = arith.CmpiOp(i, n, "ult")
        guarded = scf.IfOp(inside, [], Region(Block()))
        scf.ReduceOp()
    with ImplicitBuilder(guarded.true_region.block):
        v = memref.LoadOp.get(x, [i])
        memref.StoreOp.get(arith.MulfOp(v, v), x, [i])
        scf.YieldOp()
    module = ModuleOp([fn])
    GpuMapParallelLoopsPass().apply(Context(), module)
    launch = outlined_by_gpuc(str(module))
    mod = gpuc.compile(module, target=target)
    rng = np.random.default_rng()
    count = int(rng.integers(65, 300))
    nblocks = -(-count // 64)
    xs = rng.standard_normal(count).astype(np.float32)
    want = xs * xs
    ((kernel, grid, block, args),) = launches(
        parse_foreign_module(launch), "square", [xs, count, nblocks]
    )
    assert (grid, block) == ((nblocks, 1, 1), (64, 1, 1))
    mod.launch(kernel, grid=grid, block=block, args=args)
    np.testing.assert_array_equal(xs, want)
