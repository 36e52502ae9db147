"""`cf.assert` on the native target: a passing assert runs, a failing one is
a `LaunchError` naming the kernel, the assert's location and message, the
thread and the block, and the process goes on (it used to end with SIGILL).
In a kernel without barriers the failing threads return and the others run
on, as on a GPU; the first failure in thread order is reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.runtime.native import SPLIT_THRESHOLD

# Each thread writes its global id, having asserted it is below %limit (the
# kernel is told a smaller limit than its launch to make one thread fail).
ASSERTING = """\
gpuc.func @ids(%out: !gpuc.ptr<i32, global>, %limit: i32) kernel {
  %i = gpuc.global_id x
  %l = arith.index_cast %limit : i32 to index
  %ok = arith.cmpi ult, %i, %l : index
  cf.assert %ok, "the id is below the limit"
  %v = arith.index_cast %i : index to i32
  gpuc.store %v, %out[%i] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""

# The assert in a helper, called from a kernel with a barrier (a work-group
# function): the helper gets the state to report through.
IN_A_HELPER = """\
gpuc.func private @check(%v: i32, %limit: i32) -> i32 helper {
  %ok = arith.cmpi slt, %v, %limit : i32
  cf.assert %ok, "value below the limit"
  gpuc.return %v : i32
}
gpuc.func @staged(%data: !gpuc.ptr<i32, global>, %out: !gpuc.ptr<i32, global>,
                  %limit: i32) kernel {
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %tile = gpuc.shared_alloc 64 : !gpuc.ptr<i32, shared>
  %v = gpuc.load %data[%i] : !gpuc.ptr<i32, global>
  %w = gpuc.call @check(%v, %limit) : (i32, i32) -> i32
  gpuc.store %w, %tile[%t] : !gpuc.ptr<i32, shared>
  gpuc.barrier
  %c63 = arith.constant 63 : index
  %r = arith.subi %c63, %t : index
  %u = gpuc.load %tile[%r] : !gpuc.ptr<i32, shared>
  gpuc.store %u, %out[%i] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""


def compiled(tmp_path: Path, text: str, name: str) -> tuple[gpuc.Module, Path]:
    path = tmp_path / name
    path.write_text(text)
    return gpuc.compile(str(path), target="native", cache=False), path


def test_a_passing_assert_runs(tmp_path: Path) -> None:
    m, _ = compiled(tmp_path, ASSERTING, "ids.mlir")
    n = int(np.random.default_rng().integers(2, 16)) * 64
    out = np.full(n, -1, np.int32)
    m.launch("ids", (n // 64,), (64,), (out, np.int32(1 << 30)))
    assert np.array_equal(out, np.arange(n, dtype=np.int32))


@pytest.mark.parametrize("big", [False, True], ids=["here", "threads"])
def test_a_failing_assert_is_a_launch_error(tmp_path: Path, big: bool) -> None:
    m, path = compiled(tmp_path, ASSERTING, "ids.mlir")
    blocks = SPLIT_THRESHOLD // 64 * 2 if big else 4  # several OS threads if big
    out = np.full(blocks * 64, -1, np.int32)
    limit = int(np.random.default_rng().integers(70, 250))
    with pytest.raises(gpuc.LaunchError) as info:
        m.launch("ids", (blocks,), (64,), (out, np.int32(limit)))
    text = str(info.value)
    assert "kernel 'ids'" in text
    assert f"{path}:5:3: assertion failed: the id is below the limit" in text
    block, thread = divmod(limit, 64)
    assert f"block ({block}, 0, 0), thread ({thread}, 0, 0)" in text
    assert text.endswith(
        "; the failing thread returned there (the first failure is reported)"
    )
    # The failing threads returned before their store, every other one
    # stored; the launch goes on working.
    assert np.array_equal(out[:limit], np.arange(limit, dtype=np.int32))
    assert (out[limit:] == -1).all()
    m.launch("ids", (blocks,), (64,), (out, np.int32(1 << 30)))
    assert np.array_equal(out, np.arange(blocks * 64, dtype=np.int32))


def test_an_assert_in_a_helper_of_a_barrier_kernel(tmp_path: Path) -> None:
    m, path = compiled(tmp_path, IN_A_HELPER, "staged.mlir")
    rng = np.random.default_rng()
    data = rng.integers(0, 1000, 256).astype(np.int32)
    out = np.full(256, -1, np.int32)
    m.launch("staged", (4,), (64,), (data, out, np.int32(1000)))
    assert np.array_equal(out, data.reshape(4, 64)[:, ::-1].ravel())

    bad = int(rng.integers(64, 256))
    data[bad] = 5000
    with pytest.raises(gpuc.LaunchError) as info:
        m.launch("staged", (4,), (64,), (data, out, np.int32(1000)))
    text = str(info.value)
    assert "kernel 'staged'" in text
    assert f"{path}:3:3: assertion failed: value below the limit" in text
    assert f"block ({bad // 64}, 0, 0), thread ({bad % 64}, 0, 0)" in text


def test_a_module_without_asserts_does_not_change() -> None:
    """No jump point, no fault function, the state without `launch`."""
    text = ASSERTING.replace('cf.assert %ok, "the id is below the limit"\n', "")
    plain = gpuc.compile(text, target="native", cache=False).llvm_ir
    for name in ("_setjmp", "__gpuc_fault", "__gpuc_launch_ids.run"):
        assert name not in plain
