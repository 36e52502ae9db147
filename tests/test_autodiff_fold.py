"""Reverse mode's folded loops (gpuc/generators/autodiff/fold.py): a loop
whose adjoint passes its carried adjoints through unchanged, followed by
code whose adjoint needs nothing of the loop and touches other memory, runs
once, each iteration's primal then its adjoint; anywhere else the loop is
reversed as before. Each derivative is checked against central finite
differences in float64 (tests/autodiff_check.py) on native and spirv, on
fresh random inputs (the seed is printed; GPUC_TEST_SEED reproduces it).
"""

from __future__ import annotations

import os
import secrets
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf

import gpuc.autodiff
from gpuc.context import make_context
from gpuc.dialects.functions import FuncOp
from gpuc.transforms.resolve_deferred import ResolveDeferred

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from autodiff_check import In, Out, check  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_autodiff_fold: GPUC_TEST_SEED={BASE_SEED}")

HEAD = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %w: !gpuc.ptr<f32, global>,
             %y: !gpuc.ptr<f32, global>, %n: i32, %m: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %mi = arith.index_cast %m : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  %row = arith.muli %i, %mi : index
  %nm = arith.muli %ni, %mi : index
"""
LOOP = """
  %acc = scf.for %k = %c0 to %mi step %c1 iter_args(%s = INIT) -> (f32) {
    %at = arith.addi %row, %k : index
    %ok = arith.cmpi ult, %at, %nm : index
    %xv = scf.if %ok -> (f32) {
      %v = gpuc.load %x[%at] : !gpuc.ptr<f32, global>
      scf.yield %v : f32
    } else {
      scf.yield %one : f32
    }
    %wv = gpuc.load %w[%k] : !gpuc.ptr<f32, global>
    %t = math.sin %xv : f32
    %p = arith.mulf %t, %wv : f32
    %s2 = STEP
    scf.yield %s2 : f32
  }
"""
TAIL = """
  scf.if %in {
    RESULT
  }
  gpuc.return
}
"""


STORE = "gpuc.store %acc, %y[%i] : !gpuc.ptr<f32, global>"


def kernel(step: str, result: str = STORE, init: str = "%one") -> str:
    loop = LOOP.replace("INIT", init).replace("STEP", step)
    return HEAD + loop + TAIL.replace("RESULT", result)


SUM = kernel("arith.addf %s, %p : f32")
"""y[i] = 1 + sum_k sin(x[i*m+k]) * w[k] (x past the end reads as 1): folded."""
PRODUCT = kernel("arith.mulf %s, %p : f32")
"""y[i] = prod_k sin(x[i*m+k]) * w[k]: the carried adjoint is scaled, so
the loop is reversed."""
SQUARE = kernel(
    "arith.addf %s, %p : f32",
    "%sq = arith.mulf %acc, %acc : f32\n    " + STORE.replace("%acc", "%sq"),
)
"""y[i] = (sum ...)^2: the adjoint after the loop needs the loop's result
(any float op on it does: the adjoint sweep reads an op's operands)."""
READ_BACK = kernel(
    "arith.addf %s, %p : f32",
    "%w0 = gpuc.load %w[%c0] : !gpuc.ptr<f32, global>\n    "
    + STORE.replace("%acc", "%w0"),
)
"""y[i] = w[0] (the sum is dead): the code after the loop reads memory the
loop reads (w); its adjoint, adding into w's shadow, is not moved before the
loop."""

# Each thread keeps its terms in shared memory (written, then read back in
# the same iteration), and the code after the loop reads the last one.
SHARED = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
             %n: i32, %m: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %t = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %tid = gpuc.thread_id x
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %mi = arith.index_cast %m : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  %row = arith.muli %i, %mi : index
  %acc = scf.for %k = %c0 to %mi step %c1 iter_args(%s = %zero) -> (f32) {
    %at = arith.addi %row, %k : index
    %v = scf.if %in -> (f32) {
      %l = gpuc.load %x[%at] : !gpuc.ptr<f32, global>
      scf.yield %l : f32
    } else {
      scf.yield %zero : f32
    }
    %e = math.exp %v : f32
    gpuc.store %e, %t[%tid] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    %back = gpuc.load %t[%tid] : !gpuc.ptr<f32, shared>
    %s2 = arith.addf %s, %back : f32
    gpuc.barrier
    scf.yield %s2 : f32
  }
  scf.if %in {
    gpuc.store %acc, %y[%i] : !gpuc.ptr<f32, global>
    LAST
  }
  gpuc.return
}
"""
SHARED_ATOMIC = (
    SHARED.replace("LAST", "")
    .replace(
        "gpuc.store %e, %t[%tid] : !gpuc.ptr<f32, shared>",
        "%old = gpuc.atomic_rmw add %t[%tid], %e : !gpuc.ptr<f32, shared>",
    )
    .replace(
        "  %row = arith.muli %i, %mi : index\n",
        "  %row = arith.muli %i, %mi : index\n"
        "  gpuc.store %zero, %t[%tid] : !gpuc.ptr<f32, shared>\n",
    )
)
"""y[i] = sum_k of the running sum of exp(x[i*m+j]) for j <= k, kept in
shared memory by an atomic add per iteration: it reads what earlier
iterations left, so the loop is reversed."""
SHARED_SHIFT = (
    SHARED.replace("LAST", "")
    .replace("gpuc.shared_alloc 64 :", "gpuc.shared_alloc 128 :")
    .replace(
        "    gpuc.store %e, %t[%tid] : !gpuc.ptr<f32, shared>\n",
        "    %odd = arith.remui %k, %c2 : index\n"
        "    %even = arith.subi %c1, %odd : index\n"
        "    %half = arith.muli %odd, %c64 : index\n"
        "    %put = arith.addi %half, %tid : index\n"
        "    %other = arith.muli %even, %c64 : index\n"
        "    %get = arith.addi %other, %tid : index\n"
        "    gpuc.store %e, %t[%put] : !gpuc.ptr<f32, shared>\n",
    )
    .replace(
        "%back = gpuc.load %t[%tid] : !gpuc.ptr<f32, shared>",
        "%back = gpuc.load %t[%get] : !gpuc.ptr<f32, shared>",
    )
    .replace(
        "  %row = arith.muli %i, %mi : index\n",
        "  %row = arith.muli %i, %mi : index\n"
        "  %c2 = arith.constant 2 : index\n"
        "  %c64 = arith.constant 64 : index\n"
        "  %up = arith.addi %tid, %c64 : index\n"
        "  gpuc.store %zero, %t[%tid] : !gpuc.ptr<f32, shared>\n"
        "  gpuc.store %zero, %t[%up] : !gpuc.ptr<f32, shared>\n",
    )
)
"""y[i] = sum_k exp(x[i*m+k-1]): each iteration stores its term in one half
of shared memory and reads the other, which the iteration before wrote: the
address changes with the iteration, so the loop is reversed."""
SHARED_SUM = SHARED.replace("LAST", "")
"""y[i] = sum_k exp(x[i*m+k]), each term through shared memory: folded."""
SHARED_LAST = SHARED.replace(
    "LAST",
    "%last = gpuc.load %t[%tid] : !gpuc.ptr<f32, shared>\n"
    "    %i1 = arith.addi %i, %ni : index\n"
    "    gpuc.store %last, %y[%i1] : !gpuc.ptr<f32, global>",
)
"""y[i] = the sum, y[n + i] = the last term, read back after the loop from
the memory the loop writes: not folded."""


def _xw(n: int, m: int):
    def make(r: np.random.Generator) -> list:
        return [
            In(r.uniform(-1.5, 1.5, n * m)),
            In(r.uniform(0.5, 1.2, m)),
            Out(r.standard_normal(n)),
            np.int32(n),
            np.int32(m),
        ]

    return make


def _x(n: int, m: int):
    def make(r: np.random.Generator) -> list:
        return [
            In(r.uniform(-1.0, 1.0, n * m)),
            Out(r.standard_normal(2 * n)),
            np.int32(n),
            np.int32(m),
        ]

    return make


CASES = {
    # name: (source, launch, arguments, folded)
    "sum": (SUM, (4, 64), _xw(200, 7), True),
    "product": (PRODUCT, (4, 64), _xw(200, 5), False),
    "square": (SQUARE, (4, 64), _xw(200, 7), False),
    "read_back": (READ_BACK, (4, 64), _xw(200, 7), False),
    "shared_sum": (SHARED_SUM, (4, 64), _x(200, 6), True),
    "shared_last": (SHARED_LAST, (4, 64), _x(200, 6), False),
    "shared_atomic": (SHARED_ATOMIC, (4, 64), _x(200, 6), False),
    "shared_shift": (SHARED_SHIFT, (4, 64), _x(200, 6), False),
}


def _job(source: str | Path, name: str = "k") -> FuncOp:
    """The reverse derivative of kernel `name` that the autodiff job makes."""
    module = gpuc.autodiff.derivative_module(source, name, "reverse")
    ResolveDeferred().apply(make_context(), module)
    (made,) = [
        f for f in module.ops if isinstance(f, FuncOp) and "autodiff" in f.sym_name.data
    ]
    return made


def _reversed(job: FuncOp) -> bool:
    """Whether the job has a loop over the tile loop's iterations backwards
    (its induction variable counted down from `count - 1`)."""
    for op in job.walk():
        if isinstance(op, scf.ForOp):
            body = op.body.block
            if any(
                o.dialect_name() == "arith" and body.args[0] in o.operands
                for o in body.ops
                if o.name == "arith.subi"
            ):
                return True
    return False


@pytest.mark.parametrize("name", list(CASES))
def test_which_loops_are_folded(name: str) -> None:
    source, _launch, _args, folded = CASES[name]
    assert _reversed(_job(source)) != folded


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize("name", list(CASES))
def test_folded_and_reversed_loops_match_finite_differences(
    name: str, target: str
) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")
    source, launch, make_args, _folded = CASES[name]
    seed = zlib.crc32(f"{BASE_SEED}:fold:{name}:{target}".encode())
    try:
        check(source, "k", launch, make_args, target, seed=seed, modes=("reverse",))
    except AssertionError as error:
        raise AssertionError(f"{error} (GPUC_TEST_SEED={BASE_SEED})") from None


def test_matmul_tile_loop_is_folded() -> None:
    assert not _reversed(_job(ROOT / "examples" / "matmul.mlir", "matmul"))
