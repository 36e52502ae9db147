"""The native target's own exp on f32 (gpuc/targets/native/vector_math.py),
against numpy's exp in f64 rounded to f32, on fresh random inputs over the
whole range (subnormal results, overflow, the special values), outputs
poisoned first; and that LLVM vectorizes a loop that calls it.

Inputs differ per run: the seed is printed and in every failure message;
rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import math
import os
import re
import secrets
from typing import Any

import numpy as np

import gpuc
from gpuc.compiler import compile_module

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_native_math: GPUC_TEST_SEED={SEED}")


@gpuc.kernel
def exp_each(x: gpuc.Array[gpuc.f32, 1], y: gpuc.Array[gpuc.f32, 1]):
    i = gpuc.global_id(0)
    if i < x.shape[0]:
        y[i] = math.exp(x[i])


def test_exp_is_within_half_an_ulp_and_keeps_the_special_values() -> None:
    rng = np.random.default_rng(SEED)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283, 88.72284]
    special += [-87.33655, -103.28, -103.98, -104.5, 1e-30, -1e-30, 89.5]
    x = np.concatenate(
        [
            rng.uniform(-110.0, 95.0, 200_000),
            rng.uniform(-1.0, 1.0, 50_000),
            special,
        ]
    ).astype(np.float32)
    y = np.full_like(x, 7.0)
    gpuc.compile(exp_each, target="native")["exp_each"][
        ((x.size + 255) // 256,), (256,)
    ](x, y)
    with np.errstate(over="ignore"):
        exact = np.exp(x.astype(np.float64))
        rounded = exact.astype(np.float32)
    both_nan = np.isnan(y) & np.isnan(rounded)
    finite = np.isfinite(rounded) & (rounded != 0)
    edge: Any = ~finite & ~both_nan
    assert (y[edge] == rounded[edge]).all(), (
        f"seed {SEED}: {x[edge][y[edge] != rounded[edge]]}"
    )
    assert both_nan.sum() == 1
    ulps = np.abs(y[finite] - exact[finite]) / np.spacing(np.abs(rounded[finite]))
    assert ulps.max() <= 0.5 + 1e-4, f"seed {SEED}: {ulps.max()} ulp"


EXP_LOOP = """
gpuc.func @exp_loop(%x: !gpuc.ptr<f32, global>, %n: index) kernel {
  %i = gpuc.global_id x
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %e = math.exp %v : f32
    gpuc.store %e, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""


def test_a_loop_calling_exp_vectorizes() -> None:
    llvm = compile_module(EXP_LOOP, "native", cache=False).llvm_ir
    assert "@llvm.exp.f32" not in llvm and "expf" not in llvm
    assert re.search(r"<(4|8|16) x double>", llvm), llvm
