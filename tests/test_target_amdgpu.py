"""The amdgpu target: every example becomes an HSA code object for several
processors and validates (the notes list each kernel with its arguments and
its static shared size), the helper/kernel visibility of the seed's scenarios
holds in the code object's symbol table, and what AMDGPU cannot do (an
unknown processor, child launches, math without an instruction) is a
diagnostic. Needs Debian's lld-22 and llvm-22 (`.ci/run` installs them)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from test_lowering import math_kernel

from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError
from gpuc.targets import make_target
from gpuc.targets.base import TargetError
from gpuc.tools import ToolError, llvm_tool

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ARCHS = ("gfx90a", "gfx1100")
sys.path.insert(0, str(EXAMPLES))
from cases import EXAMPLES as CASES  # noqa: E402


def missing_tools() -> str | None:
    try:
        for name in ("ld.lld", "llvm-readelf", "llvm-objdump"):
            llvm_tool(name)
    except ToolError as e:
        return str(e)
    return None


WHY_NOT = missing_tools()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize(
    "name", [n for n, e in CASES.items() if "amdgpu" not in e.unsupported]
)
def test_every_example_is_a_code_object_that_validates(name: str, arch: str) -> None:
    from gpuc.targets.amdgpu.target import code_object_symbols, kernel_metadata

    result = compile_module(
        EXAMPLES / f"{name}.mlir", "amdgpu", arch=arch, validate=True
    )
    hsaco = result.artefact
    assert isinstance(hsaco, bytes) and hsaco[:4] == b"\x7fELF"
    notes = kernel_metadata(hsaco)
    assert set(notes) == set(result.kernels)
    descriptors = code_object_symbols(hsaco, "OBJECT")
    for kernel, info in result.kernels.items():
        entry = notes[kernel]
        explicit = [
            a for a in entry[".args"] if not a[".value_kind"].startswith("hidden")
        ]
        assert len(explicit) == len(info.params)
        assert int(entry[".group_segment_fixed_size"]) == info.static_shared_bytes
        assert int(entry[".vgpr_count"]) > 0 and int(entry[".sgpr_count"]) > 0
        assert descriptors[f"{kernel}.kd"] == "GLOBAL"


def test_arch_is_the_code_objects_processor() -> None:
    # The listing is emitted after the code object, from the same module: a
    # second emission from one module ended the process ("Cannot select").
    from io import StringIO

    from gpuc.context import make_context
    from gpuc.driver import load_module
    from gpuc.outputs import output_class
    from gpuc.targets.amdgpu.target import DEFAULT_ARCH

    assert make_target("amdgpu").describe() == f'amdgpu{{arch="{DEFAULT_ARCH}"}}'
    for arch in ("gfx942", "gfx1201"):
        listing = StringIO()
        output_class("amdgpu")(arch=arch).emit(
            make_context(), load_module(EXAMPLES / "saxpy.mlir"), listing
        )
        assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"' in listing.getvalue()


def test_accepted_archs_are_processors_llvm_knows() -> None:
    import shutil
    import subprocess

    from gpuc.targets.amdgpu.target import ARCHS as ACCEPTED

    llc = shutil.which("llc-22")
    if llc is None:
        pytest.skip("needs llc-22 (llvm-22) to list LLVM 22's processors")
    listed = subprocess.run(
        [llc, "-march=amdgcn", "-mcpu=help"], capture_output=True, text=True
    )
    processors = listed.stdout + listed.stderr
    processors = processors[: processors.index("Available features")]
    assert set(ACCEPTED) <= set(re.findall(r"^\s+(gfx\w+)\s+-", processors, re.M))


def test_unknown_arch_is_a_diagnostic_listing_the_accepted() -> None:
    with pytest.raises(TargetError, match="arch 'gfx9000' is not .*gfx90a, .*gfx1100"):
        compile_module(EXAMPLES / "saxpy.mlir", "amdgpu", arch="gfx9000")


def test_child_launch_is_a_diagnostic() -> None:
    with pytest.raises(
        OpError,
        match="'gpuc.launch' op launches a kernel from the "
        "device, which the amdgpu target cannot do",
    ):
        compile_module(EXAMPLES / "child_launch.mlir", "amdgpu")


def test_always_inline_wrapper_leaves_only_the_kernel() -> None:
    from gpuc.targets.amdgpu.target import code_object_symbols

    source = (EXAMPLES / "deferred_inline.mlir").read_text()
    result = compile_module(source, "amdgpu", validate=True)
    assert isinstance(result.artefact, bytes)
    assert code_object_symbols(result.artefact, "FUNC") == {"deferred_inline": "GLOBAL"}


def test_helper_job_is_a_local_symbol() -> None:
    from gpuc.targets.amdgpu.target import code_object_symbols

    helper = "square_plus.helper.no_inline"
    result = compile_module(EXAMPLES / "deferred_helper.mlir", "amdgpu", validate=True)
    assert re.search(
        rf'^define internal [^@]*@"?{re.escape(helper)}"?\(', result.llvm_ir, re.M
    )
    assert isinstance(result.artefact, bytes)
    assert code_object_symbols(result.artefact, "FUNC") == {
        "deferred_helper": "GLOBAL",
        helper: "LOCAL",
    }


def test_without_always_inline_the_wrapper_is_local() -> None:
    from gpuc.targets.amdgpu.target import code_object_symbols

    source = (EXAMPLES / "deferred_inline.mlir").read_text()
    source = source.replace(" {always_inline = true}", "")
    result = compile_module(source, "amdgpu", opt_level=0, validate=True)
    assert isinstance(result.artefact, bytes)
    symbols = code_object_symbols(result.artefact, "FUNC")
    assert symbols.pop("deferred_inline") == "GLOBAL"
    assert "poly.helper.mock_autodiff" in symbols
    assert set(symbols.values()) == {"LOCAL"}


def test_math_the_back_end_cannot_select_is_a_diagnostic() -> None:
    with pytest.raises(
        OpError,
        match="'math.expm1' op computes expm1 on f32, which "
        "LLVM's AMDGPU back-end cannot select",
    ):
        compile_module(math_kernel(), "amdgpu")
    kernel = """
gpuc.func @k(%x: !gpuc.ptr<{t}, global>) kernel {{
  %v = gpuc.load %x : !gpuc.ptr<{t}, global>
  %r = math.{op} %v : {t}
  gpuc.store %r, %x : !gpuc.ptr<{t}, global>
  gpuc.return
}}
"""
    for ty, op in (("f32", "exp"), ("f32", "log2"), ("f64", "sqrt"), ("f64", "floor")):
        compile_module(kernel.format(t=ty, op=op), "amdgpu", validate=True)
    for ty, op in (("f32", "sin"), ("f64", "exp")):
        with pytest.raises(OpError, match=f"computes {op} on {ty}"):
            compile_module(kernel.format(t=ty, op=op), "amdgpu")


def test_atomics_are_agent_scoped() -> None:
    source = """
gpuc.func @k(%x: !gpuc.ptr<i32, global>, %f: !gpuc.ptr<f32, global>) kernel {
  %one = arith.constant 1 : i32
  %o = gpuc.atomic_rmw add %x, %one : !gpuc.ptr<i32, global>
  %h = arith.constant 0.5 : f32
  %m = gpuc.atomic_rmw max %f, %h : !gpuc.ptr<f32, global>
  gpuc.return
}
"""
    result = compile_module(source, "amdgpu", validate=True)
    assert 'atomicrmw add ptr addrspace(1) %x, i32 1 syncscope("agent")' in (
        result.llvm_ir
    )


def test_a_validator_rejection_quotes_the_tool() -> None:
    target = make_target("amdgpu")
    with pytest.raises(ToolError, match="llvm-readelf rejected the output:\n.*"):
        target.validate(b"not an ELF file")
