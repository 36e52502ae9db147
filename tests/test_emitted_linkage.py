"""Which functions the PTX, SPIR-V and LLVM IR gpuc emits for the examples
define, and with what linkage: an always-inline helper leaves only its kernel,
other helpers stay internal, a child kernel stays a visible entry, and SPIR-V
rejects child launches and function pointers (the cases of GPUCompiler.jl
PR #928)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError
from gpuc.tools import run_spirv_dis

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WITH_FLAG = (EXAMPLES / "deferred_inline.mlir").read_text()
WITHOUT_FLAG = WITH_FLAG.replace(" {always_inline = true}", "")


def defined_functions(llvm_ir: str) -> list[str]:
    return re.findall(r"^define [^@]*@([\w.$]+)\(", llvm_ir, re.M)


def internal_definition(name: str, llvm_ir: str) -> bool:
    """`llvm_ir` defines @name with internal linkage (any calling convention)."""
    pattern = rf'^define internal [^@]*@"?{re.escape(name)}"?\('
    return re.search(pattern, llvm_ir, re.M) is not None


def test_always_inline_wrapper_leaves_only_the_kernel() -> None:
    assert WITHOUT_FLAG != WITH_FLAG
    spirv = compile_module(WITH_FLAG, "spirv", validate=True).artefact
    assert isinstance(spirv, bytes)
    text = run_spirv_dis(spirv)
    assert text.count(" OpFunction ") == 1
    assert "OpCapability Linkage" not in text
    assert "LinkageAttributes" not in text and "Export" not in text

    ptx = compile_module(WITH_FLAG, "ptx", validate=True).artefact
    assert isinstance(ptx, str)
    assert len(re.findall(r"^\.visible \.entry ", ptx, re.M)) == 1
    assert ".func" not in ptx

    native = compile_module(WITH_FLAG, "native").llvm_ir
    # The kernel is always inlined into its ABI entry point (docs/native-abi.md).
    assert defined_functions(native) == ["__gpuc_launch_deferred_inline"]


def test_without_always_inline_the_helper_is_internal() -> None:
    wrapper = "poly.helper.mock_autodiff"
    native = compile_module(WITHOUT_FLAG, "native", opt_level=0).llvm_ir
    assert f"define internal float @{wrapper}(float %v)" in native
    result = compile_module(WITHOUT_FLAG, "ptx", opt_level=0, validate=True)
    ptx_name = wrapper.replace(".", "_$_")  # PTX's spelling of '.'
    assert internal_definition(ptx_name, result.llvm_ir)
    assert isinstance(result.artefact, str)
    assert re.search(rf"^\.func .*{re.escape(ptx_name)}\($", result.artefact, re.M)
    assert ".visible .func" not in result.artefact
    assert len(re.findall(r"^\.visible \.entry ", result.artefact, re.M)) == 1


def test_no_inline_helper_survives_optimization_as_a_private_function() -> None:
    result = compile_module(EXAMPLES / "deferred_helper.mlir", "ptx", validate=True)
    assert internal_definition("square_plus_$_helper_$_no_inline", result.llvm_ir)
    assert isinstance(result.artefact, str)
    assert re.search(
        r"^\.func .*square_plus_\$_helper_\$_no_inline\($", result.artefact, re.M
    )
    assert ".visible .func" not in result.artefact
    native = compile_module(EXAMPLES / "deferred_helper.mlir", "native").llvm_ir
    assert internal_definition("square_plus.helper.no_inline", native)


def test_child_kernel_stays_a_visible_entry_next_to_its_parent() -> None:
    result = compile_module(EXAMPLES / "child_launch.mlir", "ptx", validate=True)
    assert set(result.kernels) == {"child_launch", "double.kernel"}
    assert isinstance(result.artefact, str)
    entries = re.findall(r"^\.visible \.entry ([\w$]+)\(", result.artefact, re.M)
    assert sorted(entries) == ["child_launch", "double_$_kernel"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            (EXAMPLES / "child_launch.mlir").read_text(),
            "'gpuc.launch' op launches a kernel from the device, which SPIR-V for "
            "OpenCL cannot express",
        ),
        (
            """
gpuc.func @k(%out: !gpuc.ptr<f32, global>) kernel {
  %fp = gpuc.deferred_addr @square #gpuc.job<helper> : !gpuc.funcptr<(f32) -> f32>
  gpuc.return
}
gpuc.func private @square(%v: f32) -> f32 helper {
  %r = arith.mulf %v, %v : f32
  gpuc.return %r : f32
}
""",
            "'gpuc.func_addr' op uses a function pointer, which SPIR-V for OpenCL "
            "cannot express",
        ),
    ],
    ids=["child launch", "function pointer"],
)
def test_spirv_rejects_child_launches_and_function_pointers(
    source: str, message: str
) -> None:
    with pytest.raises(OpError) as info:
        compile_module(source, "spirv")
    assert message in str(info.value)
