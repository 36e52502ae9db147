"""Each patch of gpuc/targets/spirv/ir_patches.py on its own: real LLVM IR in,
the patched text out, and LLVM's SPIR-V back-end (in its fresh process, as
the target emits) making SPIR-V that spirv-val accepts from the patched
text. Where LLVM 22 still fails on the unpatched text, that is asserted too:
the day it passes, the patch can go.
"""

from __future__ import annotations

import pytest
from llvmlite import binding as llvm

from gpuc.lowering.diagnostics import LoweringError
from gpuc.lowering.llvm import initialize
from gpuc.targets import make_target
from gpuc.targets.spirv.ir_patches import (
    PATCHES,
    freeze_global_byte_offsets,
    in_each_function,
    legal_booleans,
    narrowed_zero_extensions,
    patched,
    signed_bool_conversions,
)
from gpuc.targets.spirv.isolation import emit_object
from gpuc.tools import ToolError, run_spirv_dis, run_spirv_val

TRIPLE = 'target triple = "spirv64-unknown-unknown"\n'


def emit(text: str, opt_level: int = 0) -> bytes:
    """`text` (a module's body) emitted as the spirv target emits, unpatched."""
    target = make_target("spirv")
    initialize(target.llvm_options())
    module = llvm.parse_assembly(TRIPLE + text)
    module.verify()
    return emit_object(module, target.target_machine(opt_level), "SPIR-V emission")


def valid_spirv(text: str, opt_level: int = 0) -> str:
    """spirv-dis's text of `text` emitted, after spirv-val accepted it."""
    binary = emit(text, opt_level)
    run_spirv_val(binary)
    return run_spirv_dis(binary)


def kernel(*body: str, params: str = "ptr addrspace(1) %out, i32 %x, i32 %y") -> str:
    return "\n".join(
        [f"define spir_kernel void @k({params}) {{", "entry:", *body, "  ret void", "}"]
    )


BOOLS = ("  %a = icmp sgt i32 %x, 0", "  %b = icmp sgt i32 %y, 0")
STORE_M = ("  %z = zext i1 %m to i32", "  store i32 %z, ptr addrspace(1) %out, align 4")


def test_signed_bool_conversion_is_a_select_of_minus_one() -> None:
    text = kernel(
        "  %b = icmp sgt i32 %x, 0",
        "  %f = sitofp i1 %b to float, !dbg !7",
        "  store float %f, ptr addrspace(1) %out, align 4",
    )
    out = signed_bool_conversions(text)
    assert (
        "  %f = select i1 %b, float -1.000000e+00, float 0.000000e+00, !dbg !7" in out
    )
    assert "sitofp" not in out
    spirv = valid_spirv(out.replace(", !dbg !7", ""))
    assert "OpConstant %float -1" in spirv and "OpSelect %float" in spirv


def test_signed_bool_conversion_of_each_float_type() -> None:
    for ty, minus_one in (("half", "0xHBC00"), ("double", "-1.000000e+00")):
        text = kernel(f"  %f = sitofp i1 true to {ty}")
        assert f"select i1 true, {ty} {minus_one}, {ty} " in (
            signed_bool_conversions(text)
        )


LEGAL_BOOLEANS = {
    "mul": (
        (*BOOLS, "  %m = mul i1 %a, %b", *STORE_M),
        "  %m = and i1 %a, %b",
    ),
    "shift": (
        (*BOOLS, "  %m = lshr i1 %a, %b", *STORE_M),
        "  %m = or i1 %a, false",
    ),
    "umax": (
        (*BOOLS, "  %m = call i1 @llvm.umax.i1(i1 %a, i1 %b)", *STORE_M),
        "  %m = or i1 %a, %b",
    ),
    "smax": (
        (*BOOLS, "  %m = tail call i1 @llvm.smax.i1(i1 %a, i1 %b)", *STORE_M),
        "  %m = and i1 %a, %b",
    ),
}
DECLARATIONS = "declare i1 @llvm.umax.i1(i1, i1)\ndeclare i1 @llvm.smax.i1(i1, i1)\n"


@pytest.mark.parametrize("case", sorted(LEGAL_BOOLEANS))
def test_legal_booleans(case: str) -> None:
    body, expected = LEGAL_BOOLEANS[case]
    text = DECLARATIONS + kernel(*body)
    out = legal_booleans(text)
    assert expected in out.splitlines()
    valid_spirv(out)
    # LLVM 22 at -O0: spirv-val rejects i1 arithmetic, or the back-end stops.
    with pytest.raises((ToolError, LoweringError)):
        valid_spirv(text)


def test_legal_booleans_truncation_tests_the_low_bit() -> None:
    text = kernel(
        "  %m = trunc i32 %x to i1",
        "  %z = select i1 %m, i32 7, i32 3",
        "  store i32 %z, ptr addrspace(1) %out, align 4",
    )
    out = legal_booleans(text)
    assert '  %"m.low" = and i32 %x, 1\n  %m = icmp ne i32 %"m.low", 0' in out
    assert "OpBitwiseAnd %uint %x %uint_1" in valid_spirv(out)


def test_narrowed_zero_extension() -> None:
    text = kernel(
        "  %t = trunc i64 %x to i8",
        "  %z = zext i8 %t to i32",
        "  store i32 %z, ptr addrspace(1) %out, align 4",
        params="ptr addrspace(1) %out, i64 %x",
    )
    out = narrowed_zero_extensions(text)
    assert '  %"z.narrow" = trunc i64 %x to i32\n  %z = and i32 %"z.narrow", 255' in out
    spirv = valid_spirv(out)
    assert "OpUConvert %uint %x" in spirv
    with pytest.raises(ToolError, match="same bit width"):
        valid_spirv(text)


def test_narrowed_zero_extension_leaves_a_widening_alone() -> None:
    # From i16 through i8 to i32: the source is narrower than the result.
    text = kernel(
        "  %t = trunc i16 %x to i8",
        "  %z = zext i8 %t to i32",
        "  store i32 %z, ptr addrspace(1) %out, align 4",
        params="ptr addrspace(1) %out, i16 %x",
    )
    assert narrowed_zero_extensions(text) == text


GLOBAL = "@g = internal addrspace(3) global [4 x i64] undef, align 8\n"


def test_frozen_global_byte_offsets() -> None:
    text = GLOBAL + kernel(
        "  %b = atomicrmw add ptr addrspace(3) getelementptr inbounds nuw "
        "(i8, ptr addrspace(3) @g, i64 8), i64 %x seq_cst, align 8",
        "  %q = getelementptr inbounds i8, ptr addrspace(3) @g, i64 16",
        "  %c = load i64, ptr addrspace(3) %q, align 8",
        "  %d = add i64 %b, %c",
        "  store i64 %d, ptr addrspace(1) %out, align 8",
        params="ptr addrspace(1) %out, i64 %x",
    )
    out = freeze_global_byte_offsets(text)
    lines = out.splitlines()
    assert lines[3:5] == [
        "  %gpuc.byte_offset.0.offset = freeze i64 8",
        "  %gpuc.byte_offset.0 = getelementptr inbounds nuw i8, "
        "ptr addrspace(3) @g, i64 %gpuc.byte_offset.0.offset",
    ]
    assert "atomicrmw add ptr addrspace(3) %gpuc.byte_offset.0, i64 %x" in out
    assert "  %q.offset = freeze i64 16" in lines
    spirv = valid_spirv(out, opt_level=2)
    # The offsets stay bytes: access chains on uchar, then a bitcast.
    assert "OpInBoundsPtrAccessChain %_ptr_Workgroup_uchar" in spirv
    assert "%_ptr_Workgroup_ulong %ulong_8" not in spirv


def test_in_each_function_rewrites_bodies_only() -> None:
    text = GLOBAL + kernel("  %s = add i32 %x, %y") + "\n" + kernel("  ; second")
    seen: list[str] = []

    def rewrite(body: str) -> str:
        seen.append(body)
        return body.upper()

    out = in_each_function(text, rewrite)
    assert seen == [
        "entry:\n  %s = add i32 %x, %y\n  ret void",
        "entry:\n  ; second\n  ret void",
    ]
    assert out.splitlines()[0] == GLOBAL.strip()
    assert "ENTRY:" in out and "define spir_kernel void @k(" in out


def test_patched_applies_every_patch_in_order() -> None:
    assert PATCHES == (
        freeze_global_byte_offsets,
        signed_bool_conversions,
        legal_booleans,
        narrowed_zero_extensions,
    )
    text = kernel(
        *BOOLS,
        "  %m = mul i1 %a, %b",
        "  %f = sitofp i1 %m to float",
        "  store float %f, ptr addrspace(1) %out, align 4",
    )
    out = patched(text)
    assert "select i1 %m, float -1.000000e+00" in out and "and i1 %a, %b" in out
    valid_spirv(out)
