"""form-work-groups decides, in the IR, how a barrier kernel runs as a native
work-group function, and the lowering (gpuc/targets/native/work_groups.py)
emits what the attributes say: a value marked spilled gets context storage,
a kernel without the decisions is refused. The pass's output itself is
tests/filecheck/targets/native/form_work_groups.mlir."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64

import gpuc
from gpuc.context import make_context
from gpuc.diagnostics import DiagnosticException
from gpuc.dialects.functions import FuncOp
from gpuc.driver import load_module
from gpuc.lowering.context import translate_module
from gpuc.targets import make_target
from gpuc.targets.native.form_work_groups import FORMED, SPILL
from gpuc.transforms.gpuc_pipeline import GpucPipeline, run_passes

KERNEL = """
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %u = arith.addi %t, %m : index
  %w = arith.addf %v, %v : f32
  gpuc.store %w, %p[%u] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


def formed() -> tuple[ModuleOp, FuncOp]:
    module = load_module(KERNEL)
    run_passes(make_context(), module, GpucPipeline(target="native").passes())
    kernel = next(op for op in module.walk() if isinstance(op, FuncOp))
    assert FORMED in kernel.attributes
    return module, kernel


def context_bytes(module: ModuleOp) -> int:
    text = str(translate_module(module, make_target("native")))
    found = re.search(r"@\"k\.context_bytes\" = internal constant i64 (\d+)", text)
    assert found is not None, text
    return int(found.group(1))


def test_the_lowering_gives_storage_to_what_the_pass_spilled() -> None:
    module, _ = formed()
    assert context_bytes(module) == 8  # %v, one f32 per thread, rounded up
    module, kernel = formed()
    u = next(
        op for op in kernel.walk() if op.results and op.results[0].name_hint == "u"
    )
    assert SPILL not in u.attributes
    u.attributes[SPILL] = DenseArrayBase.from_list(i64, [0])
    assert context_bytes(module) == 16  # and %u, an index, after it


def test_a_barrier_kernel_without_decisions_is_refused() -> None:
    module, kernel = formed()
    del kernel.attributes[FORMED]
    with pytest.raises(DiagnosticException, match="run form-work-groups"):
        context_bytes(module)


def test_the_decided_kernel_runs() -> None:
    """The kernel above on native: p[t + n + 1] = 2 p[t] for every thread,
    each thread reading before any writes (the barrier)."""
    block, n = 16, 3
    rng = np.random.default_rng()
    p = np.full(block + n + 1, np.nan, np.float32)
    p[:block] = rng.standard_normal(block).astype(np.float32)
    want = p.copy()
    want[n + 1 :] = 2 * p[:block]
    gpuc.compile(KERNEL, target="native")["k"][(1,), (block,)](p, n)
    np.testing.assert_array_equal(p, want)


HELPERS = """
gpuc.func private @scale(%p: !gpuc.ptr<f32, global>, %q: !gpuc.ptr<f32, global>,
                         %i: index, %k: f32) helper no_inline {
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %w = arith.mulf %v, %k : f32
  gpuc.store %w, %q[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @twice(%p: !gpuc.ptr<f32, global>, %q: !gpuc.ptr<f32, global>,
                         %i: index, %k: f32) helper no_inline {
  gpuc.call @scale(%p, %q, %i, %k)
      : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index, f32) -> ()
  gpuc.call @scale(%q, %q, %i, %k)
      : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index, f32) -> ()
  gpuc.return
}
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %q: !gpuc.ptr<f32, global>,
             %r: !gpuc.ptr<f32, global>, %s: !gpuc.ptr<f32, global>,
             %n: index, %k: f32) kernel {
  %t = gpuc.thread_id x
  gpuc.call @scale(%p, %q, %t, %k)
      : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index, f32) -> ()
  %u = gpuc.load %q[%t] : !gpuc.ptr<f32, global>
  gpuc.call @scale(%q, %r, %t, %u)
      : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index, f32) -> ()
  gpuc.call @twice(%p, %s, %n, %k)
      : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index, f32) -> ()
  gpuc.return
}
"""


def test_a_helper_decided_once_runs_right_at_every_call() -> None:
    """@scale, called with a thread index and a uniform factor, then a
    varying one, and (through @twice) with a uniform index: decided once by
    the pass, each argument as varying as at any call, on native against
    numpy, twice (the second launch compiled for the block)."""
    block, n = 64, 5
    rng = np.random.default_rng()
    mod = gpuc.compile(HELPERS, target="native")
    for _ in range(3):
        p = rng.standard_normal(block).astype(np.float32)
        q, r, s = (np.full(block, np.nan, np.float32) for _ in range(3))
        k = np.float32(rng.standard_normal())
        mod["k"][(1,), (block,)](p, q, r, s, n, k)
        np.testing.assert_array_equal(q, p * k)
        np.testing.assert_array_equal(r, (p * k) * (p * k))
        want = np.full(block, np.nan, np.float32)
        want[n] = p[n] * k * k
        np.testing.assert_array_equal(s, want)
