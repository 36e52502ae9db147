"""Inputs that used to end in an internal error or a silently changed value:
NaN payloads in float constants, an empty function name, two functions that
PTX spells the same, pointers to types without a size, types without an LLVM
lowering (each now a located diagnostic)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    Float16Type,
    Float32Type,
    FloatAttr,
    FloatData,
    ModuleOp,
)
from xdsl.utils.exceptions import DiagnosticException

import gpuc
from gpuc.compiler import compile_module
from gpuc.context import make_context
from gpuc.diagnostics import LocatingParser

STORE_CONSTANT = """
gpuc.func @k(%out: !gpuc.ptr<{ty}, global>) kernel {{
  %c = arith.constant {bits} : {ty}
  gpuc.store %c, %out : !gpuc.ptr<{ty}, global>
  gpuc.return
}}
"""

# (type, bits, the double that holds them: the payload in its top bits)
NANS = [
    ("f32", 0x7FA00001, 0x7FF4000020000000),  # signalling, payload 0x200001
    ("f32", 0xFFC00123, 0xFFF8002460000000),  # negative quiet, with payload
    ("f16", 0x7E01, 0x7FF8040000000000),  # quiet, payload 1
    ("f16", 0x7C01, 0x7FF0040000000000),  # signalling
]


def double(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


def store_constant(ty: str, bits: int, held: int) -> ModuleOp:
    """The kernel storing the NaN `bits`, its attribute holding `held`. xDSL's
    parser and FloatAttr's constructor round through struct ('f', 'e'), which
    quiets a signalling NaN and drops an f16 payload: `new` keeps the value."""
    text = STORE_CONSTANT.format(ty=ty, bits=f"0x{bits:X}")
    module = LocatingParser(make_context(), text).parse_module()
    constant = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    float_type: AnyFloat = Float32Type() if ty == "f32" else Float16Type()
    constant.properties["value"] = FloatAttr.new([FloatData(double(held)), float_type])
    return module


@pytest.mark.parametrize("ty, bits, held", NANS)
def test_nan_constant_keeps_its_bits_in_llvm_ir_and_ptx(
    ty: str, bits: int, held: int
) -> None:
    result = compile_module(store_constant(ty, bits, held), "ptx")
    width = 32 if ty == "f32" else 16
    if ty == "f32":
        assert f"store float 0x{held & ~((1 << 29) - 1):016X}" in result.llvm_ir
    else:
        assert f"store half 0xH{bits:04X}" in result.llvm_ir
    # LLVM stores the constant as an integer: decimal (signed) or hex.
    signed = bits - (1 << width) if bits >> (width - 1) else bits
    stored = {f"], {signed};", f"], 0x{bits:0{width // 4}X};", f"], 0f{bits:08X};"}
    assert any(text in str(result.artefact) for text in stored), result.artefact


@pytest.mark.parametrize("ty, bits, held", NANS)
def test_nan_constant_keeps_its_bits_when_run_natively(
    ty: str, bits: int, held: int
) -> None:
    mod = gpuc.compile(store_constant(ty, bits, held), target="native")
    dtype, view = (np.float32, np.uint32) if ty == "f32" else (np.float16, np.uint16)
    out = np.zeros(1, dtype)
    mod.launch("k", 1, 1, [out])
    assert int(out.view(view)[0]) == bits


# NaNs written in hex: xDSL's parser would quiet the signalling ones and drop
# an f16 payload; gpuc's keeps every bit (gpuc/hexfloat.py).
HEX_NANS = [
    ("f32", 0x7FA00001),  # signalling, payload 0x200001
    ("f32", 0xFFC00123),  # negative quiet, with payload
    ("f16", 0x7E01),  # quiet, payload 1
    ("f16", 0x7C01),  # signalling
    ("f64", 0x7FF0000000000001),  # signalling, payload 1
    ("f64", 0xFFF4000000000123),  # negative signalling
]
DTYPES = {
    "f16": (np.float16, np.uint16),
    "f32": (np.float32, np.uint32),
    "f64": (np.float64, np.uint64),
}


def hex_constant(ty: str, bits: int) -> str:
    return STORE_CONSTANT.format(ty=ty, bits=f"0x{bits:X}")


def stored_bits(mod: gpuc.Module, ty: str) -> int:
    dtype, view = DTYPES[ty]
    out = np.full(1, 1.5, dtype)  # poisoned
    mod.launch("k", 1, 1, [out])
    return int(out.view(view)[0])


@pytest.mark.parametrize("ty, bits", HEX_NANS)
@pytest.mark.parametrize("target", ["native", "spirv"])
def test_nan_constant_written_in_hex_keeps_its_bits(
    target: str, ty: str, bits: int
) -> None:
    mod = gpuc.compile(hex_constant(ty, bits), target=target)
    assert stored_bits(mod, ty) == bits


def spirv_constants(binary: bytes) -> set[tuple[int, ...]]:
    """The literal words of every OpConstant in a SPIR-V module."""
    words = struct.unpack(f"<{len(binary) // 4}I", binary)
    found, at = set(), 5  # after the header
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if opcode == 43:  # OpConstant: type, id, value words (low first)
            found.add(words[at + 3 : at + count])
        at += count
    return found


@pytest.mark.parametrize("ty, bits", HEX_NANS)
def test_nan_constant_written_in_hex_is_emitted_with_its_bits(
    ty: str, bits: int, tmp_path: Path
) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(hex_constant(ty, bits))
    width = DTYPES[ty][1]().itemsize * 8
    ptx = str(compile_module(source, "ptx", validate=True).artefact)
    # LLVM stores the constant as an integer: decimal (signed) or hex.
    signed = bits - (1 << width) if bits >> (width - 1) else bits
    spelled = (f"], {signed};", f"], 0x{bits:0{width // 4}X};")
    assert any(text in ptx for text in spelled), ptx
    spirv = compile_module(source, "spirv", validate=True).artefact
    assert isinstance(spirv, bytes)
    words = (bits,) if width <= 32 else (bits & 0xFFFFFFFF, bits >> 32)
    assert words in spirv_constants(spirv)


def test_nan_constants_differing_in_payload_are_cached_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cache key is the printed module: it must spell each NaN's bits.
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path))
    for bits in (0x7FA00001, 0x7FE00001, 0x7FA00001):
        mod = gpuc.compile(hex_constant("f32", bits), target="native")
        assert stored_bits(mod, "f32") == bits


def test_hex_float_literal_wider_than_its_type_is_a_located_diagnostic(
    tmp_path: Path,
) -> None:
    message = diagnostic(hex_constant("f16", 0x1FFFF), "native", tmp_path)
    # gpuc's words with xDSL 0.74; 0.75's parser finds it first, in its own.
    assert "in.mlir:3:23: error: " in message
    assert (
        "hexadecimal float literal has more bits" in message
        or "Hexadecimal float constant out of range for type" in message
    )


def diagnostic(text: str, target: str, tmp_path: Path) -> str:
    source = tmp_path / "in.mlir"
    source.write_text(text)
    with pytest.raises(DiagnosticException) as raised:
        compile_module(source, target)
    return str(raised.value)


@pytest.mark.parametrize("target", ["ptx", "native"])
def test_an_empty_function_name_is_a_diagnostic(target: str, tmp_path: Path) -> None:
    # Was `internal error: DuplicatedNameError` on native.
    text = 'gpuc.func @""() kernel {\n  gpuc.return\n}\n'
    message = diagnostic(text, target, tmp_path)
    assert (
        "in.mlir:1:1: error: 'gpuc.func' op a function needs a non-empty name"
        in message
    )


def test_two_functions_ptx_spells_the_same_are_a_diagnostic(tmp_path: Path) -> None:
    text = (
        'gpuc.func @"a.b"() kernel {\n  gpuc.return\n}\n'
        'gpuc.func @"a_$_b"() kernel {\n  gpuc.return\n}\n'
    )
    message = diagnostic(text, "ptx", tmp_path)
    assert (
        "in.mlir:4:1: error: 'gpuc.func' op @a.b and @a_$_b are both named " in message
    )
    assert "'a_$_b' in PTX" in message
    compile_module(text, "native")


@pytest.mark.parametrize("element", ["i0", "none"])
def test_a_pointer_to_a_type_without_a_size_is_a_diagnostic(
    element: str, tmp_path: Path
) -> None:
    ptr = f"!gpuc.ptr<{element}, global>"
    text = (
        f"gpuc.func @k(%p: {ptr}) kernel {{\n"
        f"  %v = gpuc.load %p : {ptr}\n  gpuc.store %v, %p : {ptr}\n  gpuc.return\n}}\n"
    )
    message = diagnostic(text, "native", tmp_path)
    assert f"in.mlir:1:1: error: !gpuc.ptr cannot point to {element}" in message


# bf16 and vector<4xf32> now lower (tests/test_half_types.py, test_vectors.py).
@pytest.mark.parametrize("element", ["f8E4M3FN", "complex<f32>", "vector<3xf32>", "i0"])
def test_a_type_without_an_llvm_lowering_is_located(
    element: str, tmp_path: Path
) -> None:
    loaded = element != "i0"
    ptr = f"!gpuc.ptr<{element if loaded else 'f32'}, global>"
    text = (
        f"gpuc.func @k(%p: {ptr}) kernel {{\n"
        f"  %v = gpuc.load %p : {ptr}\n  gpuc.store %v, %p : {ptr}\n  gpuc.return\n}}\n"
        if loaded
        else f"gpuc.func @k(%x: {element}) kernel {{\n  gpuc.return\n}}\n"
    )
    message = diagnostic(text, "native", tmp_path)
    where = (
        "in.mlir:2:8: error: 'gpuc.load' op"
        if loaded
        else "in.mlir:1:1: error: 'gpuc.func' op"
    )
    # Located at the op, naming the type (a vector of 3 says why it cannot be).
    assert where in message and element in message
    if element != "vector<3xf32>":
        assert f"{where} type {element} has no LLVM lowering" in message
