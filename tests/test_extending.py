"""The worked examples of docs/extending.md, kept working by these tests:

1. a new op end to end: `demo.clamp` (definition, verifier, one translator
   function, FileCheck on its LLVM IR, a run against numpy);
2. a new target: AMD GPUs (`amdgcn-amd-amdhsa`), one class of data and hooks;
3. a new job generator: `negate`, which wraps a function and negates its result.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from llvmlite import ir
from xdsl.dialects.arith import ConstantOp, NegfOp
from xdsl.dialects.builtin import AnyFloatConstr, FloatAttr, ModuleOp
from xdsl.ir import Block, Dialect, Region
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from gpuc.context import make_context
from gpuc.diagnostics import LocatingParser, OpError, verify_located
from gpuc.dialects.attrs import AddressSpace
from gpuc.dialects.functions import CallOp, FuncOp, ReturnOp
from gpuc.driver import compile_module
from gpuc.generators import Generator, GeneratorRequest
from gpuc.lowering.arith import intrinsic_call
from gpuc.lowering.context import FunctionLowering, translates
from gpuc.targets import TARGETS
from gpuc.targets.base import Target

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


DEMO = Dialect("demo", [ClampOp])


@translates(ClampOp)
def translate_clamp(op: ClampOp, fl: FunctionLowering) -> None:
    x, lo, hi = fl.operands(op)
    fl.set(
        op,
        intrinsic_call(
            fl, "llvm.minnum", [intrinsic_call(fl, "llvm.maxnum", [x, lo]), hi]
        ),
    )


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


def parse_demo(text: str) -> ModuleOp:
    ctx = make_context()
    ctx.load_dialect(DEMO)
    module = LocatingParser(ctx, text, "clamp.mlir").parse_module()
    verify_located(module)
    return module


def test_new_op_lowers_through_its_translator(tmp_path: Path) -> None:
    from gpuc.driver import make_options, run

    c = run(parse_demo(CLAMP_KERNEL), make_options("ptx", {}), stop_after="link")
    checks = tmp_path / "clamp.checks"
    checks.write_text(CLAMP_CHECKS)
    filecheck = subprocess.run(
        ["filecheck", str(checks)],
        input=str(c.llvm_module),
        capture_output=True,
        text=True,
    )
    assert filecheck.returncode == 0, filecheck.stderr
    ptx = compile_module(parse_demo(CLAMP_KERNEL), "ptx", validate=True).artefact
    assert "max.f32" in ptx and "min.f32" in ptx


def test_new_op_computes_on_the_native_target() -> None:
    import gpuc

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


# 2. A new target -----------------------------------------------------------


@dataclass(frozen=True)
class AMDGPUTarget(Target):
    """AMD GPUs through LLVM's AMDGPU back-end (code object v5)."""

    name: ClassVar[str] = "amdgpu"
    triple: ClassVar[str] = "amdgcn-amd-amdhsa"
    address_spaces: ClassVar[dict[AddressSpace, int]] = {
        AddressSpace.GENERIC: 0,
        AddressSpace.GLOBAL: 1,
        AddressSpace.SHARED: 3,
        AddressSpace.CONSTANT: 4,
        AddressSpace.LOCAL: 5,
    }
    kernel_cconv: ClassVar[str] = "amdgpu_kernel"
    artefact_suffix: ClassVar[str] = ".s"

    gfx: str = "gfx90a"

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
def amdgpu() -> Iterator[None]:
    TARGETS["amdgpu"] = f"{__name__}:AMDGPUTarget"
    yield
    del TARGETS["amdgpu"]


@pytest.mark.usefixtures("amdgpu")
def test_new_target_compiles_the_examples() -> None:
    root = Path(__file__).resolve().parent.parent / "examples"
    saxpy = compile_module(root / "saxpy.mlir", "amdgpu").artefact
    assert ".amdhsa_kernel saxpy" in saxpy and "v_fmac_f32" in saxpy
    assert (
        "define amdgpu_kernel void @saxpy("
        in compile_module(root / "saxpy.mlir", "amdgpu").llvm_ir
    )
    reduce = compile_module(root / "reduce.mlir", "amdgpu", gfx="gfx1100").artefact
    assert "s_barrier" in reduce and ".amdhsa_group_segment_fixed_size 4096" in reduce


# 3. A new job generator ----------------------------------------------------


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
    import gpuc

    module = gpuc.compile(
        NEGATE_KERNEL, target="native", generators={"negate": Negate()}
    )
    x = np.arange(8, dtype=np.float32)
    module.launch("negate_square", grid=(1,), block=(8,), args=(x,))
    assert np.array_equal(x, -(np.arange(8, dtype=np.float32) ** 2))
