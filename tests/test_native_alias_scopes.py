"""The native target's alias scopes (gpuc/lowering/memory.py's tag_space):
distinct shared allocations, global memory and a work-group function's
context storage never alias, so LLVM keeps values in registers across
stores to the others; a shared pointer it cannot trace to one allocation
may alias any of them. Run on native against numpy, outputs poisoned."""

from __future__ import annotations

import re

import numpy as np

import gpuc
from gpuc.compiler import compile_module

SELECTED = """
gpuc.func @selected(%out: !gpuc.ptr<f32, global>, %flag: i32) kernel {
  %a = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %b = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0 : i32
  %pick = arith.cmpi ne, %flag, %zero : i32
  gpuc.store %one, %a[%t] : !gpuc.ptr<f32, shared>
  gpuc.store %one, %b[%t] : !gpuc.ptr<f32, shared>
  %p = arith.select %pick, %a, %b : !gpuc.ptr<f32, shared>
  gpuc.store %two, %p[%t] : !gpuc.ptr<f32, shared>
  %v = gpuc.load %a[%t] : !gpuc.ptr<f32, shared>
  %w = gpuc.load %b[%t] : !gpuc.ptr<f32, shared>
  %s = arith.addf %v, %v : f32
  %r = arith.addf %s, %w : f32
  gpuc.barrier
  gpuc.store %r, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


def test_a_pointer_to_either_allocation_may_alias_both() -> None:
    # Stored through a select of the two allocations, read through each:
    # neither read may reuse the 1.0 stored before.
    mod = gpuc.compile(SELECTED, "native")
    for flag, want in ((1, 2 * 2.0 + 1.0), (0, 2 * 1.0 + 2.0)):
        out = np.full(64, np.nan, np.float32)
        mod["selected"][1, 64](out, np.int32(flag))
        np.testing.assert_array_equal(out, want)


def test_accesses_get_one_scope_per_allocation() -> None:
    text = compile_module(SELECTED, "native", cache=False).llvm_ir
    scopes = dict(re.findall(r'(![0-9]+) = !\{!"(gpuc\.[a-z.0-9]+)", ![0-9]+\}', text))
    assert sorted(scopes.values()) == [
        "gpuc.context",
        "gpuc.context.0",  # the one value kept across the barrier, its array
        "gpuc.global",
        "gpuc.shared",
        "gpuc.shared.0",
        "gpuc.shared.1",
    ]
