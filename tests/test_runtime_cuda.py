"""The ptx executor. Without an NVIDIA GPU and driver only the diagnostics run
(and the GPU tests skip, saying why); with one, PTX made by llvmlite from
hand-written LLVM IR runs and is checked against numpy."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from cases import assert_within, fma_bound  # noqa: E402

from gpuc.runtime.args import KernelSignature, LaunchError, Param  # noqa: E402

SAXPY_NVPTX = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
define ptx_kernel void @saxpy(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y,
                              i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bd = mul i32 %b, %d
  %i32 = add i32 %bd, %t
  %i = zext i32 %i32 to i64
  %nn = sext i32 %n to i64
  %c = icmp ult i64 %i, %nn
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr float, ptr addrspace(1) %x, i64 %i
  %py = getelementptr float, ptr addrspace(1) %y, i64 %i
  %xv = load float, ptr addrspace(1) %px
  %yv = load float, ptr addrspace(1) %py
  %m = fmul float %a, %xv
  %s = fadd float %m, %yv
  store float %s, ptr addrspace(1) %py
  br label %exit
exit:
  ret void
}
"""

SAXPY_SIG = KernelSignature(
    "saxpy",
    (
        Param("a", "f32"),
        Param("x", "f32", "global"),
        Param("y", "f32", "global"),
        Param("n", "i32"),
    ),
)


def saxpy_ptx() -> str:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(SAXPY_NVPTX)
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    return str(target.create_target_machine(cpu="sm_75").emit_assembly(module))


def gpu_missing() -> str | None:
    """Why the GPU tests cannot run here, or None when they can."""
    try:
        from gpuc.runtime.cuda import start_driver

        start_driver()
    except LaunchError as error:
        return str(error)
    return None


WHY_NOT = gpu_missing()
needs_gpu = pytest.mark.skipif(WHY_NOT is not None, reason=f"no GPU: {WHY_NOT}")


@pytest.mark.skipif(WHY_NOT is None, reason="a CUDA GPU is present")
def test_without_a_gpu_the_executor_says_what_is_missing() -> None:
    from gpuc.runtime.cuda import CudaExecutor

    with pytest.raises(LaunchError, match="cuda-bindings|CUDA driver|cuInit"):
        CudaExecutor(saxpy_ptx(), {"saxpy": SAXPY_SIG})


def test_emitted_ptx_names_the_kernel() -> None:
    assert ".visible .entry saxpy(" in saxpy_ptx()


def test_kernel_names_map_to_ptx_symbols() -> None:
    """Materialized kernel jobs have '.' in their names, which NVPTX renames;
    the executor looks them up by the PTX name (checked on real output)."""
    import gpuc
    from gpuc.runtime.cuda import DEVICE_RUNTIME_SYMBOLS, ptx_symbol

    mod = gpuc.compile(ROOT / "examples" / "child_launch.mlir", target="ptx")
    assert isinstance(mod.artefact, str)
    for name in mod.signatures:
        assert f".visible .entry {ptx_symbol(name)}(" in mod.artefact
    assert any(s in mod.artefact for s in DEVICE_RUNTIME_SYMBOLS)
    assert ptx_symbol("saxpy") == "saxpy"


@needs_gpu
@pytest.mark.parametrize(("n", "block"), [(1, 1), (1000, 128), (100_001, 256)])
def test_saxpy_on_the_gpu(n: int, block: int) -> None:
    from gpuc.runtime.cuda import CudaExecutor

    ex = CudaExecutor(saxpy_ptx(), {"saxpy": SAXPY_SIG})
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    product = np.float32(0.5) * x
    expected = product + y
    ex.launch("saxpy", -(-n // block), block, (0.5, x, y, n))
    # ptxas may contract a*x+y into an fma: cases.fma_bound says how far.
    assert_within(y, expected, fma_bound(product, expected, y), "saxpy")


@needs_gpu
def test_gpu_launch_checks() -> None:
    from gpuc.runtime.cuda import CudaExecutor

    ex = CudaExecutor(saxpy_ptx(), {"saxpy": SAXPY_SIG})
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="argument 1 \\('x'.*got one of int32"):
        ex.launch("saxpy", 1, 4, (1.0, x.view(np.int32), x, 4))
    with pytest.raises(LaunchError, match="block.x = 2048 exceeds"):
        ex.launch("saxpy", 1, 2048, (1.0, x, x, 4))


def test_device_check_saves_and_loads_every_example(tmp_path: Path) -> None:
    """bench/device_check.py --save / --load: what a GPU machine without the
    compiler runs. The saved signatures and PTX must round-trip."""
    sys.path.insert(0, str(ROOT / "bench"))
    import device_check

    compiled, failures = device_check.compile_examples(90)
    assert not failures
    device_check.save(compiled, tmp_path, 90)
    loaded, sm = device_check.load(tmp_path)
    assert sm == 90 and loaded == compiled
    assert ".entry saxpy(" in loaded["saxpy"][0]
