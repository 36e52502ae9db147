"""The worked examples of docs/extending.md, kept working by these tests (and
the doc's code blocks are excerpts of this file: the last test checks so):

1. a new op end to end: `demo.clamp` (definition, verifier, one translator
   function, FileCheck on its LLVM IR, a run against numpy), and
   `demo.linear_thread_id`, an op that reads the kernel state;
2. a new dialect-level pass: `expand-clamp`, with its lit file;
3. a new target: AMD GPUs (`amdgcn-amd-amdhsa`), one class of data and hooks;
4. a new executor: `SerialExecutor`, the native target's code on one thread;
5. a new job source: the `negate` generator, which wraps a function and
   negates its result.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from llvmlite import ir
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.arith import ConstantOp, NegfOp
from xdsl.dialects.builtin import AnyFloatConstr, FloatAttr, IndexType, ModuleOp
from xdsl.ir import Block, Dialect, Region
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

import gpuc
from gpuc.compiler import compile_module
from gpuc.context import make_context
from gpuc.diagnostics import LocatingParser, OpError, verify_located
from gpuc.dialects import analysis
from gpuc.dialects.attrs import FINALIZED_ATTR, AddressSpace, FinalizedAttr
from gpuc.dialects.functions import CallOp, FuncOp, ReturnOp
from gpuc.dialects.index import require_function_ancestor
from gpuc.dialects.traits import ReadsKernelState
from gpuc.driver import make_options
from gpuc.driver import run as run_stages
from gpuc.generators import Generator, GeneratorRequest
from gpuc.lowering.arith import intrinsic_call
from gpuc.lowering.context import FunctionLowering, translates
from gpuc.runtime.args import CUDA_LIMITS, KernelSignature, LaunchError, check_launch
from gpuc.targets import register_target, unregister_target
from gpuc.targets.base import Target
from gpuc.targets.native.abi import LAUNCH
from gpuc.targets.native.target import NativeTarget

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "extending.md"
sys.path.insert(0, str(ROOT / "examples"))
from cases import EXAMPLES, assert_equal, run  # noqa: E402

# 1. A new op ---------------------------------------------------------------


@irdl_op_definition
class ClampOp(IRDLOperation):
    """`%r = demo.clamp %x, %lo, %hi : f32`: `x` limited to [lo, hi]."""

    name = "demo.clamp"
    T: ClassVar = VarConstraint("T", AnyFloatConstr)
    x = operand_def(T)
    lo = operand_def(T)
    hi = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$x `,` $lo `,` $hi attr-dict `:` type($result)"

    def verify_(self) -> None:
        bounds = [v.owner for v in (self.lo, self.hi)]
        if all(isinstance(b, ConstantOp) for b in bounds):
            lo, hi = (b.value for b in bounds)  # type: ignore[union-attr]
            assert isinstance(lo, FloatAttr) and isinstance(hi, FloatAttr)
            if lo.value.data > hi.value.data:
                raise VerifyException(
                    f"lower bound {lo.value.data} exceeds upper bound {hi.value.data}"
                )


@irdl_op_definition
class LinearThreadIdOp(IRDLOperation):
    """`%t = demo.linear_thread_id`: the thread's rank in its block, x fastest."""

    name = "demo.linear_thread_id"
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), ReadsKernelState())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        require_function_ancestor(self)


DEMO = Dialect("demo", [ClampOp, LinearThreadIdOp])


@translates(ClampOp)
def translate_clamp(op: ClampOp, fl: FunctionLowering) -> None:
    x, lo, hi = fl.operands(op)
    fl.set(
        op,
        intrinsic_call(
            fl, "llvm.minnum", [intrinsic_call(fl, "llvm.maxnum", [x, lo]), hi]
        ),
    )


@translates(LinearThreadIdOp)
def translate_linear_thread_id(op: LinearThreadIdOp, fl: FunctionLowering) -> None:
    b, index = fl.builder, fl.target.index
    x, y, z = (index(fl, "thread_id", dim) for dim in range(3))
    dx, dy = (index(fl, "block_dim", dim) for dim in range(2))
    fl.set(op, b.add(x, b.mul(dx, b.add(y, b.mul(dy, z)))))


CLAMP_KERNEL = """
gpuc.func @clamp(%x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = demo.clamp %v, %lo, %hi : f32
    gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""
CLAMP_CHECKS = """
CHECK-LABEL: define ptx_kernel void @clamp(
CHECK: [[MAX:%.*]] = call float @llvm.maxnum.f32(float %v, float -1.000000e+00)
CHECK-NEXT: %r = call float @llvm.minnum.f32(float [[MAX]], float 1.000000e+00)
"""
RANKS_KERNEL = """
gpuc.func @ranks(%out: !gpuc.ptr<i64, global>) kernel {
  %rank = gpuc.call @rank() : () -> index
  %block = gpuc.block_id x
  %dx = gpuc.block_dim x
  %dy = gpuc.block_dim y
  %dz = gpuc.block_dim z
  %dxy = arith.muli %dx, %dy : index
  %threads = arith.muli %dxy, %dz : index
  %first = arith.muli %block, %threads : index
  %i = arith.addi %first, %rank : index
  %value = arith.index_cast %rank : index to i64
  gpuc.store %value, %out[%i] : !gpuc.ptr<i64, global>
  gpuc.return
}
gpuc.func private @rank() -> index helper no_inline {
  %t = demo.linear_thread_id
  gpuc.return %t : index
}
"""


def parse_demo(text: str) -> ModuleOp:
    ctx = make_context()
    ctx.load_dialect(DEMO)
    module = LocatingParser(ctx, text, "clamp.mlir").parse_module()
    verify_located(module)
    return module


def filecheck(checks: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "checks"
    path.write_text(checks)
    result = subprocess.run(
        ["filecheck", str(path)], input=text, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_new_op_lowers_through_its_translator(tmp_path: Path) -> None:
    c = run_stages(parse_demo(CLAMP_KERNEL), make_options("ptx", {}), stop_after="link")
    filecheck(CLAMP_CHECKS, str(c.llvm_module), tmp_path)
    ptx = compile_module(parse_demo(CLAMP_KERNEL), "ptx", validate=True).artefact
    assert "max.f32" in ptx and "min.f32" in ptx


def test_new_op_computes_on_the_native_target() -> None:
    x = np.random.default_rng(1).uniform(-3, 3, 1000).astype(np.float32)
    want = np.clip(x, -1, 1)
    module = gpuc.compile(parse_demo(CLAMP_KERNEL), target="native")
    module.launch("clamp", grid=(4,), block=(256,), args=(x, np.int32(x.size)))
    assert np.array_equal(x, want)


def test_new_op_verifier_reports_at_the_op() -> None:
    bad = CLAMP_KERNEL.replace("-1.0 : f32", "2.0 : f32")
    with pytest.raises(OpError) as info:
        parse_demo(bad)
    assert str(info.value).startswith(
        "clamp.mlir:10:10: error: 'demo.clamp' op lower bound 2.0 exceeds upper "
        "bound 1.0"
    )


def test_a_state_op_in_a_helper_gets_the_native_state() -> None:
    """On the native target the state is a hidden parameter: every kernel
    takes it, a helper only if it (transitively) holds an op with the
    ReadsKernelState trait."""
    assert analysis.module_facts(parse_demo(RANKS_KERNEL)).state == {"ranks", "rank"}
    options = make_options("native", {})
    c = run_stages(parse_demo(RANKS_KERNEL), options, stop_after="translate")
    assert 'define internal i64 @"rank"(ptr %"state") noinline' in (c.translated or "")
    mod = gpuc.compile(parse_demo(RANKS_KERNEL), target="native")
    grid, block = 3, (4, 2, 2)
    out = np.full(grid * 16, -1, np.int64)
    mod.launch("ranks", grid=(grid,), block=block, args=(out,))
    assert_equal(out, np.tile(np.arange(16), grid), "ranks")


def test_a_state_op_without_the_trait_is_a_diagnostic_on_native(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were the trait forgotten, the helper would get no state: the native
    target names the function and the fix instead of crashing."""
    from gpuc.dialects import call_graph

    monkeypatch.setitem(call_graph._KIND, LinearThreadIdOp, call_graph._OTHER)
    with pytest.raises(OpError, match="@rank reads the kernel state through an op"):
        compile_module(parse_demo(RANKS_KERNEL), "native")


# 2. A new dialect-level pass -----------------------------------------------


class ExpandClampPattern(RewritePattern):
    """`demo.clamp %x, %lo, %hi` is `minnumf(maxnumf(%x, %lo), %hi)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClampOp, rewriter: PatternRewriter) -> None:
        above = arith.MaxnumfOp(op.x, op.lo)
        rewriter.replace(op, [above, arith.MinnumfOp(above, op.hi)])


@dataclass(frozen=True)
class ExpandClamp(ModulePass):
    """Rewrite every `demo.clamp` into arith ops, which every target lowers."""

    name = "expand-clamp"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandClampPattern()).rewrite_module(op)


EXPAND_CLAMP_LIT = """\
// RUN: gpuc-opt %s -p expand-clamp | filecheck %s

// CHECK-LABEL: gpuc.func @clamp(%x: f32) -> f32 helper {
// CHECK-NEXT:    %lo = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:    %hi = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[ABOVE:%[^ ]+]] = arith.maxnumf %x, %lo : f32
// CHECK-NEXT:    [[R:%[^ ]+]] = arith.minnumf [[ABOVE]], %hi : f32
// CHECK-NEXT:    gpuc.return [[R]] : f32
// CHECK-NOT:     demo.clamp
gpuc.func @clamp(%x: f32) -> f32 helper {
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %r = demo.clamp %x, %lo, %hi : f32
  gpuc.return %r : f32
}
"""


def test_new_pass_runs_under_its_registered_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lit file's RUN line, in-process: gpuc-opt finds the pass (and the
    demo dialect) by their entries in gpuc/registry.py."""
    from gpuc.cli.opt import main
    from gpuc.registry import DIALECTS, PASSES

    monkeypatch.setitem(PASSES, "expand-clamp", f"{__name__}:ExpandClamp")
    monkeypatch.setitem(DIALECTS, "demo", f"{__name__}:DEMO")
    lit = tmp_path / "expand_clamp.mlir"
    lit.write_text(EXPAND_CLAMP_LIT)
    assert main([str(lit), "-p", "expand-clamp"]) == 0
    filecheck(EXPAND_CLAMP_LIT, capsys.readouterr().out, tmp_path)


def test_new_pass_output_compiles_and_computes() -> None:
    module = parse_demo(CLAMP_KERNEL)
    ExpandClamp().apply(make_context(), module)
    assert not any(isinstance(op, ClampOp) for op in module.walk())
    x = np.random.default_rng(2).uniform(-3, 3, 1000).astype(np.float32)
    want = np.clip(x, -1, 1)
    mod = gpuc.compile(module, target="native")
    mod.launch("clamp", grid=(4,), block=(256,), args=(x, np.int32(x.size)))
    assert_equal(x, want, "clamp")


# 3. A new target -----------------------------------------------------------


@dataclass(frozen=True)
class ToyGPUTarget(Target):
    """AMD GPUs through LLVM's AMDGPU back-end (code object v5), as an
    assembly listing: the shape of `gpuc/targets/amdgpu/target.py`, registered under
    another name."""

    name: ClassVar[str] = "toygpu"
    triple: ClassVar[str] = "amdgcn-amd-amdhsa"
    address_spaces: ClassVar[dict[AddressSpace, int]] = {
        AddressSpace.GENERIC: 0,
        AddressSpace.GLOBAL: 1,
        AddressSpace.SHARED: 3,
        AddressSpace.CONSTANT: 4,
        AddressSpace.LOCAL: 5,
    }
    kernel_cconv: ClassVar[str] = "amdgpu_kernel"
    artefacts: ClassVar[tuple[str, ...]] = ("asm",)
    listing: ClassVar[str] = "asm"

    gfx: str = field(
        default="gfx90a", metadata={"help": "the GPU, e.g. gfx1100 (default gfx90a)"}
    )

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        i32, b = ir.IntType(32), fl.builder
        if kind in ("thread_id", "block_id"):
            what = "workitem" if kind == "thread_id" else "workgroup"
            read = fl.ml.intrinsic(f"llvm.amdgcn.{what}.id.{'xyz'[dim]}", i32, [])
            return b.zext(b.call(read, []), fl.ml.index_type)
        # Code object v5 implicit arguments: block counts (i32) at 0, 4, 8 and
        # block sizes (i16) at 12, 14, 16.
        constant = ir.PointerType(addrspace=4)
        args = b.call(fl.ml.intrinsic("llvm.amdgcn.implicitarg.ptr", constant, []), [])
        offset, ty = (
            (4 * dim, i32) if kind == "grid_dim" else (12 + 2 * dim, ir.IntType(16))
        )
        field = b.gep(args, [ir.Constant(i32, offset)], source_etype=ir.IntType(8))
        return b.zext(b.load(field, typ=ty, align=ty.width // 8), fl.ml.index_type)

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        i32, b = ir.IntType(32), fl.builder
        lo = fl.ml.intrinsic("llvm.amdgcn.mbcnt.lo", i32, [i32, i32])
        hi = fl.ml.intrinsic("llvm.amdgcn.mbcnt.hi", i32, [i32, i32])
        ones = ir.Constant(i32, -1)
        lane = b.call(hi, [ones, b.call(lo, [ones, ir.Constant(i32, 0)])])
        return b.zext(lane, fl.ml.index_type)

    def barrier(self, fl: FunctionLowering) -> None:
        barrier = fl.ml.intrinsic(
            "llvm.amdgcn.s.barrier", ir.VoidType(), [], ["convergent"]
        )
        fl.builder.fence("release", "workgroup")
        fl.builder.call(barrier, [])
        fl.builder.fence("acquire", "workgroup")

    def target_machine(self, opt_level: int) -> object:
        from llvmlite import binding as llvm

        return llvm.Target.from_triple(self.triple).create_target_machine(
            cpu=self.gfx, opt=opt_level
        )

    def emit(self, module: object, tm: object) -> str:
        return str(tm.emit_assembly(module))  # type: ignore[attr-defined]


@pytest.fixture
def toygpu() -> Iterator[None]:
    register_target(ToyGPUTarget)
    yield
    unregister_target("toygpu")


@pytest.mark.usefixtures("toygpu")
def test_new_target_compiles_the_examples() -> None:
    root = ROOT / "examples"
    saxpy = compile_module(root / "saxpy.mlir", "toygpu")
    assert ".amdhsa_kernel saxpy" in saxpy.artefact
    assert "v_fmac_f32" in saxpy.artefact
    assert "define amdgpu_kernel void @saxpy(" in saxpy.llvm_ir
    (kernel,) = [op for op in saxpy.module.ops if isinstance(op, FuncOp)]
    assert kernel.attributes[FINALIZED_ATTR] == FinalizedAttr(
        "saxpy", cconv="amdgpu_kernel"
    )
    assert saxpy.kernels["saxpy"].symbol == "saxpy"
    reduce = compile_module(root / "reduce.mlir", "toygpu", gfx="gfx1100").artefact
    assert "s_barrier" in reduce and ".amdhsa_group_segment_fixed_size 4096" in reduce


@pytest.mark.usefixtures("toygpu")
def test_new_target_is_a_cli_target_and_a_t_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Registered once, the target is a `--target` with a `--gfx` flag, an
    xdsl-opt / gpuc-opt `-t` output, and has no executor."""
    from gpuc.cli.main import main, target_flags
    from gpuc.outputs import output_class

    saxpy = str(ROOT / "examples" / "saxpy.mlir")
    assert target_flags()["gfx"][1] == ["toygpu"]
    assert main(["compile", saxpy, "--target", "toygpu", "--gfx", "gfx1100"]) == 0
    listing = capsys.readouterr().out
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"' in listing
    output = StringIO()
    output_class("toygpu")(gfx="gfx1100").emit(
        make_context(), gpuc.driver.load_module(saxpy), output
    )
    assert output.getvalue() == listing
    with pytest.raises(LaunchError, match="the toygpu target has no executor"):
        gpuc.compile(saxpy, target="toygpu").launch("saxpy", 1, 1, ())


TOY_INIT = '''\
"""The toyll target: ptx's optimized LLVM IR as the artefact."""
'''
TOY_TARGET = '''\
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from gpuc.targets.ptx.target import PTXTarget

if TYPE_CHECKING:
    from llvmlite import binding as llvm


@dataclass(frozen=True)
class ToyLLTarget(PTXTarget):
    """ptx's code generation up to its optimized LLVM IR, the artefact."""

    name: ClassVar[str] = "toyll"
    artefacts: ClassVar[tuple[str, ...]] = ("ll",)
    listing: ClassVar[str] = "ll"
    executor: ClassVar[str | None] = None

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> str:
        return str(module)

    def validate(self, artefact: bytes | str) -> None:
        from llvmlite import binding as llvm

        llvm.parse_assembly(str(artefact)).verify()
'''
TOY_REGISTRY_LINE = """\
    "toyll": "gpuc.targets.toyll.target:ToyLLTarget",
"""
TOY_USE = """\
from gpuc.cli.main import main
from gpuc.compiler import compile_module

saxpy = compile_module("examples/saxpy.mlir", "toyll", validate=True)
assert saxpy.artefact.startswith("; ModuleID"), saxpy.artefact
assert "define ptx_kernel void @saxpy(" in saxpy.artefact
assert main(["compile", "examples/saxpy.mlir", "--target", "toyll", "-o", "s.ll"]) == 0
"""


def test_a_target_is_one_folder_and_one_registry_line(tmp_path: Path) -> None:
    """Exactly what docs/extending.md says a target takes, done to a copy of
    the package: the folder gpuc/targets/toyll/ (its two files as the doc
    shows them) and one line in BUILTIN_TARGETS; the copy then compiles
    saxpy for the new target, from Python and from the command line."""
    package = tmp_path / "gpuc"
    shutil.copytree(
        ROOT / "gpuc", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    folder = package / "targets" / "toyll"
    folder.mkdir()
    (folder / "__init__.py").write_text(TOY_INIT)
    (folder / "target.py").write_text(TOY_TARGET)
    registry = package / "targets" / "__init__.py"
    opening = "BUILTIN_TARGETS: dict[str, str] = {\n"
    text = registry.read_text()
    assert text.count(opening) == 1
    registry.write_text(text.replace(opening, opening + TOY_REGISTRY_LINE))
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "GPUC_CACHE": "0",
        "GPUC_SERVER": "0",
    }
    check = f"import gpuc\nassert gpuc.__file__.startswith({str(tmp_path)!r})\n"
    done = subprocess.run(
        [sys.executable, "-c", check + TOY_USE],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "define ptx_kernel void @saxpy(" in (tmp_path / "s.ll").read_text()


# 4. A new executor ---------------------------------------------------------


class SerialExecutor:
    """Runs native-target code on the calling thread: one call of a kernel's
    launch entry (the symbol its finalization record names) runs every block."""

    code_field = "llvm_ir"

    def __init__(self, llvm_ir: str, kernels: Mapping[str, KernelSignature]) -> None:
        from llvmlite import binding as llvm

        self.kernels = dict(kernels)
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        module = llvm.parse_assembly(llvm_ir)
        target = llvm.Target.from_triple(module.triple)
        self.engine = llvm.create_mcjit_compiler(
            module, target.create_target_machine(jit=True)
        )
        self.engine.finalize_object()

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        launch = check_launch(
            self.kernels, name, grid, block, args, lambda _: CUDA_LIMITS
        )
        if launch.sig.uses_barrier:
            raise LaunchError(
                f"kernel '{name}' reaches a barrier, which needs a thread per GPU "
                "thread: launch it on the native target"
            )
        record = np.zeros(LAUNCH.size // 8, np.uint64)
        record[LAUNCH.words("grid_dim")] = launch.grid
        record[LAUNCH.words("block_dim")] = launch.block
        record[LAUNCH.word("block_end")] = launch.blocks
        shared = np.zeros(max(1, launch.sig.static_shared_bytes), np.uint8)
        record[LAUNCH.word("shared")] = shared.ctypes.data
        arrays = [isinstance(v, np.ndarray) for v in launch.values]
        types = [
            ctypes.c_void_p if array else np.ctypeslib.as_ctypes_type(v.dtype)
            for v, array in zip(launch.values, arrays, strict=True)
        ]
        values = [
            v.ctypes.data if array else v.item()
            for v, array in zip(launch.values, arrays, strict=True)
        ]
        address = self.engine.get_function_address(launch.sig.launch_symbol)
        entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *types)(address)
        entry(record.ctypes.data, *values)


@dataclass(frozen=True)
class SerialTarget(NativeTarget):
    """The native target, launched by `SerialExecutor`."""

    name: ClassVar[str] = "serial"
    executor: ClassVar[str | None] = f"{__name__}:SerialExecutor"
    # SerialExecutor runs the generic code only (no `specialize=`).
    block_specialization: ClassVar[bool] = False


@pytest.fixture
def serial() -> Iterator[None]:
    register_target(SerialTarget)
    yield
    unregister_target("serial")


@pytest.mark.usefixtures("serial")
@pytest.mark.parametrize("example", ["saxpy", "deferred_helper", "stencil2d"])
def test_new_executor_runs_the_examples(example: str) -> None:
    mod = gpuc.compile(EXAMPLES[example].path, target="serial")
    assert isinstance(mod.executor, SerialExecutor)
    rng = np.random.default_rng(3)
    for config in EXAMPLES[example].configs:
        run(EXAMPLES[example], config, mod.launch, rng)


@pytest.mark.usefixtures("serial")
def test_new_executor_looks_kernels_up_by_their_records_symbol() -> None:
    mod = gpuc.compile(RENAMED_KERNEL, target="serial")
    assert mod.signatures["my-kernel"].launch_symbol == "__gpuc_launch_my-kernel"
    x = np.full(5, np.nan, np.float32)
    mod.launch("my-kernel", grid=(1,), block=(5,), args=(x,))
    assert_equal(x, np.arange(5, dtype=np.float32), "my-kernel")
    with pytest.raises(LaunchError, match="reaches a barrier"):
        gpuc.compile(EXAMPLES["reduce"].path, target="serial").launch(
            "reduce", 1, 256, (np.zeros(256, np.float32), np.zeros(1, np.float32), 256)
        )


RENAMED_KERNEL = """
gpuc.func @"my-kernel"(%x: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.thread_id x
  %i64 = arith.index_cast %i : index to i64
  %v = arith.sitofp %i64 : i64 to f32
  gpuc.store %v, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


# 5. A new job source: a generator -------------------------------------------


class Negate(Generator):
    """`-f(args)`: a wrapper that calls the source and negates its result."""

    name: ClassVar[str] = "negate"

    def generate(self, request: GeneratorRequest) -> FuncOp | None:
        if request.source_func is None:
            return None
        signature = request.signature
        body = Block(arg_types=signature.inputs.data)
        call = CallOp(request.source, body.args, signature.outputs.data)
        negated = NegfOp(call.res[0])
        body.add_ops([call, negated, ReturnOp(negated)])
        return FuncOp(request.source, signature, request.job.job_role, Region(body))


NEGATE_KERNEL = """
gpuc.func @negate_square(%x: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = gpuc.deferred_call @square(%v) #gpuc.job<helper, generator = "negate">
      : (f32) -> f32
  gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @square(%v: f32) -> f32 helper {
  %r = arith.mulf %v, %v : f32
  gpuc.return %r : f32
}
"""


def test_new_generator_makes_the_wrapper() -> None:
    module = gpuc.compile(
        NEGATE_KERNEL, target="native", generators={"negate": Negate()}
    )
    assert "negate_square" in module.signatures
    x = np.arange(8, dtype=np.float32)
    module.launch("negate_square", grid=(1,), block=(8,), args=(x,))
    assert np.array_equal(x, -(np.arange(8, dtype=np.float32) ** 2))


# The doc ---------------------------------------------------------------------

FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```$", re.M | re.S)
EXCERPTS = {"python", "mlir", "filecheck"}
"""The kinds of block that must be excerpts of this file; the others (`toml`)
are configuration that tests/test_target_registry.py exercises."""


def test_the_docs_code_is_this_files_code() -> None:
    """Every python, mlir and filecheck block of docs/extending.md is an
    excerpt of this file, so the doc shows exactly what these tests run."""
    source = Path(__file__).read_text()
    blocks = FENCE.findall(DOC.read_text())
    assert {kind for kind, _ in blocks} == {*EXCERPTS, "toml"}
    for kind, code in blocks:
        if kind in EXCERPTS:
            assert code in source, f"{DOC.name} shows code this file lacks:\n{code}"
