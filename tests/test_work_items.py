"""Kernels with barriers (tests/work_item_kernels.mlir) on the native target's
work-group functions and on spirv (Intel's OpenCL CPU runtime), against numpy
on fresh random inputs with poisoned outputs; and the barriers that not every
thread reaches: a located diagnostic where the compiler sees it, a
`LaunchError` naming the kernel otherwise, never a hang.

Inputs differ per run: the seed is printed and in every failure message;
rerun with GPUC_TEST_SEED=<seed> to reproduce.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kernel_modules import compiled, seeded

import gpuc
from gpuc.diagnostics import DiagnosticException

SOURCE = Path(__file__).with_name("work_item_kernels.mlir")
SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_work_items: GPUC_TEST_SEED={SEED}")
TARGETS = ["native", "spirv"]
Array = np.ndarray[Any, Any]


def module(target: str) -> gpuc.Module:
    return compiled(SOURCE, target)


def rng(*key: object) -> np.random.Generator:
    return seeded(SEED, *key)


def per_block(values: Array, threads: int) -> Array:
    """`values` (padded with zeros to whole blocks) as rows of one block each."""
    blocks = -(-len(values) // threads)
    padded = np.zeros(blocks * threads, values.dtype)
    padded[: len(values)] = values
    return padded.reshape(blocks, threads)


def assert_close(got: Array, want: Array, scale: Array) -> None:
    """Equal up to a few roundings of terms of size `scale` (fused or not)."""
    error = np.abs(got.astype(np.float64) - want)
    bound = 4 * np.finfo(np.float32).eps * scale
    assert (error <= bound).all(), (
        f"seed {SEED}: worst {error.max()} at {int(np.argmax(error - bound))}"
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), [(1, 1), (50, 7), (1000, 256), (3001, 1000)])
def test_scan_barriers_in_a_while_loop(target: str, n: int, block: int) -> None:
    x = rng("scan", n, block).integers(-1000, 1000, n, dtype=np.int32)
    out = np.full(n, -(2**31) + 7, np.int32)
    module(target)["scan"][(-(-n // block),), (block,)](x, out, np.int32(n))
    want = np.cumsum(per_block(x, block), axis=1).ravel()[:n]
    np.testing.assert_array_equal(out, want, err_msg=f"seed {SEED}")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("rows", "cols", "block"), [(37, 50, (8, 5)), (64, 64, (16, 16)), (9, 4, (3, 7))]
)
def test_flip_in_2d_blocks(
    target: str, rows: int, cols: int, block: tuple[int, int]
) -> None:
    x = rng("flip", rows, cols).standard_normal((rows, cols)).astype(np.float32)
    out = np.full((rows, cols), np.nan, np.float32)
    bx, by = block
    grid = (-(-cols // bx), -(-rows // by))
    module(target)["flip"][grid, block](x, out, np.int32(rows), np.int32(cols))
    padded = np.zeros((grid[1] * by, grid[0] * bx), np.float32)
    padded[:rows, :cols] = x
    tiles = padded.reshape(grid[1], by, grid[0], bx)[:, ::-1, :, ::-1]
    want = tiles.reshape(grid[1] * by, grid[0] * bx)[:rows, :cols]
    np.testing.assert_array_equal(out, want, err_msg=f"seed {SEED}")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [(4, 3, 2), (5, 1, 3), (8, 8, 8), (1, 1, 1)])
def test_rotate_in_3d_blocks(target: str, block: tuple[int, int, int]) -> None:
    threads, blocks = int(np.prod(block)), 5
    x = rng("rotate", block).standard_normal(blocks * threads).astype(np.float32)
    out = np.full_like(x, np.nan)
    module(target)["rotate3d"][(blocks,), block](x, out)
    v = x.reshape(blocks, threads).astype(np.float64)
    w = np.roll(v, -1, axis=1)
    assert_close(out, (3 * v + w).ravel(), (3 * np.abs(v) + np.abs(w)).ravel())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("n", "block"), [(10, 3), (777, 100), (2048, 1024)])
def test_barriers_in_helpers(target: str, n: int, block: int) -> None:
    x = rng("helpers", n, block).standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    module(target)["helpers"][(-(-n // block),), (block,)](x, out, np.int32(n))
    v = per_block(x, block).astype(np.float64)
    a, b = np.roll(v, -1, axis=1), np.roll(v, -2, axis=1)
    assert_close(out, (a + b).ravel()[:n], (np.abs(a) + np.abs(b)).ravel()[:n])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("rounds", "block"), [(0, 5), (1, 64), (4, 33)])
def test_barriers_in_nested_loops(target: str, rounds: int, block: int) -> None:
    blocks = 3
    x = rng("nested", rounds, block).standard_normal(blocks * block)
    x = x.astype(np.float32)
    out = np.full_like(x, np.nan)
    module(target)["nested"][(blocks,), (block,)](x, out, np.int32(rounds))
    a = x.reshape(blocks, block).astype(np.float64)
    for _ in range(rounds):
        for j in range(3):
            a = a * 0.5 + np.roll(a, -(j + 1), axis=1) * 0.25
    # Each step's rounding is at most an ulp of the inputs' size, halved after.
    assert_close(out, a.ravel(), 4 * np.abs(x).max() * np.ones(a.size))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("flag", [0, 1])
def test_barriers_in_uniform_if_and_switch(target: str, flag: int) -> None:
    block, blocks = 48, 7
    x = rng("branchy", flag).standard_normal(blocks * block).astype(np.float32)
    out = np.full_like(x, np.nan)
    module(target)["branchy"][(blocks,), (block,)](x, out, np.int32(flag))
    v = x.reshape(blocks, block).astype(np.float64)
    r = v[:, ::-1] if flag else v * 2
    which = np.arange(blocks)[:, None] % 3
    want = np.where(which == 0, r + r[:, :1], np.where(which == 1, r + 1, r))
    scale = np.abs(r) + np.where(which == 0, np.abs(r[:, :1]), which == 1)
    assert_close(out, want.ravel(), scale.ravel())


def test_every_example_with_barriers_runs_as_a_work_group_function() -> None:
    """reduce and matmul compile to work-group functions (examples run against
    numpy in tests/test_examples_run.py)."""
    root = Path(__file__).resolve().parent.parent / "examples"
    for name in ("reduce", "matmul"):
        mod = gpuc.compile(root / f"{name}.mlir", target="native")
        assert mod.result.kernels[name].uses_barrier
        # No barrier call through a pointer (the OS-thread ABI) is left.
        assert "call void %" not in mod.result.llvm_ir


def test_a_barrier_under_a_thread_dependent_condition_is_a_diagnostic(
    tmp_path: Path,
) -> None:
    source = tmp_path / "bad.mlir"
    source.write_text(
        "gpuc.func @k(%out: !gpuc.ptr<i32, global>) kernel {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %t = gpuc.thread_id x\n"
        "  %first = arith.cmpi eq, %t, %c0 : index\n"
        "  scf.if %first {\n"
        "    gpuc.barrier\n"
        "  }\n"
        "  gpuc.return\n"
        "}\n"
    )
    with pytest.raises(DiagnosticException) as info:
        gpuc.compile(source, target="native")
    text = str(info.value)
    assert "bad.mlir:6:5: error: 'gpuc.barrier' op is not reached by every" in text
    assert "depends on the thread index" in text
    gpuc.compile(source, target="spirv")  # undefined there, but not refused


def test_threads_that_disagree_at_a_barrier_raise_instead_of_hanging() -> None:
    agree = module("native")["agree"]
    block, blocks = 64, 4
    out = np.zeros(block * blocks, np.int32)
    agree[(blocks,), (block,)](np.ones(block, np.int32), out)
    assert (out == 1).all()
    agree[(blocks,), (block,)](np.zeros(block, np.int32), out)
    flags = np.ones(block, np.int32)
    flags[rng("agree").integers(1, block)] = 0
    with pytest.raises(gpuc.LaunchError) as info:
        agree[(blocks,), (block,)](flags, out)
    text = str(info.value)
    assert "kernel 'agree': block (0, 0, 0):" in text
    assert "work_item_kernels.mlir:" in text
    assert "disagree on the condition of 'scf.if'" in text


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("u", [0, 1, 2, 5, 6, 7, 10])
def test_regions_guarded_by_the_thread_index(target: str, u: int) -> None:
    block, blocks = (7, 3), 2
    out = np.full(blocks * 21, -(2**31) + 7, np.int32)
    module(target)["guards"][(blocks,), block](out, u)
    x = np.tile(np.arange(7), 3 * blocks)
    want = 1 * (x < u) + 2 * (x == u) + 4 * (x < u) + 8 * (x < u - 3)
    np.testing.assert_array_equal(out, want.astype(np.int32))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("block", "k"),
    [((20, 3), 0), ((20, 3), 7), ((16, 2), 32), ((5, 4), 20), ((33, 1), 33)],
)
def test_a_uniform_loop_over_shared_memory(
    target: str, block: tuple[int, int], k: int
) -> None:
    threads, blocks = block[0] * block[1], 3
    x = rng("lanes", block, k).standard_normal(blocks * threads).astype(np.float32)
    out = np.full_like(x, np.nan)
    module(target)["lanes"][(blocks,), block](x, out, k)
    v = x.reshape(blocks, threads).astype(np.float64)
    t = np.arange(threads)
    terms = np.stack([v[:, [j]] * v[:, (t + j) % threads] for j in range(k)] or [0 * v])
    scale = np.abs(terms).sum(axis=0).ravel() + 1e-30
    assert_close(out, terms.sum(axis=0).ravel(), k * scale)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("block", "u"), [(256, 255), (256, 0), (40, 17), (7, 9)])
def test_a_test_for_one_thread_amid_a_region(target: str, block: int, u: int) -> None:
    blocks = 3
    x = rng("one_thread", block, u).standard_normal(blocks * block).astype(np.float32)
    out = np.full_like(x, np.nan)
    last = np.full(blocks, np.nan, np.float32)
    module(target)["one_thread"][(blocks,), (block,)](x, out, last, u)
    rows = x.reshape(blocks, block)
    np.testing.assert_array_equal(out, (2 * np.roll(rows, -1, axis=1)).ravel())
    want = rows[:, u] if u < block else np.full(blocks, np.nan, np.float32)
    np.testing.assert_array_equal(last, want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("block", "u", "v"),
    [
        ((16, 4), 3, 2),
        ((16, 4), 0, 0),
        ((16, 4), 15, 3),
        ((16, 4), 16, 0),
        ((256, 1), 0, 0),
        ((8, 8), 2, 8),
    ],
)
def test_one_thread_of_a_2d_block_picked_by_x_and_y(
    target: str, block: tuple[int, int], u: int, v: int
) -> None:
    blocks = 5
    bx, by = block
    x = rng("picked", block, u, v).standard_normal(blocks * bx * by).astype(np.float32)
    picked = np.full(blocks, np.nan, np.float32)
    module(target)["picked"][(blocks,), block](x, picked, u, v)
    if u < bx and v < by:
        want = x.reshape(blocks, by, bx)[:, v, bx - 1 - u]
        np.testing.assert_array_equal(picked, want)
    else:
        assert np.isnan(picked).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("block", "n", "off"),
    [
        (16, 1000, 0),
        (40, 1000, 0),
        (256, 1000, 0),
        (256, 100, 0),
        (33, 70, 5),
        (7, 3, 2),
    ],
)
def test_block_stride_loops(target: str, block: int, n: int, off: int) -> None:
    blocks = 3
    x = rng("strided", block, n, off).standard_normal(blocks * n).astype(np.float32)
    y = np.full_like(x, np.nan)
    out = np.full(blocks * block, np.nan, np.float32)
    module(target)["strided"][(blocks,), (block,)](x, y, out, n, off)
    rows = x.reshape(blocks, n).astype(np.float64)
    scale = rows[:, :1]
    want_y = rows + scale
    untouched = np.arange(n) < off
    want_y[:, untouched] = np.nan
    np.testing.assert_array_equal(y.reshape(blocks, n), want_y.astype(np.float32))
    terms = np.zeros((blocks, block))
    bounds = np.zeros((blocks, block))
    for t in range(block):
        js = np.arange(t + off, n, block)
        terms[:, t] = (rows[:, js] * scale).sum(axis=1)
        bounds[:, t] = np.abs(rows[:, js] * scale).sum(axis=1) * max(1, len(js))
    assert_close(out, terms.ravel(), bounds.ravel() + 1e-30)


@pytest.mark.parametrize("block", [1, 31, 96, 1000])
def test_lane_id_and_shared_atomics_keep_their_meaning(block: int) -> None:
    """On native a warp is 32 consecutive x indices (docs/native-abi.md); spirv's
    sub-groups are the runtime's, so only native is checked for lane_id."""
    blocks = 3
    out = np.full(blocks * block, -(2**31) + 7, np.int32)
    module("native")["lanes_and_atomics"][(blocks,), (block,)](out)
    lane = np.tile(np.arange(block) % 32, blocks)
    np.testing.assert_array_equal(out, (lane * 1000 + block).astype(np.int32))


LANE_2D = """
gpuc.func @lane2d(%out: !gpuc.ptr<i32, global>) kernel {
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_dim x
  %row = arith.muli %ty, %bx : index
  %t = arith.addi %row, %tx : index
  SYNC
  %lane = gpuc.lane_id
  %l = arith.index_cast %lane : index to i32
  gpuc.store %l, %out[%t] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("sync", ["", "gpuc.barrier"])
def test_lane_id_is_the_linear_index_mod_32_in_2d_blocks(sync: str) -> None:
    """In a barrier-free kernel's loop nest and in a work-group function."""
    out = np.full(35, -1, np.int32)
    mod = gpuc.compile(LANE_2D.replace("SYNC", sync), target="native")
    assert mod.result.kernels["lane2d"].uses_barrier == bool(sync)
    mod["lane2d"][(1,), (5, 7)](out)
    np.testing.assert_array_equal(out, np.arange(35, dtype=np.int32) % 32)


def test_kernels_launched_again_with_one_block_run_code_compiled_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From its SPECIALIZE_AFTER-th launch with one block on, a barrier kernel
    runs its module compiled for that block (gpu.known_block_size): the
    checks above, each run three times on one fresh module, agree with numpy
    every time; and a block the kernel has not been launched with as often
    still runs the generic work-group function."""
    fresh = gpuc.compile(SOURCE, target="native")
    monkeypatch.setattr(sys.modules[__name__], "module", lambda target: fresh)
    cases: list[tuple[Any, tuple[Any, ...], tuple[int, ...] | int]] = [
        (test_scan_barriers_in_a_while_loop, (1000, 256), (256,)),
        (test_flip_in_2d_blocks, (37, 50, (8, 5)), (8, 5)),
        (test_rotate_in_3d_blocks, ((4, 3, 2),), (4, 3, 2)),
        (test_barriers_in_helpers, (777, 100), (100,)),
        (test_barriers_in_nested_loops, (4, 33), (33,)),
        (test_barriers_in_uniform_if_and_switch, (1,), (48,)),
        (test_regions_guarded_by_the_thread_index, (5,), (7, 3)),
        (test_a_uniform_loop_over_shared_memory, ((16, 2), 32), (16, 2)),
        (test_a_test_for_one_thread_amid_a_region, (256, 255), (256,)),
        (test_block_stride_loops, (40, 1000, 0), (40,)),
        (test_one_thread_of_a_2d_block_picked_by_x_and_y, ((16, 4), 3, 2), (16, 4)),
    ]
    for check, args, _ in cases:
        for _ in range(3):
            check("native", *args)
    for _ in range(3):
        test_threads_that_disagree_at_a_barrier_raise_instead_of_hanging()
    executor = fresh.executor
    variants = {(name, block) for name, block in executor._variants}  # noqa: SLF001
    names = ["scan", "flip", "rotate3d", "helpers", "nested", "branchy", "guards"]
    names += ["lanes", "one_thread", "strided", "picked"]
    want = {(n, b) for n, (_, _, b) in zip(names, cases, strict=True)}
    assert want | {("agree", (64,))} <= variants
    test_scan_barriers_in_a_while_loop("native", 50, 7)  # generic: once only
    assert ("scan", (7,)) not in executor._variants  # noqa: SLF001


def test_a_kernel_is_compiled_for_at_most_max_variants_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ten blocks, each launched twice: the first MAX_VARIANTS get code of
    their own, the rest keep the generic work-group function; all agree with
    numpy."""
    from gpuc.runtime.native import MAX_VARIANTS

    fresh = gpuc.compile(SOURCE, target="native")
    monkeypatch.setattr(sys.modules[__name__], "module", lambda target: fresh)
    for block in range(1, 11):
        for _ in range(2):
            test_scan_barriers_in_a_while_loop("native", 50, block)
    variants = fresh.executor._variants  # noqa: SLF001
    assert len(variants) == MAX_VARIANTS < 10
    test_scan_barriers_in_a_while_loop("native", 50, 10)  # generic, still right


def test_a_specialization_that_fails_leaves_the_generic_code_running() -> None:
    """A compile for the block that raises (here, a stand-in for a compiler
    bug) is a RuntimeWarning naming the kernel and the block; the launches
    go on with the generic work-group function and agree with numpy."""
    fresh = gpuc.compile(SOURCE, target="native")
    executor = fresh.executor

    def broken(kernel: str, block: tuple[int, int, int]) -> str:
        raise RuntimeError("stand-in")

    executor._specialize = broken  # noqa: SLF001
    n, block = 1000, 256
    x = rng("broken").integers(-1000, 1000, n, dtype=np.int32)
    want = np.cumsum(per_block(x, block), axis=1).ravel()[:n]
    for launch in range(3):
        out = np.full(n, -(2**31) + 7, np.int32)
        if launch == 1:
            with pytest.warns(RuntimeWarning, match=r"'scan'.*\(256, 1, 1\).*stand-in"):
                fresh["scan"][(-(-n // block),), (block,)](x, out, np.int32(n))
        else:
            fresh["scan"][(-(-n // block),), (block,)](x, out, np.int32(n))
        np.testing.assert_array_equal(out, want, err_msg=f"seed {SEED}")
    assert not executor._variants  # noqa: SLF001
