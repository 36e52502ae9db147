"""MLIR text from MLIR 16 to 22, run: the same atomics printed by mlir-opt-16
and -22 compute what numpy does on native and spirv (the case gpuc once
misread: MLIR 22 numbers `maxu` 7 and `andi` 2), generic text whose numbers
differ between versions is refused with a located message, and a module whose
host code gpuc cannot parse still runs its gpu.module. The fixtures are in
tests/filecheck/import/Inputs/versions/, each headed by the command that made
it (tests/filecheck/import/regenerate_newer_mlir.mlir regenerates them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.diagnostics import OpError, SourceParseError

VERSIONS = Path(__file__).parent / "filecheck" / "import" / "Inputs" / "versions"
TARGETS = ["native", "spirv"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("printed_by", ["mlir16", "mlir22"])
def test_atomic_kinds_in_custom_form_mean_the_same_in_every_version(
    printed_by: str, target: str
) -> None:
    mod = gpuc.compile(VERSIONS / f"atomic_kinds_func_{printed_by}.mlir", target=target)
    rng = np.random.default_rng()
    m = rng.integers(0, 1 << 20, 16, dtype=np.int32)
    m[3], m[7] = 12, 0x7FFF
    f = rng.standard_normal(4).astype(np.float32)
    v = np.int32(10)
    w = np.float32(rng.uniform(-1, 1))
    want_m, want_f = m.copy(), f.copy()
    want_m[3] = np.maximum(np.uint32(m[3]), np.uint32(v)).astype(np.int32)  # maxu
    want_m[7] = m[7] & v  # andi
    want_m[0] = v  # assign
    want_f[0] = f[0] + w  # addf
    mod.launch("atomics", grid=(1,), block=(1,), args=(m, f, v, w))
    np.testing.assert_array_equal(m, want_m)
    np.testing.assert_array_equal(f, want_f)


def test_maxu_then_andi_as_mlir_22_prints_them() -> None:
    # maxu(12, 10) = 12, then andi(12, 10) = 8 (the case; 10 when
    # misread as min then exchange).
    text = (VERSIONS / "atomic_kinds_func_mlir22.mlir").read_text()
    mod = gpuc.compile(text, target="native")
    m = np.zeros(16, np.int32)
    m[3], m[7] = 12, 12
    mod.launch(
        "atomics",
        grid=(1,),
        block=(1,),
        args=(m, np.zeros(4, np.float32), np.int32(10), np.float32(0)),
    )
    assert (m[3], m[7]) == (12, 8)


@pytest.mark.parametrize("version", ["19", "22"])
def test_generic_kinds_that_versions_number_differently_are_refused(
    version: str,
) -> None:
    path = VERSIONS / f"atomic_kinds_mlir{version}_generic.mlir"
    with pytest.raises(SourceParseError) as error:
        gpuc.compile(path, target="native")
    message = str(error.value)
    assert f"atomic_kinds_mlir{version}_generic.mlir:15:" in message
    assert "MLIR 18-19 number it" in message and "custom form" in message


def test_mlir16_generic_kinds_are_read_with_mlir16_numbers() -> None:
    mod = gpuc.compile(VERSIONS / "atomic_kinds_mlir16_generic.mlir", target="native")
    m = np.full(16, 5, np.int32)
    m[3] = -1  # maxu: 0xffffffff stays
    f = np.zeros(4, np.float32)
    mod.launch(
        "kernels::atomics",
        grid=(1,),
        block=(1,),
        args=(m, f, np.int32(7), np.float32(2)),
    )
    # addi, assign, maxs, maxu, mins, minu, ori, andi at 0..7 with v = 7.
    want = [12, 7, 7, -1, 5, 5, 7, 5] + [5] * 8
    np.testing.assert_array_equal(m, want)
    assert f[0] == 2


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("printed_by", ["mlir16", "mlir22"])
def test_a_gpu_module_amid_unparsable_host_code_runs(
    printed_by: str, target: str
) -> None:
    mod = gpuc.compile(
        VERSIONS / f"mixed_host_{printed_by}_generic.mlir", target=target
    )
    rng = np.random.default_rng()
    x = rng.standard_normal(4).astype(np.float32)
    want = x + x
    mod.launch("kernels::add", grid=(1,), block=(4,), args=(x,))
    np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("target", TARGETS)
def test_spirv_entry_point_abi_is_the_block_the_kernel_runs_with(target: str) -> None:
    mod = gpuc.compile(VERSIONS / "spirv_abi_mlir16_generic.mlir", target=target)
    x = np.random.default_rng().standard_normal(8).astype(np.float32)
    want = x + x
    mod.launch("double", grid=(1,), block=(8,), args=(x,))
    np.testing.assert_array_equal(x, want)
    with pytest.raises(gpuc.LaunchError, match="gpu.known_block_size"):
        mod.launch("double", grid=(2,), block=(4,), args=(x,))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("printed_by", ["mlir16", "mlir19"])
def test_vector_shuffle_masks_of_every_version(printed_by: str, target: str) -> None:
    """MLIR 16 prints the mask as an attribute, `{mask = [7, 0, ...]}`, 19 as
    a property of the same array, `<{mask = [7, 0, ...]}>`; xDSL's op takes
    `array<i64: ...>`. Both shuffle the same way. (22 no longer has the
    input's vector.insertelement.)"""
    mod = gpuc.compile(
        VERSIONS / f"vector_shuffle_{printed_by}_generic.mlir", target=target
    )
    a = np.random.default_rng().integers(-1000, 1000, 8, dtype=np.int32)
    out = np.full(8, -7, np.int32)
    mod.launch("m::k", grid=(1,), block=(1,), args=(a, out))
    np.testing.assert_array_equal(out, a[[7, 0, 5, 2, 4, 4, 1, 6]])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("printed_by", ["mlir16", "mlir22"])
def test_vector_load_and_store_on_memrefs(printed_by: str, target: str) -> None:
    """vector.load/vector.store on a 2-D memref and through a strided
    subview (unit innermost stride) read and write consecutive elements."""
    mod = gpuc.compile(
        VERSIONS / f"vector_load_store_{printed_by}_generic.mlir", target=target
    )
    a = np.random.default_rng().standard_normal((4, 8)).astype(np.float32)
    out = np.full((4, 8), np.nan, np.float32)
    tail = np.full((4, 4), np.nan, np.float32)
    mod.launch("m::k", grid=(1,), block=(4,), args=(a, out, tail))
    np.testing.assert_array_equal(out, a[:, [7, 0, 5, 2, 4, 4, 1, 6]])
    np.testing.assert_array_equal(tail, a[:, 2:6])


def test_a_vector_load_across_a_stride_is_refused() -> None:
    text = (VERSIONS / "vector_load_store_mlir16_generic.mlir").read_text()
    for old, new in (
        (
            "memref<4x6xf32, strided<[8, 1], offset: 2>>",
            "memref<4x3xf32, strided<[8, 2], offset: 2>>",
        ),
        ("static_sizes = array<i64: 4, 6>", "static_sizes = array<i64: 4, 3>"),
        ("static_strides = array<i64: 1, 1>", "static_strides = array<i64: 1, 2>"),
    ):
        assert old in text
        text = text.replace(old, new)
    with pytest.raises(OpError, match="innermost stride must be a static 1"):
        gpuc.compile(text, target="native")


@pytest.mark.parametrize("target", TARGETS)
def test_vector_load_through_a_view_at_a_dynamic_offset(target: str) -> None:
    mod = gpuc.compile(VERSIONS / "vector_load_dynamic_mlir16_generic.mlir", target)
    rng = np.random.default_rng()
    a = rng.standard_normal((16, 32)).astype(np.float32)
    out = np.full(4, np.nan, np.float32)
    row, col = int(rng.integers(0, 12)), int(rng.integers(0, 24))
    mod.launch("m::k", grid=(1,), block=(1,), args=(a, row, col, out))
    np.testing.assert_array_equal(out, a[row, col : col + 4])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("printed_by", ["mlir16", "mlir22"])
def test_host_code_with_device_copies_compiles(printed_by: str, target: str) -> None:
    """gpu.memcpy and gpu.dealloc in the host code, as MLIR prints them (no
    segment sizes), no longer stop the compile of the module's kernels."""
    mod = gpuc.compile(VERSIONS / f"host_memcpy_{printed_by}_generic.mlir", target)
    x = np.random.default_rng().standard_normal(8).astype(np.float32)
    want = x + x
    mod.launch("kernels::double", grid=(1,), block=(8,), args=(x,))
    np.testing.assert_array_equal(x, want)
