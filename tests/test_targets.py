"""What each target makes of a module, beyond the lit tests: options and their
diagnostics, SPIR-V's fresh target
machine per module, float atomics as compare-exchange loops (run on Intel's
OpenCL runtime), and the facts the compile result reports per kernel."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type, IntegerType

from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace, PtrType
from gpuc.targets import make_target
from gpuc.targets.base import TargetError

ROOT = Path(__file__).resolve().parent.parent


def test_ptx_options() -> None:
    assert make_target("ptx").describe() == "ptx{sm=90}"
    assert str(make_target("ptx", sm=80).attr()) == "#gpuc.target<ptx, sm = 80>"
    ptx = compile_module(ROOT / "examples" / "saxpy.mlir", "ptx", sm=100, ptx_isa=87)
    assert isinstance(ptx.artefact, str)
    assert ".version 8.7" in ptx.artefact and ".target sm_100" in ptx.artefact
    with pytest.raises(
        TargetError, match="sm_70 is not supported; choose one of sm_75"
    ):
        make_target("ptx", sm=70)


@pytest.mark.parametrize(
    ("sm", "isa", "message"),
    [
        # LLVM aborted the process on these (an LLVM ERROR, no exception) ...
        (90, 60, "sm_90 needs PTX ISA 7.8 or later, not 6.0"),
        (100, 80, "sm_100 needs PTX ISA 8.6 or later, not 8.0"),
        # ... and ignored these with a warning, emitting its default version.
        (90, 1, "PTX ISA version 1 is not one LLVM emits; choose one of 78, 80"),
        (90, 999, "PTX ISA version 999 is not one LLVM emits"),
        (90, "78", "PTX ISA version '78' is not one LLVM emits"),
    ],
)
def test_ptx_isa_llvm_cannot_emit_is_a_diagnostic(
    sm: int, isa: object, message: str
) -> None:
    with pytest.raises(TargetError, match=re.escape(message)):
        compile_module(ROOT / "examples" / "saxpy.mlir", "ptx", sm=sm, ptx_isa=isa)


def test_every_ptx_isa_accepted_is_the_one_emitted() -> None:
    from gpuc.targets.ptx.target import MIN_PTX_ISA, PTX_ISAS

    for sm, lowest in MIN_PTX_ISA.items():
        default = compile_module(ROOT / "examples" / "saxpy.mlir", "ptx", sm=sm)
        assert f".version {lowest // 10}.{lowest % 10}\n" in str(default.artefact)
    saxpy = ROOT / "examples" / "saxpy.mlir"
    for isa in PTX_ISAS[PTX_ISAS.index(MIN_PTX_ISA[75]) :]:
        ptx = compile_module(saxpy, "ptx", sm=75, ptx_isa=isa)
        assert f".version {isa // 10}.{isa % 10}\n" in str(ptx.artefact)


@pytest.mark.parametrize("width", [7, 24, 48])
def test_ptx_kernel_parameter_of_odd_width_is_a_diagnostic(width: int) -> None:
    # LLVM declared it `.param .u7`, which ptxas rejects.
    source = f"""
gpuc.func @k(%x: !gpuc.ptr<i{width}, global>, %a: i{width}) kernel {{
  gpuc.store %a, %x : !gpuc.ptr<i{width}, global>
  gpuc.return
}}
"""
    with pytest.raises(OpError, match=f"takes parameter 1 as i{width}, which a PTX"):
        compile_module(source, "ptx")
    widened = source.replace(f"i{width}", "i64")
    compile_module(widened, "ptx", validate=True)


@pytest.mark.parametrize("space", ["generic", "local"])
def test_spirv_kernel_pointer_parameter_opencl_forbids(space: str) -> None:
    # spirv-val accepts it; Intel's runtime refused it at clSetKernelArg.
    source = f"""
gpuc.func @k(%x: !gpuc.ptr<f32, {space}>) kernel {{
  gpuc.return
}}
"""
    with pytest.raises(
        OpError,
        match=f"takes parameter 0 as !gpuc.ptr<f32, {space}>; OpenCL kernels take "
        "global, constant or shared pointers only",
    ):
        compile_module(source, "spirv")
    for allowed in ("global", "constant", "shared"):
        compile_module(source.replace(space, allowed), "spirv", validate=True)


def test_xdsl_target_options_are_diagnostics() -> None:
    import io

    from gpuc.context import make_context
    from gpuc.driver import OptionError, load_module
    from gpuc.outputs import LLVMOutput, output_class

    module = load_module(ROOT / "examples" / "saxpy.mlir")
    # A ValueError and an llvmlite assertion: gpuc-opt called them internal errors.
    with pytest.raises(OptionError, match="stage=foo: expected link or optimize"):
        LLVMOutput(stage="foo").emit(make_context(), module, io.StringIO())
    with pytest.raises(OptionError, match="opt_level must be 0, 1, 2 or 3, got 9"):
        output_class("spirv")(opt_level=9).emit(make_context(), module, io.StringIO())


CONCURRENT_SPIRV = """
import threading
from pathlib import Path
from gpuc.compiler import compile_module
sources = [Path({examples!r}) / n for n in ("saxpy.mlir", "reduce.mlir")]
want = {{s: compile_module(s, "spirv").artefact for s in sources}}
bad = []
def work():
    for _ in range(4):
        for s in sources:
            if compile_module(s, "spirv").artefact != want[s]:
                bad.append(s.name)
threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads: t.start()
for t in threads: t.join()
print("ok" if not bad else bad)
"""


def test_spirv_compiles_from_several_threads_at_once(tmp_path: Path) -> None:
    # SPIR-V emission forks; a child forked while another thread held
    # llvmlite's lock waited for it forever, and so did the compile.
    script = CONCURRENT_SPIRV.format(examples=str(ROOT / "examples"))
    log = tmp_path / "log"
    with log.open("w") as out:
        child = subprocess.Popen(
            [sys.executable, "-c", script],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            child.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)  # its forked children too
            child.wait()
            pytest.fail("concurrent SPIR-V compiles hung")
    assert child.returncode == 0 and log.read_text().strip() == "ok", log.read_text()


ATOMIC = """
gpuc.func @k(%x: !gpuc.ptr<{t}, global>, %v: {t}) kernel {{
  %o = gpuc.atomic_rmw add %x, %v : !gpuc.ptr<{t}, global>
  %c = gpuc.atomic_cmpxchg %x, %v, %o : !gpuc.ptr<{t}, global>
  gpuc.return
}}
"""


@pytest.mark.parametrize(
    ("target", "ty", "options", "message"),
    [
        # LLVM's verifier rejected these: gpuc reported an internal error.
        ("native", "i1", {}, "on i1; native atomics take integers of 8 to 128 bits"),
        (
            "ptx",
            "i1",
            {},
            "on i1; ptx (sm_90, PTX ISA 7.8) atomics take integers of 8 to 64",
        ),
        (
            "ptx",
            "i1",
            {"ptx_isa": 83},
            "ptx (sm_90, PTX ISA 8.3) atomics take integers of 8 to 128",
        ),
        ("native", "i24", {}, "on i24; native atomics take integers of 8 to 128"),
        # A call to libatomic, which the JIT left unresolved: a segfault.
        ("native", "i256", {}, "on i256; native atomics take integers of 8 to 128"),
        # LLVM printed `unsupported cmpxchg` and ended the process.
        (
            "ptx",
            "i128",
            {},
            "on i128; ptx (sm_90, PTX ISA 7.8) atomics take integers of 8 to 64 "
            "bits, a power of two: compile with sm_90 or later and PTX ISA 8.3",
        ),
        ("ptx", "i128", {"sm": 80, "ptx_isa": 83}, "ptx (sm_80, PTX ISA 8.3) atomics"),
        ("amdgpu", "i1", {}, "on i1; amdgpu atomics take integers of 8 to 64 bits"),
        ("amdgpu", "i128", {}, "on i128; amdgpu atomics take integers of 8 to 64"),
    ],
)
def test_atomic_widths_the_target_cannot_do_are_diagnostics(
    target: str, ty: str, options: dict[str, int], message: str
) -> None:
    with pytest.raises(OpError, match=re.escape(message)):
        compile_module(ATOMIC.format(t=ty), target, **options)


@pytest.mark.parametrize(
    ("target", "options"),
    [("native", {}), ("ptx", {"ptx_isa": 83}), ("ptx", {"sm": 100})],
)
def test_128_bit_atomics_where_the_target_has_them(
    target: str, options: dict[str, int]
) -> None:
    result = compile_module(ATOMIC.format(t="i128"), target, validate=True, **options)
    if target == "ptx":
        assert ".global.cas.b128 " in str(result.artefact)


def test_unknown_options_are_diagnostics() -> None:
    with pytest.raises(Exception, match="unknown option.*sm.*for target 'spirv'"):
        compile_module(ROOT / "examples" / "saxpy.mlir", "spirv", sm=90)


def test_native_barrier_free_kernel_is_a_vectorized_loop() -> None:
    llvm_ir = compile_module(ROOT / "examples" / "saxpy.mlir", "native").llvm_ir
    entry = llvm_ir[llvm_ir.index("define void @__gpuc_launch_saxpy(") :]
    assert re.search(r"load <(4|8|16) x float>", entry)
    assert re.search(r"store <(4|8|16) x float>", entry)
    assert "define internal" not in llvm_ir  # the kernel is inlined into its entry
    # The guard `i < n` is the thread loop's bound, so the vector loop needs no
    # masks (vmaskmovps made saxpy 2.2-2.5x slower than numpy on AMD CPUs).
    assert "llvm.masked" not in llvm_ir


def test_native_stencil_stores_without_masks() -> None:
    # Both guards (x < nx, y < ny) bound the thread loops; only the neighbour
    # loads of the interior branch are masked (cheap, unlike masked stores).
    llvm_ir = compile_module(ROOT / "examples" / "stencil2d.mlir", "native").llvm_ir
    assert re.search(r"store <(4|8|16) x float>", llvm_ir)
    assert "llvm.masked.store" not in llvm_ir


def test_native_rejects_what_its_abi_cannot_pass(tmp_path: Path) -> None:
    source = """
gpuc.func @k(%out: !gpuc.ptr<i64, global>) kernel {
  %fp = gpuc.func_addr @tid : !gpuc.funcptr<() -> index>
  gpuc.return
}
gpuc.func private @tid() -> index helper {
  %t = gpuc.thread_id x
  gpuc.return %t : index
}
"""
    with pytest.raises(OpError, match="reads the kernel state"):
        compile_module(source, "native")


def test_spirv_target_machine_is_fresh_for_every_module() -> None:
    # Reusing one crashes LLVM 22 after a few modules; forty in one process.
    for i in range(40):
        source = (
            (ROOT / "examples" / "saxpy.mlir")
            .read_text()
            .replace("@saxpy", f"@saxpy{i}")
        )
        assert isinstance(compile_module(source, "spirv").artefact, bytes)


FLOAT_MAX = """
gpuc.func @max_of(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                  %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %old = gpuc.atomic_rmw max %out, %v : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""


@pytest.mark.parametrize("target", ["spirv", "native"])
def test_float_atomic_max_as_a_compare_exchange_loop(target: str) -> None:
    import gpuc

    result = compile_module(FLOAT_MAX, target, validate=True)
    if target == "spirv":
        assert "cmpxchg" in compile_module(FLOAT_MAX, "spirv", opt_level=0).llvm_ir
    x = np.random.default_rng(3).standard_normal(5000).astype(np.float32)
    out = np.full(1, -np.inf, np.float32)
    gpuc.compile(FLOAT_MAX, target=target).launch(
        "max_of", grid=(20,), block=(256,), args=(x, out, np.int32(x.size))
    )
    assert out[0] == x.max()
    assert result.kernels["max_of"].uses_barrier is False


def test_kernel_facts_come_through_helpers() -> None:
    source = """
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %a = gpuc.shared_alloc 3 : !gpuc.ptr<i8, shared>
  %b = gpuc.shared_alloc 4 align 16 : !gpuc.ptr<f32, shared>
  gpuc.call @sync() : () -> ()
  gpuc.return
}
gpuc.func private @sync() helper {
  %h = gpuc.shared_alloc 2 : !gpuc.ptr<f64, shared>
  gpuc.barrier
  gpuc.return
}
gpuc.func @plain(%p: !gpuc.ptr<f32, global>) kernel {
  gpuc.return
}
"""
    kernels = compile_module(source, "native").kernels
    info = kernels["k"]
    assert info.params == (PtrType(Float32Type(), AddressSpace.GLOBAL), IntegerType(32))
    assert info.uses_barrier
    # The helper's 16 bytes first, then 3 bytes, then 16 bytes aligned to 16.
    assert info.static_shared_bytes == 48
    assert (
        not kernels["plain"].uses_barrier and kernels["plain"].static_shared_bytes == 0
    )
