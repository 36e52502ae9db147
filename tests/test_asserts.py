"""`cf.assert` on spirv and ptx: the kernel takes a hidden error record
(gpuc/targets/error_record.py), and a failing assert is a `LaunchError`
naming the kernel, the assert's location and message, a failing block and
thread. spirv runs on Intel's OpenCL CPU runtime; ptx is checked by ptxas,
and the cuda executor's handling of the record on tests/fake_cuda_driver.py
(the fake kernel does what the PTX does)."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_native_assert import ASSERTING, IN_A_HELPER

import gpuc
from gpuc.runtime.error_record import BLOCK, ID, THREAD, WORDS

FAILED = re.compile(
    r"kernel '(\w+)': block \((\d+), 0, 0\), thread \((\d+), 0, 0\): (.*); the "
    r"failing thread returned there \(the first failure is reported\)"
)


def compiled(tmp_path: Path, text: str, target: str, name: str) -> tuple[Any, Path]:
    path = tmp_path / name
    path.write_text(text)
    return gpuc.compile(str(path), target=target, cache=False, validate=True), path


def failure(error: BaseException) -> tuple[str, int, int, str]:
    found = FAILED.fullmatch(str(error))
    assert found is not None, str(error)
    return found[1], int(found[2]), int(found[3]), found[4]


@pytest.fixture
def spirv() -> None:
    pytest.importorskip("pyopencl")


@pytest.mark.usefixtures("spirv")
def test_spirv_passing_and_failing_asserts(tmp_path: Path) -> None:
    m, path = compiled(tmp_path, ASSERTING, "spirv", "ids.mlir")
    sig = m.signatures["ids"]
    assert [p.name for p in sig.params] == ["out", "limit"]  # the record is hidden
    rng = np.random.default_rng()
    blocks = int(rng.integers(2, 8))
    out = np.full(blocks * 64, -1, np.int32)
    m.launch("ids", (blocks,), (64,), (out, np.int32(1 << 30)))
    assert np.array_equal(out, np.arange(blocks * 64, dtype=np.int32))

    limit = int(rng.integers(1, blocks * 64))
    out[:] = -1
    with pytest.raises(gpuc.LaunchError) as info:
        m.launch("ids", (blocks,), (64,), (out, np.int32(limit)))
    kernel, block, thread, message = failure(info.value)
    assert kernel == "ids"
    assert message == f"{path}:5:3: assertion failed: the id is below the limit"
    assert block * 64 + thread >= limit  # one of the threads that failed
    # The arrays come back: the threads below the limit wrote, no other did.
    assert np.array_equal(out[:limit], np.arange(limit, dtype=np.int32))
    assert (out[limit:] == -1).all()
    # The next launch starts with a clean record.
    m.launch("ids", (blocks,), (64,), (out, np.int32(1 << 30)))
    assert np.array_equal(out, np.arange(blocks * 64, dtype=np.int32))


@pytest.mark.usefixtures("spirv")
def test_spirv_assert_in_a_helper_of_a_barrier_kernel(tmp_path: Path) -> None:
    """The failing thread returns from the helper, then from the kernel (its
    caller tests the record); the others reach the barrier."""
    m, path = compiled(tmp_path, IN_A_HELPER, "spirv", "staged.mlir")
    rng = np.random.default_rng()
    data = rng.integers(0, 1000, 256).astype(np.int32)
    out = np.full(256, -1, np.int32)
    m.launch("staged", (4,), (64,), (data, out, np.int32(1000)))
    assert np.array_equal(out, data.reshape(4, 64)[:, ::-1].ravel())

    bad = int(rng.integers(0, 256))
    data[bad] = 5000
    with pytest.raises(gpuc.LaunchError) as info:
        m.launch("staged", (4,), (64,), (data, out, np.int32(1000)))
    kernel, block, thread, message = failure(info.value)
    assert (kernel, block, thread) == ("staged", bad // 64, bad % 64)
    assert message == f"{path}:3:3: assertion failed: value below the limit"


@pytest.mark.usefixtures("spirv")
def test_spirv_assert_with_device_arrays(tmp_path: Path) -> None:
    """A launch of device arrays only is waited for when the kernel asserts."""
    m, path = compiled(tmp_path, ASSERTING, "spirv", "ids.mlir")
    out = m.to_device(np.full(128, -1, np.int32))
    with pytest.raises(gpuc.LaunchError, match=r"ids\.mlir:5:3: assertion failed"):
        m["ids"][2, 64](out, np.int32(100))
    m["ids"][2, 64](out, np.int32(128))
    assert np.array_equal(out.copy_to_host(), np.arange(128, dtype=np.int32))


def test_ptx_takes_the_record_first_and_ptxas_accepts_it(tmp_path: Path) -> None:
    for text, kernel, params in ((ASSERTING, "ids", 3), (IN_A_HELPER, "staged", 4)):
        m, _ = compiled(tmp_path, text, "ptx", f"{kernel}.mlir")  # validated
        ptx = m.artefact
        assert ptx.count(f".param .u64 .ptr .global .align 1 {kernel}_param_0") == 1
        assert f"{kernel}_param_{params - 1}" in ptx
        assert f"{kernel}_param_{params}" not in ptx
        assert "atom.relaxed.gpu.global.cas.b32" in ptx
        assert "trap" not in ptx
        assert len(m.signatures[kernel].params) == params - 1


def test_a_kernel_without_asserts_takes_no_record(tmp_path: Path) -> None:
    text = ASSERTING.replace('cf.assert %ok, "the id is below the limit"\n', "")
    for target in ("ptx", "spirv"):
        m, _ = compiled(tmp_path, text, target, "plain.mlir")
        assert m.signatures["ids"].asserts == ()
        record = m.result.module.ops.first.attributes["gpuc.finalized"]
        assert not record.takes_state


def fake_ids(grid: Any, block: Any, args: list[int]) -> Any:
    """ids(record, out, limit) as the PTX runs it: each thread at or past the
    limit claims the record (the first one wins) and returns."""
    import fake_cuda_driver as f

    record = f.device_array(f.read(args[0], ctypes.c_uint64), np.uint32, WORDS)
    out = f.read(args[1], ctypes.c_uint64)
    limit = f.read(args[2], ctypes.c_int32)
    values = f.device_array(out, np.int32, grid[0] * block[0])
    for b in range(grid[0]):
        for t in range(block[0]):
            i = b * block[0] + t
            if i >= limit:
                if record[ID] == 0:
                    record[ID] = 1
                    record[BLOCK : BLOCK + 3] = (b, 0, 0)
                    record[THREAD : THREAD + 3] = (t, 0, 0)
                continue
            values[i] = i
    return f.OK


fake_ids.arity = 3  # type: ignore[attr-defined]


def test_cuda_executor_reads_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the fake driver, whose fresh memory is not zero: the executor
    zeroes the record, passes it first, reads it back and frees it."""
    pytest.importorskip("cuda.bindings")
    import fake_cuda_core
    import fake_cuda_driver as f

    driver = f.FakeDriver({"ids": fake_ids})
    fake_cuda_core.install(monkeypatch, driver)
    from gpuc.runtime import cuda

    m, path = compiled(tmp_path, ASSERTING, "ptx", "ids.mlir")
    ex = cuda.CudaExecutor(m.artefact, m.signatures)
    out = np.full(256, -1, np.int32)
    ex.launch("ids", 4, 64, (out, 1 << 30))
    assert np.array_equal(out, np.arange(256, dtype=np.int32))
    limit = int(np.random.default_rng().integers(1, 256))
    with pytest.raises(gpuc.LaunchError) as info:
        ex.launch("ids", 4, 64, (out, limit))
    assert failure(info.value) == (
        "ids",
        limit // 64,
        limit % 64,
        f"{path}:5:3: assertion failed: the id is below the limit",
    )
    assert driver.memory == {}
    # Device arrays on a stream: the launch waits, then reads the record.
    stream = ex.stream()
    device_out = ex.to_device(np.full(256, -1, np.int32))
    with pytest.raises(gpuc.LaunchError, match="assertion failed"):
        ex.launch("ids", 4, 64, (device_out, limit), stream=stream)


def test_amdgpu_takes_the_record_and_the_hip_executor_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The amdgpu code object (validated) on tests/fake_hip_runtime.py, with
    a body doing what the code does."""
    import fake_hip_runtime as f

    from gpuc.runtime import hip

    def body(grid: Any, block: Any, args: list[bytes]) -> Any:
        record = f.device_array(args[0], np.uint32, WORDS)
        values = f.device_array(args[1], np.int32, grid[0] * block[0])
        limit = int(f.scalar(args[2], np.int32))
        for i in range(grid[0] * block[0]):
            if i < limit:
                values[i] = i
            elif record[ID] == 0:
                record[ID : THREAD + 3] = (1, i // block[0], 0, 0, i % block[0], 0, 0)
        return f.OK

    runtime = f.FakeHip({"ids": f.Kernel((8, 8, 4), body)})
    monkeypatch.setattr(hip, "_runtime", lambda: runtime)
    m, path = compiled(tmp_path, ASSERTING, "amdgpu", "ids.mlir")
    assert m.signatures["ids"].asserts == (
        (1, f"{path}:5:3: assertion failed: the id is below the limit"),
    )
    ex = hip.HipExecutor(m.artefact, m.signatures)
    out = np.full(128, -1, np.int32)
    ex.launch("ids", 2, 64, (out, 1000))
    assert np.array_equal(out, np.arange(128, dtype=np.int32))
    with pytest.raises(gpuc.LaunchError) as info:
        ex.launch("ids", 2, 64, (out, 70))
    assert failure(info.value)[:3] == ("ids", 1, 6)
    assert runtime.memory == {}


OTHERS_RUN_ON = """
gpuc.func private @check(%v: i32, %bad: i32) -> i32 helper INLINE {
  %ok = arith.cmpi ne, %v, %bad : i32
  cf.assert %ok, "hit"
  gpuc.return %v : i32
}
gpuc.func private @twice(%v: i32, %bad: i32) -> i32 helper INLINE {
  %a = gpuc.call @check(%v, %bad) : (i32, i32) -> i32
  %b = gpuc.call @check(%a, %bad) : (i32, i32) -> i32
  gpuc.return %b : i32
}
gpuc.func @k(%out: !gpuc.ptr<i32, global>, %bad: i32) kernel {
  %i = gpuc.global_id x
  %v = arith.index_cast %i : index to i32
  %w = gpuc.call @twice(%v, %bad) : (i32, i32) -> i32
  gpuc.store %w, %out[%i] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""


@pytest.mark.usefixtures("spirv")
@pytest.mark.parametrize("inline", ["no_inline", "", "always_inline"])
def test_spirv_threads_whose_asserts_pass_run_on(inline: str) -> None:
    """Only the failing thread returns at its failed assert (two helpers
    deep); every other thread, in its block and the others, stores its value.
    Testing the shared record after each call made all of them return."""
    rng = np.random.default_rng()
    bad = int(rng.integers(0, 256))
    module = gpuc.compile(OTHERS_RUN_ON.replace("INLINE", inline), "spirv")
    out = np.full(256, -1, np.int32)
    with pytest.raises(gpuc.LaunchError, match=r"assertion failed: hit"):
        module.launch("k", (4,), (64,), (out, np.int32(bad)))
    expected = np.arange(256, dtype=np.int32)
    expected[bad] = -1
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("target", ["ptx", "amdgpu"])
def test_the_thread_flag_is_on_each_targets_stack(target: str) -> None:
    """The flag helpers take is in the target's stack address space (5 on
    amdgpu, whose verifier refuses an alloca elsewhere); ptxas and the
    AMDGPU back-end accept the code."""
    from gpuc.compiler import compile_module

    result = compile_module(
        OTHERS_RUN_ON.replace("INLINE", "no_inline"), target, validate=True
    )
    assert result.artefact


# Each thread prints, then asserts its flag is clear (a call-site location
# names the helper's source and a name location its function), then prints
# again: CUDA's device-side assert prints a line per failing thread.
PER_THREAD = """\
gpuc.func @flagged(%flags: !gpuc.ptr<i32, global>) kernel {
  %i = gpuc.global_id x
  %f = gpuc.load %flags[%i] : !gpuc.ptr<i32, global>
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi eq, %f, %c0 : i32
  gpuc.printf "before %d\\n" %i : index
  cf.assert %ok, "flag 100% clear" LOC
  gpuc.printf "after %d\\n" %i : index
  gpuc.return
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("located", [True, False], ids=["callsite", "plain"])
def test_every_failing_thread_prints_its_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], target: str, located: bool
) -> None:
    """One line per failing thread in CUDA's format (`%` in the message
    printed as is), every other thread's prints kept, and what each thread
    printed before its assert; then the LaunchError."""
    if target == "spirv":
        pytest.importorskip("pyopencl")
    loc = 'loc(callsite("checker"("check.cc":7:9) at "caller.cc":1:2))'
    text = PER_THREAD.replace("LOC", loc if located else "")
    m, path = compiled(tmp_path, text, target, "flagged.mlir")
    rng = np.random.default_rng()
    blocks = int(rng.integers(2, 6))
    n = blocks * 64
    failing = {int(i) for i in rng.choice(n, int(rng.integers(1, 12)), False)}
    flags = np.zeros(n, np.int32)
    flags[list(failing)] = 1
    capfd.readouterr()
    with pytest.raises(gpuc.LaunchError) as info:
        m.launch("flagged", (blocks,), (64,), (flags,))
    head = "check.cc:7: checker" if located else f"{path}:7: flagged"
    lines = capfd.readouterr().out.splitlines()
    assert sorted(lines) == sorted(
        [f"before {i}" for i in range(n)]
        + [f"after {i}" for i in range(n) if i not in failing]
        + [
            f"{head}: block: [{i // 64},0,0], thread: [{i % 64},0,0] "
            "Assertion `flag 100% clear` failed."
            for i in failing
        ]
    )
    kernel, block, thread, message = failure(info.value)
    assert kernel == "flagged" and block * 64 + thread in failing
    where = "check.cc:7:9" if located else f"{path}:7:3"
    assert message == f"{where}: assertion failed: flag 100% clear"
    if target == "native":  # its threads run in order: the first is reported
        assert block * 64 + thread == min(failing)


def test_ptx_prints_the_failing_threads_line_with_vprintf(tmp_path: Path) -> None:
    m, path = compiled(tmp_path, PER_THREAD.replace("LOC", ""), "ptx", "k.mlir")
    ptx = m.artefact
    formats = [
        bytes(int(b) for b in found.split(", ")).decode()
        for found in re.findall(
            r"\.b8 gpuc_\$_printf_\$_format[\w$]*\[\d+\] = \{([^}]*)\}", ptx
        )
    ]
    assert (
        f"{path}:7: flagged: block: [%u,%u,%u], thread: [%u,%u,%u] "
        "Assertion `flag 100%% clear` failed.\n"
    ) in [f.rstrip("\0") for f in formats]
    assert ptx.count("call.uni (retval0), vprintf,") == 3
