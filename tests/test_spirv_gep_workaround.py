"""Shared-memory atomics, loads and stores at constant indices on the spirv
executor (a real OpenCL runtime), against numpy, at every optimization level.

At -O3 LLVM makes `&shared[1]` a byte offset, which LLVM 22's SPIR-V back-end
emits as an element offset (`freeze_global_byte_offsets` in
gpuc/targets/spirv/ir_patches.py says why); the kernel initialises and reads the shared
array at thread-indexed positions, so a constant index that lands elsewhere
shows as a wrong element. Inputs differ per run: rerun a failure with its
GPUC_TEST_SEED.
"""

from __future__ import annotations

import os
import secrets

import numpy as np
import pytest

import gpuc
from gpuc.targets.spirv.ir_patches import freeze_global_byte_offsets

pytest.importorskip("pyopencl")

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
SIZE = 8
ATOMIC_AT = (1, 2, 3)
STORE_AT, LOAD_AT = 5, 6
BLOCK = 16
TYPES = {"i32": np.int32, "i64": np.int64, "f32": np.float32}

KERNEL = """
gpuc.func @k(%init: !gpuc.ptr<T, global>, %v: !gpuc.ptr<T, global>,
             %out: !gpuc.ptr<T, global>, %loaded: !gpuc.ptr<T, global>,
             %x: T, %j: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %size = arith.constant SIZE : index
  %shared = gpuc.shared_alloc SIZE : !gpuc.ptr<T, shared>
  %t = gpuc.thread_id x
  %threads = gpuc.block_dim x
  scf.for %i = %t to %size step %threads {
    %e = gpuc.load %init[%i] : !gpuc.ptr<T, global>
    gpuc.store %e, %shared[%i] : !gpuc.ptr<T, shared>
  }
  gpuc.barrier
  %mine = gpuc.load %v[%t] : !gpuc.ptr<T, global>
  %a1 = gpuc.atomic_rmw add %shared[%c1], %mine : !gpuc.ptr<T, shared>
  %a2 = gpuc.atomic_rmw add %shared[%c2], %mine : !gpuc.ptr<T, shared>
  %a3 = gpuc.atomic_rmw add %shared[%c3], %mine : !gpuc.ptr<T, shared>
  %jj = arith.index_cast %j : i32 to index
  %aj = gpuc.atomic_rmw add %shared[%jj], %mine : !gpuc.ptr<T, shared>
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %l = gpuc.load %shared[%c6] : !gpuc.ptr<T, shared>
    gpuc.store %l, %loaded[%c0] : !gpuc.ptr<T, global>
    gpuc.store %x, %shared[%c5] : !gpuc.ptr<T, shared>
  }
  gpuc.barrier
  scf.for %i = %t to %size step %threads {
    %e = gpuc.load %shared[%i] : !gpuc.ptr<T, shared>
    gpuc.store %e, %out[%i] : !gpuc.ptr<T, global>
  }
  gpuc.return
}
"""


def source(ty: str) -> str:
    return (
        KERNEL.replace("SIZE", str(SIZE))
        .replace("T,", f"{ty},")
        .replace("T>", f"{ty}>")
    )


@pytest.mark.parametrize("opt_level", [0, 2, 3])
@pytest.mark.parametrize("ty", list(TYPES))
def test_constant_index_shared_access_matches_numpy(ty: str, opt_level: int) -> None:
    dtype = TYPES[ty]
    rng = np.random.default_rng([BASE_SEED, opt_level, list(TYPES).index(ty)])
    # Small integers: float atomic adds are exact in any order.
    init = rng.integers(-50, 50, SIZE).astype(dtype)
    v = rng.integers(-50, 50, BLOCK).astype(dtype)
    x = dtype(rng.integers(-50, 50))
    j = int(rng.integers(0, SIZE))
    out = np.full(SIZE, 77, dtype)
    loaded = np.full(1, 77, dtype)
    module = gpuc.compile(source(ty), target="spirv", opt_level=opt_level)
    module.launch("k", 1, BLOCK, (init, v, out, loaded, x, j))
    expected = init.copy()
    for i in (*ATOMIC_AT, j):
        expected[i] += v.sum(dtype=dtype)
    expected[STORE_AT] = x
    context = f"{ty} at -O{opt_level}, j={j} (GPUC_TEST_SEED={BASE_SEED})"
    np.testing.assert_array_equal(out, expected, err_msg=context)
    np.testing.assert_array_equal(loaded, expected[LOAD_AT : LOAD_AT + 1], context)


def test_emitted_access_chains_are_byte_offsets() -> None:
    """At -O3 every constant access chain into shared memory is over bytes."""
    from gpuc.driver import make_options, run

    c = run(source("i64"), make_options("spirv", {"opt_level": 3}), stop_after="emit")
    listing = c.target.render("spirv-asm", c)
    assert isinstance(listing, str)
    chains = [line for line in listing.splitlines() if "PtrAccessChain" in line]
    constant = [line for line in chains if "%ulong_" in line and "Workgroup" in line]
    assert constant, listing
    assert all("_ptr_Workgroup_uchar" in line for line in constant), constant


def test_only_global_byte_offsets_in_functions_are_frozen() -> None:
    text = "\n".join(
        [
            "@g = internal addrspace(3) global [4 x i64] undef",
            "@t = constant ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @g,"
            " i64 8)",
            "define void @f(ptr addrspace(3) %p) {",
            "entry:",
            "  %a = load i64, ptr addrspace(3) getelementptr inbounds nuw (i8, ptr"
            " addrspace(3) @g, i64 8), align 8",
            "  %q = getelementptr inbounds i8, ptr addrspace(3) @g, i64 16",
            "  %r = getelementptr inbounds i8, ptr addrspace(3) %p, i64 16",
            "  %s = load i64, ptr addrspace(4) addrspacecast (ptr addrspace(3)"
            " getelementptr (i8, ptr addrspace(3) @g, i64 24) to ptr addrspace(4))",
            "  ret void",
            "}",
        ]
    )
    lines = freeze_global_byte_offsets(text).splitlines()
    assert lines[:4] == text.splitlines()[:4]
    assert lines[4:9] == [
        "  %gpuc.byte_offset.0.offset = freeze i64 8",
        "  %gpuc.byte_offset.0 = getelementptr inbounds nuw i8, ptr addrspace(3)"
        " @g, i64 %gpuc.byte_offset.0.offset",
        "  %a = load i64, ptr addrspace(3) %gpuc.byte_offset.0, align 8",
        "  %q.offset = freeze i64 16",
        "  %q = getelementptr inbounds i8, ptr addrspace(3) @g, i64 %q.offset",
    ]
    assert lines[9:] == text.splitlines()[6:]
