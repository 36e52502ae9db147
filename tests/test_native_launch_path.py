"""The native executor's fast launch path (gpuc/runtime/native.py,
`_FastPath`): a small launch with exactly typed arguments skips the general
argument checks, and gives what they would have given; anything else still
goes through them."""

from __future__ import annotations

import numpy as np
import pytest

import gpuc
import gpuc.runtime.native as native

KERNEL = """
gpuc.func @k(%x: !gpuc.ptr<i32, global>, %f: !gpuc.ptr<f32, global>, %a: f32,
             %b: i1, %n: i64) kernel {
  %c0 = arith.constant 0 : index
  %t = gpuc.thread_id x
  %v = arith.extui %b : i1 to i32
  %m = arith.trunci %n : i64 to i32
  %s = arith.addi %v, %m : i32
  %ti = arith.index_cast %t : index to i32
  %r = arith.addi %s, %ti : i32
  gpuc.store %r, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.store %a, %f[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


@pytest.fixture(scope="module")
def kernel() -> gpuc.Kernel:
    return gpuc.compile(KERNEL, "native")["k"]


def no_general_checks(*args: object, **kwargs: object) -> None:
    raise AssertionError("the launch went through check_launch")


def test_exact_arguments_take_the_fast_path(
    kernel: gpuc.Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "check_launch", no_general_checks)
    rng = np.random.default_rng()
    n = int(rng.integers(1, 1000))
    x = np.full(4, 7, np.uint32)  # signless: uint32 arrays pass for i32
    f = np.full(4, np.nan, np.float32)
    # A signalling NaN's bits reach the kernel unchanged.
    snan = np.uint32(0x7FA00001).view(np.float32)
    kernel[1, 4](x, f, snan, np.bool_(True), n)
    assert list(x) == [1 + n + t for t in range(4)]
    assert f.view(np.uint32).tolist() == [0x7FA00001] * 4
    kernel[(1,), (4,)](x, f, np.float32(2.5), True, 2**64 - 1)  # wraps to -1
    assert list(x) == [0, 1, 2, 3]
    assert list(f) == [2.5] * 4


def test_other_arguments_take_the_general_checks(kernel: gpuc.Kernel) -> None:
    x, f = np.zeros(4, np.int32), np.zeros(4, np.float32)
    kernel[1, 4](x, f, 1.5, 0, np.int32(3))  # converted by the general checks
    assert list(x) == [3, 4, 5, 6] and list(f) == [1.5] * 4
    with pytest.raises(gpuc.LaunchError, match="must be a bool, got 5"):
        kernel[1, 4](x, f, np.float32(1), 5, 1)
    with pytest.raises(gpuc.LaunchError, match="got one of float64"):
        kernel[1, 4](x, f.astype(np.float64), np.float32(1), True, 1)
    strided = np.zeros(8, np.int32)[::2]
    with pytest.raises(gpuc.LaunchError, match="argument 0"):
        kernel[1, 4](strided, f, np.float32(1), True, 1)
    with pytest.raises(gpuc.LaunchError, match="grid.x must be an int"):
        kernel[1.0, 4](x, f, np.float32(1), True, 1)
