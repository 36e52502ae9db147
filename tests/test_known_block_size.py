"""A known block size (`gpu.known_block_size`, or the workgroup size of
`spirv.entry_point_abi`) is emitted by every target that can declare it
(`.reqntid` in PTX, `OpExecutionMode LocalSize` in SPIR-V, the AMDGPU code
object's `.reqd_workgroup_size` and flat work-group size), the artefacts pass
their validators, and the executors run the kernel with that block only."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.compiler import compile_module
from gpuc.tools import ToolError, llvm_tool, spirv_tool

# Each thread writes where it is: x + 10 y + 100 block, at its linear index.
FILL = """
gpuc.func @fill(%out: !gpuc.ptr<i32, global>) kernel
    attributes {gpu.known_block_size = array<i32: 8, 2, 1>} {
  %x = gpuc.thread_id x
  %y = gpuc.thread_id y
  %b = gpuc.block_id x
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %row = arith.muli %y, %c8 : index
  %base = arith.muli %b, %c16 : index
  %in = arith.addi %row, %x : index
  %k = arith.addi %base, %in : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  %ty = arith.muli %y, %c10 : index
  %tb = arith.muli %b, %c100 : index
  %s = arith.addi %x, %ty : index
  %t = arith.addi %s, %tb : index
  %v = arith.index_cast %t : index to i32
  gpuc.store %v, %out[%k] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""

IMPORTED = (
    Path(__file__).parent
    / "filecheck/import/Inputs/versions/spirv_abi_mlir16_generic.mlir"
)
"""A gpu.module kernel doubling 8 floats, its workgroup size [8, 1, 1] given
by spirv.entry_point_abi."""


def expected_fill(blocks: int) -> np.ndarray:
    b, y, x = np.meshgrid(np.arange(blocks), np.arange(2), np.arange(8), indexing="ij")
    return (x + 10 * y + 100 * b).astype(np.int32).ravel()


def spirv_listing(binary: bytes | str, tmp_path: Path) -> str:
    assert isinstance(binary, bytes)
    path = tmp_path / "k.spv"
    path.write_bytes(binary)
    done = subprocess.run(
        [spirv_tool("spirv-dis"), path], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_ptx_declares_the_block_and_ptxas_accepts_it() -> None:
    ptx = str(compile_module(FILL, "ptx", validate=True).artefact)
    entry = ptx[ptx.index(".visible .entry fill(") :]
    assert ".reqntid 8, 2, 1" in entry[: entry.index("{")]


def test_spirv_declares_the_block_and_spirv_val_accepts_it(tmp_path: Path) -> None:
    spirv = compile_module(FILL, "spirv", validate=True).artefact
    listing = spirv_listing(spirv, tmp_path)
    assert "OpExecutionMode %fill LocalSize 8 2 1" in listing


def test_amdgpu_code_object_notes_carry_the_block() -> None:
    try:
        for tool in ("ld.lld", "llvm-readelf", "llvm-objdump"):
            llvm_tool(tool)
    except ToolError as e:
        pytest.skip(str(e))
    from gpuc.targets.amdgpu.target import kernel_metadata

    hsaco = compile_module(FILL, "amdgpu", validate=True).artefact
    assert isinstance(hsaco, bytes)
    notes = kernel_metadata(hsaco)["fill"]
    assert notes[".max_flat_workgroup_size"] == "16"
    assert ".reqd_workgroup_size" in notes


def gpu_missing() -> str | None:
    try:
        from gpuc.runtime.cuda import start_driver

        start_driver()
    except gpuc.LaunchError as error:
        return str(error)
    return None


NO_GPU = gpu_missing()
EXECUTORS = [
    "native",
    "spirv",
    pytest.param(
        "ptx", marks=pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}")
    ),
]


@pytest.mark.parametrize("target", EXECUTORS)
def test_the_known_block_runs_and_no_other(target: str) -> None:
    mod = gpuc.compile(FILL, target=target)
    out = np.full(48, -1, np.int32)
    mod.launch("fill", (3,), (8, 2), [out])
    np.testing.assert_array_equal(out, expected_fill(3))
    for block in [(16,), (8,), (8, 2, 2), (4, 4)]:
        poisoned = np.full(48, -1, np.int32)
        with pytest.raises(gpuc.LaunchError, match=r"compiled for block \(8, 2, 1\)"):
            mod.launch("fill", (3,), block, [poisoned])
        assert (poisoned == -1).all(), "a refused launch ran"


def test_an_imported_workgroup_size_is_emitted(tmp_path: Path) -> None:
    text = IMPORTED.read_text()
    ptx = str(compile_module(text, "ptx", validate=True).artefact)
    assert ".reqntid 8, 1, 1" in ptx
    listing = spirv_listing(
        compile_module(text, "spirv", validate=True).artefact, tmp_path
    )
    assert "OpExecutionMode %double LocalSize 8 1 1" in listing


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_an_imported_workgroup_size_is_the_block_it_runs_with(target: str) -> None:
    mod = gpuc.compile(IMPORTED.read_text(), target=target)
    data = np.random.default_rng().standard_normal(8).astype(np.float32)
    out = data.copy()
    mod.launch("double", (1,), (8,), [out])
    np.testing.assert_array_equal(out, data + data)
    with pytest.raises(gpuc.LaunchError, match=r"compiled for block \(8, 1, 1\)"):
        mod.launch("double", (2,), (4,), [out])


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_an_empty_entry_point_abi_leaves_the_block_free(target: str) -> None:
    """`#spirv.entry_point_abi<>` (what SYCL and Level Zero lowerings attach)
    gives no workgroup size: nothing is declared, any block runs."""
    text = IMPORTED.read_text()
    text = re.sub(r"#spirv\.entry_point_abi<[^>]*>", "#spirv.entry_point_abi<>", text)
    assert "#spirv.entry_point_abi<>" in text
    mod = gpuc.compile(text, target=target)
    for threads in (8, 4):  # the kernel doubles element thread_id.x
        data = np.random.default_rng().standard_normal(8).astype(np.float32)
        out = data.copy()
        mod.launch("double", (1,), (threads,), [out])
        expected = np.concatenate([2 * data[:threads], data[threads:]])
        np.testing.assert_array_equal(out, expected)
    ptx = str(compile_module(text, "ptx", validate=True).artefact)
    assert ".reqntid" not in ptx
