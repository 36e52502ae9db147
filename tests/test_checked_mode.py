"""Checked mode on the native target (`checked=True`, `gpuc compile
--checked`): every load, store and atomic whose buffer is known (a kernel
parameter, a shared allocation, through offsets, casts and scf block
arguments) is checked against that buffer's extent, and the first access
outside it is a `LaunchError` naming the kernel, the op's location, the
thread, the block, the index and the extent. Off, nothing changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.driver import OptionError, make_options
from gpuc.runtime.native import SPLIT_THRESHOLD

EXAMPLES = Path(__file__).parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
from cases import EXAMPLES as CASES  # noqa: E402
from cases import run  # noqa: E402

F32 = "!gpuc.ptr<f32, global>"
I32 = "!gpuc.ptr<i32, global>"
GEN = "!gpuc.ptr<f32, generic>"


def kernel(tmp_path: Path, body: str, params: str, name: str = "k") -> Path:
    """A kernel @k(params) in its own file; `body` starts on line 2."""
    path = tmp_path / f"{name}.mlir"
    path.write_text(f"gpuc.func @k({params}) kernel {{\n{body}\n  gpuc.return\n}}\n")
    return path


def checked(path: Path) -> gpuc.Module:
    return gpuc.compile(str(path), target="native", cache=False, checked=True)


def fault(m: gpuc.Module, grid: int, block: int, args: tuple[object, ...]) -> str:
    with pytest.raises(gpuc.LaunchError) as info:
        m.launch("k", (grid,), (block,), args)
    return str(info.value)


# Thread i copies src[i + shift] to dst[i]: the last threads read past src.
COPY = f"""\
  %i = gpuc.global_id x
  %s = arith.index_cast %shift : i32 to index
  %j = arith.addi %i, %s : index
  %v = gpuc.load %src[%j] : {F32}
  gpuc.store %v, %dst[%i] : {F32}"""
COPY_PARAMS = f"%src: {F32}, %dst: {F32}, %shift: i32"


@pytest.mark.parametrize("big", [False, True], ids=["here", "threads"])
def test_in_bounds_runs_as_unchecked(tmp_path: Path, big: bool) -> None:
    m = checked(kernel(tmp_path, COPY, COPY_PARAMS))
    n = (SPLIT_THRESHOLD * 2) if big else 256
    src = np.random.default_rng().standard_normal(n + 5).astype(np.float32)
    dst = np.full(n, np.nan, np.float32)
    m.launch("k", (n // 64,), (64,), (src, dst, np.int32(5)))
    assert np.array_equal(dst, src[5:])


@pytest.mark.parametrize("big", [False, True], ids=["here", "threads"])
def test_a_read_past_a_parameter_is_reported(tmp_path: Path, big: bool) -> None:
    path = kernel(tmp_path, COPY, COPY_PARAMS)
    m = checked(path)
    n = (SPLIT_THRESHOLD * 2) if big else 256
    shift = int(np.random.default_rng().integers(1, 60))
    src = np.zeros(n, np.float32)
    dst = np.zeros(n, np.float32)
    text = fault(m, n // 64, 64, (src, dst, np.int32(shift)))
    first = n - shift  # the first thread whose read is outside src
    assert "kernel 'k'" in text
    assert f"{path}:5:8: 'gpuc.load' outside parameter %src (argument 0) of @k" in text
    assert f"block ({first // 64}, 0, 0), thread ({first % 64}, 0, 0)" in text
    assert f"index {n} is outside the extent {n}" in text


def test_a_negative_offset_through_casts_and_offsets(tmp_path: Path) -> None:
    body = f"""\
  %i = gpuc.global_id x
  %m = arith.constant -3 : index
  %g = gpuc.addrspace_cast %p : {I32} to !gpuc.ptr<i32, generic>
  %q = gpuc.offset %g[%m] : !gpuc.ptr<i32, generic>
  %one = arith.constant 1 : i32
  %old = gpuc.atomic_rmw add %q[%i], %one : !gpuc.ptr<i32, generic>"""
    path = kernel(tmp_path, body, f"%p: {I32}")
    m = checked(path)
    text = fault(m, 1, 32, (np.zeros(32, np.int32),))
    assert f"{path}:7:10: 'gpuc.atomic_rmw' outside parameter %p" in text
    assert "thread (0, 0, 0)" in text
    assert "index -3 is outside the extent 32" in text


def test_a_pointer_carried_by_a_loop(tmp_path: Path) -> None:
    """Thread 0 walks %p with a pointer advanced each iteration (an scf.for
    iter_arg), one step too far; compare-exchange at each element."""
    body = f"""\
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %count : i32 to index
  %z = arith.constant 0 : i32
  %seven = arith.constant 7 : i32
  %end = scf.for %k = %c0 to %n step %c1 iter_args(%q = %p) -> ({I32}) {{
    %old = gpuc.atomic_cmpxchg %q, %z, %seven : {I32}
    %next = gpuc.offset %q[%c1] : {I32}
    scf.yield %next : {I32}
  }}"""
    path = kernel(tmp_path, body, f"%p: {I32}, %count: i32")
    m = checked(path)
    data = np.zeros(16, np.int32)
    m.launch("k", (1,), (1,), (data, np.int32(16)))
    assert np.all(data == 7)
    text = fault(m, 1, 1, (data, np.int32(17)))
    assert f"{path}:8:12: 'gpuc.atomic_cmpxchg' outside parameter %p" in text
    assert "index 16 is outside the extent 16" in text


def test_shared_memory_past_its_allocation(tmp_path: Path) -> None:
    """A barrier kernel (a work-group function) reading its tile at t + 1."""
    body = f"""\
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %tile = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %v = gpuc.load %src[%i] : {F32}
  gpuc.store %v, %tile[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %c1 = arith.constant 1 : index
  %r = arith.addi %t, %c1 : index
  %u = gpuc.load %tile[%r] : !gpuc.ptr<f32, shared>
  gpuc.store %u, %dst[%i] : {F32}"""
    path = kernel(tmp_path, body, f"%src: {F32}, %dst: {F32}")
    m = checked(path)
    src = np.random.default_rng().standard_normal(128).astype(np.float32)
    text = fault(m, 2, 64, (src, np.zeros(128, np.float32)))
    assert f"{path}:10:8: 'gpuc.load' outside the shared allocation at {path}:4:11" in (
        text
    )
    assert "block (0, 0, 0), thread (63, 0, 0)" in text
    assert "index 64 is outside the extent 64" in text
    # 63 threads in a block of 64 shared elements stay inside.
    dst = np.zeros(128, np.float32)
    m.launch("k", (2,), (63,), (src, dst))
    assert np.array_equal(dst[:62], src[1:63])


@pytest.mark.parametrize("example", ["saxpy", "matmul", "histogram", "reduce"])
def test_unchecked_code_is_unchanged(example: str) -> None:
    """`checked=False` is the default's code, with nothing of checked mode."""
    path = str(EXAMPLES / f"{example}.mlir")
    default = gpuc.compile(path, target="native", cache=False)
    off = gpuc.compile(path, target="native", cache=False, checked=False)
    on = gpuc.compile(path, target="native", cache=False, checked=True)
    assert off.llvm_ir == default.llvm_ir
    assert off.artefact == default.artefact
    for name in ("__gpuc_fault", "_setjmp", ".checked"):
        assert name not in default.llvm_ir
        assert name in on.llvm_ir


@pytest.mark.parametrize(
    "name", [n for n, e in CASES.items() if "native" not in e.unsupported]
)
def test_every_example_runs_checked(name: str) -> None:
    """No access of a correct kernel is reported: every configuration of
    every example matches numpy in checked mode (fresh inputs)."""
    example = CASES[name]
    m = gpuc.compile(example.path, target="native", cache=False, checked=True)
    rng = np.random.default_rng()
    for cfg in example.configs:
        run(example, cfg, m.launch, rng)


def test_checked_matmul_matches_numpy() -> None:
    m = gpuc.compile(
        str(EXAMPLES / "matmul.mlir"), target="native", cache=False, checked=True
    )
    rng = np.random.default_rng()
    rows, cols, inner = (int(v) for v in rng.integers(17, 60, 3))
    a = rng.standard_normal((rows, inner)).astype(np.float32)
    b = rng.standard_normal((inner, cols)).astype(np.float32)
    c = np.full((rows, cols), np.nan, np.float32)
    grid = (-(-cols // 16), -(-rows // 16))
    args = (a, b, c, np.int32(rows), np.int32(cols), np.int32(inner))
    m.launch("matmul", grid, (16, 16), args)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    # Told one more column than b and c have, the last block reads past b.
    wide = (a, b, c, np.int32(rows), np.int32(cols + 1), np.int32(inner))
    with pytest.raises(gpuc.LaunchError, match="outside parameter %b"):
        m.launch("matmul", (-(-(cols + 1) // 16), grid[1]), (16, 16), wide)


def test_checked_is_an_option_of_the_native_target_only() -> None:
    with pytest.raises(OptionError, match="checked mode is for the native target"):
        gpuc.compile(str(EXAMPLES / "saxpy.mlir"), target="ptx", checked=True)
    with pytest.raises(OptionError, match="checked must be True or False"):
        gpuc.compile(str(EXAMPLES / "saxpy.mlir"), target="native", checked=1)
    on = make_options("native", {"checked": True})
    assert on.hash != make_options("native", {}).hash


def test_the_cli_compiles_checked(tmp_path: Path) -> None:
    out = tmp_path / "saxpy.ll"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuc.cli",
            "compile",
            "--target",
            "native",
            "--checked",
            "--emit",
            "llvm",
            "-o",
            str(out),
            str(EXAMPLES / "saxpy.mlir"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "__gpuc_fault" in out.read_text()


HELPER = f"""\
gpuc.func private @put(%q: {F32}, %j: index, %v: f32) helper no_inline {{
  gpuc.store %v, %q[%j] : {F32}
  gpuc.return
}}
gpuc.func @k(%p: {F32}, %shift: i32) kernel {{
  %i = gpuc.global_id x
  %s = arith.index_cast %shift : i32 to index
  %q = gpuc.offset %p[%s] : {F32}
  %v = arith.constant 1.5 : f32
  gpuc.call @put(%q, %i, %v) : ({F32}, index, f32) -> ()
  %t = gpuc.thread_id x
  %tile = gpuc.shared_alloc 32 : !gpuc.ptr<f32, shared>
  %c1 = arith.constant 1 : index
  %u = arith.addi %t, %c1 : index
  %g = gpuc.addrspace_cast %tile : !gpuc.ptr<f32, shared> to {GEN}
  gpuc.call @put_generic(%g, %u, %v) : ({GEN}, index, f32) -> ()
  gpuc.return
}}
gpuc.func private @put_generic(%q: {GEN}, %j: index, %v: f32) helper no_inline {{
  gpuc.store %v, %q[%j] : {GEN}
  gpuc.return
}}
"""


def test_a_helpers_pointer_is_checked_against_its_buffer(tmp_path: Path) -> None:
    """A helper's pointer parameter: the buffer it points into is looked up
    at run time (a kernel argument, or the block's shared memory). The
    helpers are no_inline: called once, `inline` would inline them."""
    path = tmp_path / "helper.mlir"
    path.write_text(HELPER)
    m = checked(path)
    data = np.zeros(40, np.float32)
    m.launch("k", (1,), (31,), (data, np.int32(9)))
    assert np.array_equal(data, np.r_[np.zeros(9), np.full(31, 1.5)])
    shift = int(np.random.default_rng().integers(10, 30))
    text = fault(m, 1, 31, (data, np.int32(shift)))
    assert f"{path}:2:3: 'gpuc.store' outside the buffer parameter %q" in text
    assert f"thread ({40 - shift}, 0, 0)" in text
    assert "index 40 is outside the extent 40" in text
    # 32 threads: the last stores at %tile[32], past the block's shared memory.
    text = fault(m, 1, 32, (np.zeros(64, np.float32), np.int32(0)))
    assert f"{path}:20:3: 'gpuc.store' outside the buffer parameter %q" in text
    assert "thread (31, 0, 0)" in text
    assert "index 32 is outside the extent 32" in text
