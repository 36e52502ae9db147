"""`gpuc.printf` on every target: the text each thread prints reaches the
process's standard output (compared exactly), on native in thread order
within each block and blocks in order, however many OS threads ran them; on
spirv through Intel's OpenCL CPU runtime's printf; on ptx as vprintf that
ptxas accepts; amdgpu and bad formats get located diagnostics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.diagnostics import OpError
from gpuc.runtime.native import SPLIT_THRESHOLD

# Every kind of value: signed and unsigned small integers, i1, 64-bit ones
# printed with a plain %d (respelled), floats of each width, and %%.
VALUES = """\
gpuc.func @values(%x: i32, %f: f32, %big: i64) kernel {
  %i = gpuc.global_id x
  %t = gpuc.thread_id x
  %b = gpuc.block_id x
  %c = arith.index_cast %i : index to i8
  %h = arith.truncf %f : f32 to f16
  %d = arith.extf %f : f32 to f64
  %ti = arith.index_cast %t : index to i64
  %w = arith.addi %big, %ti : i64
  %one = arith.constant 1 : index
  %odd = arith.andi %i, %one : index
  %zero = arith.constant 0 : index
  %isodd = arith.cmpi ne, %odd, %zero : index
  gpuc.printf "b%d t%d: x=%d c=%hhd u=%u f=%.3f h=%.2f d=%e w=%d 0x%lx odd=%d 100%%\\n"
      %b, %t, %x, %c, %c, %f, %h, %d, %w, %w, %isodd
      : index, index, i32, i8, i8, f32, f16, f64, i64, i64, i1
  gpuc.return
}
"""

# Prints on both sides of a barrier and from a helper: a native work-group
# function runs every thread of a block up to the barrier, then every
# thread after it.
STAGED = """\
gpuc.func private @say(%t: index, %v: i32) helper {
  gpuc.printf "after t%d v=%d\\n" %t, %v : index, i32
  gpuc.return
}
gpuc.func @staged(%data: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %b = gpuc.block_id x
  %i = gpuc.global_id x
  %tile = gpuc.shared_alloc 64 : !gpuc.ptr<i32, shared>
  %v = gpuc.load %data[%i] : !gpuc.ptr<i32, global>
  gpuc.store %v, %tile[%t] : !gpuc.ptr<i32, shared>
  gpuc.printf "block %d before t%d\\n" %b, %t : index, index
  gpuc.barrier
  %n = gpuc.block_dim x
  %c1 = arith.constant 1 : index
  %last = arith.subi %n, %c1 : index
  %r = arith.subi %last, %t : index
  %u = gpuc.load %tile[%r] : !gpuc.ptr<i32, shared>
  gpuc.call @say(%t, %u) : (index, i32) -> ()
  gpuc.return
}
"""


def values_line(
    block: int, thread: int, threads: int, x: int, f: float, big: int
) -> str:
    i = block * threads + thread
    c = np.int8(np.uint8(i & 0xFF))
    w = big + thread
    h = float(np.float16(np.float32(f)))
    return (
        f"b{block} t{thread}: x={x} c={c} u={int(c) & 0xFF} f={np.float32(f):.3f} "
        f"h={h:.2f} d={float(np.float32(f)):e} w={w} 0x{w:x} odd={i & 1} 100%\n"
    )


def compiled(
    tmp_path: Path, text: str, target: str, name: str = "k.mlir"
) -> gpuc.Module:
    path = tmp_path / name
    path.write_text(text)
    return gpuc.compile(str(path), target=target, cache=False)


@pytest.mark.parametrize(
    "blocks", [3, SPLIT_THRESHOLD // 64 * 2], ids=["here", "threads"]
)
def test_native_prints_in_thread_order_per_block(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], blocks: int
) -> None:
    m = compiled(tmp_path, VALUES, "native")
    rng = np.random.default_rng()
    x = int(rng.integers(-1000, 1000))
    f = float(rng.uniform(-10, 10))
    big = int(rng.integers(1 << 40, 1 << 50))
    capfd.readouterr()
    m.launch("values", (blocks,), (64,), (np.int32(x), np.float32(f), np.int64(big)))
    out = capfd.readouterr().out
    expected = "".join(
        values_line(b, t, 64, x, f, big) for b in range(blocks) for t in range(64)
    )
    assert out == expected


def test_native_prints_around_a_barrier(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    m = compiled(tmp_path, STAGED, "native")
    data = np.random.default_rng().integers(0, 1000, 3 * 8).astype(np.int32)
    capfd.readouterr()
    m.launch("staged", (3,), (8,), (data,))
    out = capfd.readouterr().out
    expected = "".join(
        "".join(f"block {b} before t{t}\n" for t in range(8))
        + "".join(f"after t{t} v={data[b * 8 + 7 - t]}\n" for t in range(8))
        for b in range(3)
    )
    assert out == expected


def test_spirv_prints_through_opencl(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """OpenCL leaves the order of work-items' output open: the lines are
    compared as a multiset, each exactly."""
    pytest.importorskip("pyopencl")
    m = compiled(tmp_path, VALUES, "spirv")
    rng = np.random.default_rng()
    x = int(rng.integers(-1000, 1000))
    f = float(rng.uniform(-10, 10))
    big = int(rng.integers(1 << 40, 1 << 50))
    capfd.readouterr()
    m.launch("values", (2,), (16,), (np.int32(x), np.float32(f), np.int64(big)))
    out = capfd.readouterr().out
    expected = [values_line(b, t, 16, x, f, big) for b in range(2) for t in range(16)]
    assert sorted(out.splitlines(keepends=True)) == sorted(expected)


def test_spirv_prints_from_a_helper_after_a_barrier(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyopencl")
    m = compiled(tmp_path, STAGED, "spirv")
    data = np.random.default_rng().integers(0, 1000, 16).astype(np.int32)
    capfd.readouterr()
    m.launch("staged", (2,), (8,), (data,))
    lines = capfd.readouterr().out.splitlines(keepends=True)
    expected = [f"block {b} before t{t}\n" for b in range(2) for t in range(8)] + [
        f"after t{t} v={data[b * 8 + 7 - t]}\n" for b in range(2) for t in range(8)
    ]
    assert sorted(lines) == sorted(expected)


def test_ptx_calls_vprintf_that_ptxas_accepts(tmp_path: Path) -> None:
    path = tmp_path / "values.mlir"
    path.write_text(VALUES)
    m = gpuc.compile(str(path), target="ptx", cache=False, validate=True)
    ptx = m.artefact
    assert isinstance(ptx, str)
    assert ".extern .func  (.param .b32 func_retval0) vprintf" in ptx
    assert "call.uni (retval0), vprintf," in ptx
    # The format as nvcc passes it: the 64-bit values respelled with `l`.
    assert (
        "w=%ld 0x%lx"
        in bytes(int(b) for b in _ptx_bytes(ptx, "gpuc_$_printf_$_format")).decode()
    )


def _ptx_bytes(ptx: str, name: str) -> list[str]:
    """The initializer of PTX global `name` (`.b8 name[N] = {1, 2, ...}`)."""
    line = next(line for line in ptx.splitlines() if f" {name}[" in line)
    return line.split("{", 1)[1].rsplit("}", 1)[0].split(",")


def test_amdgpu_refuses_printf_with_a_location(tmp_path: Path) -> None:
    path = tmp_path / "values.mlir"
    path.write_text(VALUES)
    with pytest.raises(Exception, match=r"values\.mlir:14:3: .*ockl.*output array"):
        gpuc.compile(str(path), target="amdgpu", cache=False)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('"%d %d" %x : i32', "the format has 2 conversions but 1 value is given"),
        ('"%f" %x : i32', "value 0 is i32, but its conversion '%f' takes an f16"),
        ('"%s" %x : i32', "'%s' takes a string"),
        ('"%*d" %x : i32', "from an argument"),
        ('"%y" %x : i32', "'%y' is not a conversion"),
        ('"%d"', "1 conversion but 0 values"),
        ('"%d" %p : !gpuc.ptr<i32, global>', "takes an integer of at most 64 bits"),
        ('"%p" %x : i32', "takes a !gpuc.ptr"),
        ('"50%"', "incomplete conversion"),
    ],
)
def test_bad_formats_are_located_diagnostics(
    tmp_path: Path, call: str, message: str
) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(
        "gpuc.func @k(%x: i32, %p: !gpuc.ptr<i32, global>) kernel {\n"
        f"  gpuc.printf {call}\n"
        "  gpuc.return\n"
        "}\n"
    )
    with pytest.raises(Exception) as info:
        gpuc.compile(str(path), target="native", cache=False)
    assert f"{path}:2:3:" in str(info.value)
    assert message in str(info.value)


def test_native_output_comes_out_before_a_failed_assert(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """What the threads printed, each failing thread's line among it, is
    written, then the LaunchError is raised; `%c` of an i64 prints its
    character."""
    m = compiled(
        tmp_path,
        """\
gpuc.func @k(%limit: index, %letter: i64) kernel {
  %i = gpuc.global_id x
  gpuc.printf "%c%d\\n" %letter, %i : i64, index
  %ok = arith.cmpi ult, %i, %limit : index
  cf.assert %ok, "below the limit"
  gpuc.return
}
""",
        "native",
    )
    capfd.readouterr()
    with pytest.raises(gpuc.LaunchError, match="k.mlir:5:3: assertion failed"):
        m.launch("k", (2,), (4,), (np.int64(6), np.int64(ord("t"))))
    # Every thread ran; threads 6 and 7 (block 1, threads 2 and 3) failed.
    failed = [
        f"{tmp_path / 'k.mlir'}:5: k: block: [1,0,0], thread: [{t},0,0] "
        "Assertion `below the limit` failed.\n"
        for t in (2, 3)
    ]
    expected = "".join(f"t{i}\n" for i in range(6))
    assert capfd.readouterr().out == expected + f"t6\n{failed[0]}t7\n{failed[1]}"


MLIR_PRINTF = """\
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello() kernel {
      %t = gpu.thread_id x
      %c = arith.constant 2 : i8
      %f = arith.constant 3.0 : f32
      gpu.printf "Hello from %lld, %d, %f\\n" %t, %c, %f : index, i8, f32
      gpu.return
    }
  }
  func.func @main() {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    gpu.launch_func @kernels::@hello blocks in (%one, %one, %one)
        threads in (%two, %one, %one)
    return
  }
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_mlir_gpu_printf_program_runs(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], target: str
) -> None:
    """A gpu.printf kernel as MLIR's GPU integration tests write one, printed
    by mlir-opt-16 in generic form, imported and run as its launch says."""
    import shutil
    import subprocess

    if shutil.which("mlir-opt-16") is None:
        pytest.skip("mlir-opt-16 is not installed")
    if target == "spirv":
        pytest.importorskip("pyopencl")
    source = tmp_path / "printf.mlir"
    source.write_text(MLIR_PRINTF)
    generic = subprocess.run(
        ["mlir-opt-16", "--mlir-print-op-generic", str(source)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    m = gpuc.compile(generic, target=target, cache=False)
    capfd.readouterr()
    m.launch("hello", (1,), (2,), ())
    lines = capfd.readouterr().out.splitlines(keepends=True)
    expected = ["Hello from 0, 2, 3.000000\n", "Hello from 1, 2, 3.000000\n"]
    assert (lines if target == "native" else sorted(lines)) == expected


CHAIN = """\
gpuc.func private @say(%t: index) helper {
  gpuc.printf "t%d\\n" %t : index
  gpuc.return
}
gpuc.func private @mid(%t: index) helper INLINE {
  gpuc.call @say(%t) : (index) -> ()
  gpuc.return
}
gpuc.func @k() kernel {
  %t = gpuc.thread_id x
  gpuc.call @mid(%t) : (index) -> ()
  gpuc.return
}
"""


@pytest.mark.parametrize("opt_level", [0, 3])
def test_spirv_prints_through_a_chain_of_helpers(
    opt_level: int, capfd: pytest.CaptureFixture[str]
) -> None:
    """LLVM 22's SPIR-V back-end takes printf only in a kernel: gpuc inlines
    every helper that prints, even at -O0, where LLVM would keep them."""
    pytest.importorskip("pyopencl")
    m = gpuc.compile(CHAIN.replace("INLINE", ""), "spirv", opt_level=opt_level)
    capfd.readouterr()
    m.launch("k", (1,), (4,), ())
    assert sorted(capfd.readouterr().out.splitlines()) == [f"t{t}" for t in range(4)]


def test_spirv_refuses_a_no_inline_helper_that_prints() -> None:
    with pytest.raises(OpError, match="is no_inline and prints"):
        gpuc.compile(CHAIN.replace("INLINE", "no_inline"), "spirv")
