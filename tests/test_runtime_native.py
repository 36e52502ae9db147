"""The native executor on hand-written LLVM IR that follows docs/native-abi.md:
grid/block mapping, splitting across OS threads, per-block shared memory,
errors reported by a launch entry, scalar passing, and the launch checks.
Outputs are poisoned first so an unwritten element fails."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from native_abi_ir import (
    BSUM,
    FAILS,
    FAILS_SIG,
    IDS,
    IDS_SIG,
    SCALARS,
    SCALARS_SIG,
    bsum_sig,
)

from gpuc.runtime.args import LaunchError
from gpuc.runtime.native import NativeExecutor
from gpuc.targets.native.abi import LAUNCH, STATE, WARP, entry_point


@pytest.fixture(scope="module")
def ex() -> NativeExecutor:
    kernels = {
        "ids": IDS_SIG,
        "bsum": bsum_sig(),
        "scalars": SCALARS_SIG,
        "fails": FAILS_SIG,
    }
    return NativeExecutor(IDS + BSUM + SCALARS + FAILS, kernels)


@pytest.mark.parametrize(
    ("grid", "block"),
    [
        ((1,), (1,)),
        ((3,), (5,)),
        ((7, 3, 2), (4, 2, 3)),
        ((2, 2), (1024,)),
        ((70000,), (1,)),  # above the split threshold: blocks across workers
        ((37, 5), (33, 7)),  # also split, with an uneven block count per worker
    ],
)
def test_every_thread_of_every_block_runs_once(
    ex: NativeExecutor, grid: tuple[int, ...], block: tuple[int, ...]
) -> None:
    blocks, threads = int(np.prod(grid)), int(np.prod(block))
    out = np.full(blocks * threads, -1, np.int64)
    meta = np.full(6, -1, np.int64)
    ex.launch("ids", grid, block, (out, meta))
    np.testing.assert_array_equal(out, np.arange(1, blocks * threads + 1))
    full = lambda d: list(d) + [1] * (3 - len(d))  # noqa: E731
    assert meta.tolist() == full(grid) + full(block)


def test_big_launches_use_every_core() -> None:
    runner = NativeExecutor.__new__(NativeExecutor)
    runner.workers = 2
    assert runner._groups(70000, 1) == 2
    assert runner._groups(10, 32) == 1
    assert runner._groups(1000, 256) == 2
    assert runner._groups(1, 1 << 20) == 1  # one block: one OS thread


def test_an_error_reported_by_the_entry_is_a_launch_error(
    ex: NativeExecutor,
) -> None:
    with pytest.raises(
        LaunchError, match=r"kernel 'fails': block \(0, 0, 0\): it went wrong"
    ):
        ex.launch("fails", 1, 1, ())
    # Split across two OS threads: the first range's first block is reported.
    with pytest.raises(LaunchError, match=r"block \(0, 0, 0\)"):
        ex.launch("fails", (70000,), (1,), ())


@pytest.mark.parametrize(
    ("n", "block"),
    [(1, 1), (300, 7), (1000, 32), (2500, 256), (3001, 1000), (4096, 1024), (999, 1)],
)
def test_block_reduction_with_barriers_and_shared_memory(
    ex: NativeExecutor, n: int, block: int
) -> None:
    rng = np.random.default_rng(n * 7919 + block)
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    blocks = -(-n // block)
    out = np.full(blocks, np.iinfo(np.int32).min, np.int32)
    ex.launch("bsum", (blocks,), (block,), (x, out, n))
    np.testing.assert_array_equal(out, np.add.reduceat(x, np.arange(0, n, block)))


def test_concurrent_launches_from_python_threads(ex: NativeExecutor) -> None:
    rng = np.random.default_rng(5)
    inputs = [rng.integers(-9, 9, 2000, dtype=np.int32) for _ in range(4)]
    outputs = [np.full(2000 // 100, -1, np.int32) for _ in inputs]
    workers = [
        threading.Thread(target=ex.launch, args=("bsum", 20, 100, (x, out, 2000)))
        for x, out in zip(inputs, outputs, strict=True)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for x, out in zip(inputs, outputs, strict=True):
        np.testing.assert_array_equal(out, x.reshape(20, 100).sum(axis=1))


def test_scalar_arguments_of_every_type(ex: NativeExecutor) -> None:
    out = np.full(6, np.nan)
    ex.launch("scalars", 1, 1, (out, 1.5, -2.25, -3, True, 2**40, 40000))
    # 40000 does not fit a signed i16: its bit pattern is passed (signless).
    assert out.tolist() == [1.5, -2.25, -3.0, 1.0, 2.0**40, 40000.0 - 65536.0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.zeros(4, np.int64),), "takes 2 arguments (out: !gpuc.ptr<i64, global>"),
        (
            (np.zeros(4, np.float64), np.zeros(6, np.int64)),
            "argument 0 ('out': !gpuc.ptr<i64, global>) must be a numpy array of "
            "int64, got one of float64",
        ),
        ((np.zeros(4, np.int64), [0] * 6), "argument 1 ('meta'"),
        ((np.zeros((4, 4), np.int64)[:, 0], np.zeros(6, np.int64)), "not contiguous"),
    ],
)
def test_bad_arguments_name_the_argument(
    ex: NativeExecutor, args: tuple[object, ...], message: str
) -> None:
    with pytest.raises(LaunchError, match="kernel 'ids'") as info:
        ex.launch("ids", 1, 1, args)
    assert message in str(info.value)


def test_read_only_array_is_refused(ex: NativeExecutor) -> None:
    out = np.zeros(4, np.int64)
    out.flags.writeable = False
    with pytest.raises(LaunchError, match="'out'.*read-only"):
        ex.launch("ids", 1, 1, (out, np.zeros(6, np.int64)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (np.zeros(6), "1.5", 2.0, 1, True, 1, 1),
            "argument 1 ('a': f32) must be a real",
        ),
        (
            (np.zeros(6), 1.0, 2.0, 1.5, True, 1, 1),
            "argument 3 ('c': i8) must be an int",
        ),
        ((np.zeros(6), 1.0, 2.0, 256, True, 1, 1), "= 256 does not fit in 8 bits"),
        ((np.zeros(6), 1.0, 2.0, 1, 2, 1, 1), "argument 4 ('d': i1) must be a bool"),
        ((np.zeros(6), 1.0, 2.0, 1, True, 2**63, 1), "does not fit in 64 bits"),
        ((np.zeros(6), 1.0, 2.0, True, True, 1, 1), "('c': i8) must be an int"),
    ],
)
def test_bad_scalars_name_the_argument(
    ex: NativeExecutor, args: tuple[object, ...], message: str
) -> None:
    with pytest.raises(LaunchError) as info:
        ex.launch("scalars", 1, 1, args)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("grid", "block", "message"),
    [
        (0, 1, "grid.x is 0; every grid dimension must be at least 1"),
        ((4, 0), 1, "grid.y is 0"),
        (1, (1, 1, 0), "block.z is 0"),
        (1, 1025, "block.x = 1025 exceeds this executor's limit of 1024"),
        (
            1,
            (64, 32),
            "block (64, 32, 1) has 2048 threads; this executor runs at most 1024",
        ),
        (1, (1, 1, 65), "block.z = 65 exceeds this executor's limit of 64"),
        ((1, 65536), 1, "grid.y = 65536 exceeds"),
        ((1, 2, 3, 4), 1, "grid must be an int or 1 to 3 ints"),
        (2.0, 1, "grid.x must be an int, got float"),
        (1, True, "block.x is a bool"),
    ],
)
def test_bad_geometry_is_refused(
    ex: NativeExecutor, grid: object, block: object, message: str
) -> None:
    out, meta = np.zeros(8, np.int64), np.zeros(6, np.int64)
    with pytest.raises(LaunchError) as info:
        ex.launch("ids", grid, block, (out, meta))
    assert message in str(info.value)


def test_too_much_shared_memory_is_refused() -> None:
    ex = NativeExecutor(BSUM, {"bsum": bsum_sig(64 * 1024)})
    x, out = np.zeros(4, np.int32), np.zeros(1, np.int32)
    with pytest.raises(LaunchError, match="needs 65536 bytes of shared memory"):
        ex.launch("bsum", 1, 4, (x, out, 4))


def test_unknown_kernel_and_missing_entry_point(ex: NativeExecutor) -> None:
    with pytest.raises(
        LaunchError, match="no kernel named 'nope'.*bsum, fails, ids, scalars"
    ):
        ex.launch("nope", 1, 1, ())
    with pytest.raises(LaunchError, match="defines no '__gpuc_launch_ids'"):
        NativeExecutor(BSUM, {"ids": IDS_SIG})


def test_a_pool_the_system_refuses_threads_still_runs_every_block() -> None:
    """With the address space capped, only some of the threads a 64-way split
    launch asks the process's pool for can start: the launch runs every
    block on those (and the calling thread), and the next one too."""
    script = textwrap.dedent(
        """
        import resource, sys
        import numpy as np
        from native_abi_ir import IDS, IDS_SIG
        from gpuc.runtime.native import NativeExecutor
        ex = NativeExecutor(IDS, {"ids": IDS_SIG}, workers=64)
        # Everything the checks need is allocated before the cap: the pool
        # takes what address space is left, so an array made after a launch
        # may find none.
        out, meta = np.zeros(70000, np.int64), np.zeros(6, np.int64)
        want, same = np.arange(1, 70001), np.zeros(70000, bool)
        pages = int(open("/proc/self/statm").read().split()[0])
        cap = pages * resource.getpagesize() + (24 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, resource.RLIM_INFINITY))
        for _ in range(2):
            out[:] = 0
            ex.launch("ids", 70000, 1, (out, meta))
            assert np.equal(out, want, out=same).all()
        print("threads:", ex._pool.threads)
        """
    )
    here = Path(__file__).parent
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=here,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    threads = int(done.stdout.split("threads:")[1])
    assert 0 <= threads < 63, done.stdout


def test_the_pool_runs_launches_from_several_python_threads_at_once() -> None:
    """Split launches from four Python threads at once share the process's
    pool (each offer is its own; a launch whose offer another replaced runs
    on fewer threads), and every block of every launch runs once."""
    ex = NativeExecutor(IDS, {"ids": IDS_SIG})
    n = 70000
    outs = [np.zeros(n, np.int64) for _ in range(4)]
    metas = [np.zeros(6, np.int64) for _ in range(4)]

    def run(i: int) -> None:
        for _ in range(20):
            outs[i][:] = 0
            ex.launch("ids", n, 1, (outs[i], metas[i]))
            assert (outs[i] == np.arange(1, n + 1)).all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in outs:
        assert (out == np.arange(1, n + 1)).all()


def documented_layouts() -> list[list[tuple[str, list[int]]]]:
    """Each `| offset | field |` table of docs/native-abi.md, in order: its
    fields, in order, with their byte offsets."""
    text = (Path(__file__).parents[1] / "docs" / "native-abi.md").read_text()
    tables = re.findall(r"^\| offset \| field \|\n\|[-|]+\|\n((?:\|.*\n)+)", text, re.M)
    layouts = []
    for table in tables:
        rows = []
        for row in table.splitlines():
            offsets, field = row.split("|")[1:3]
            name = re.search(r"`(\w+)`", field)
            assert name, f"no `field` in docs/native-abi.md row {row!r}"
            rows.append((name.group(1), [int(o) for o in offsets.split(",")]))
        layouts.append(rows)
    return layouts


def test_documented_abi_is_the_abi_table() -> None:
    """The doc's state and launch-record tables, entry point and warp width are
    gpuc/targets/native/abi.py's."""
    text = (Path(__file__).parents[1] / "docs" / "native-abi.md").read_text()
    assert f"void @{entry_point('k')}(ptr %launch, A %a, ...)" in text
    assert f"`mod {WARP}`: a warp is {WARP} consecutive linear indices" in text
    assert documented_layouts() == [
        [
            (name, [layout.offset(name, d) for d in range(n)])
            for name, n in layout.fields
        ]
        for layout in (STATE, LAUNCH)
    ]


UNDEFINED_HELPER = """
gpuc.func private @{name}(f32) -> f32 helper
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {{
  %v = gpuc.load %p : !gpuc.ptr<f32, global>
  %r = gpuc.call @{name}(%v) : (f32) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}}
"""


def test_a_helper_defined_nowhere_is_a_compile_time_diagnostic() -> None:
    """It used to compile and then crash the process at launch (a call to
    address 0); a declaration the process does define (libm's sqrtf) runs."""
    import gpuc
    from gpuc.diagnostics import OpError

    with pytest.raises(OpError, match="uses @nowhere, which is declared but defined"):
        gpuc.compile(UNDEFINED_HELPER.format(name="nowhere"), target="native")
    mod = gpuc.compile(UNDEFINED_HELPER.format(name="sqrtf"), target="native")
    x = np.array([4.0], np.float32)
    mod["k"][1, 1](x)
    assert x.tolist() == [2.0]


I128_DIVISION = """
gpuc.func @k(%p: !gpuc.ptr<i64, global>, %a: i64, %b: i64) kernel {
  %x = arith.extsi %a : i64 to i128
  %y = arith.extsi %b : i64 to i128
  %big = arith.muli %x, %x : i128
  %q = arith.divsi %big, %y : i128
  %r = arith.remsi %big, %y : i128
  %uq = arith.divui %big, %y : i128
  %q64 = arith.trunci %q : i128 to i64
  %r64 = arith.trunci %r : i128 to i64
  %uq64 = arith.trunci %uq : i128 to i64
  gpuc.store %q64, %p[%c0] : !gpuc.ptr<i64, global>
  gpuc.store %r64, %p[%c1] : !gpuc.ptr<i64, global>
  gpuc.store %uq64, %p[%c2] : !gpuc.ptr<i64, global>
  gpuc.return
}
"""


def test_i128_division_runs_on_native() -> None:
    """LLVM calls the compiler runtime (`__divti3`, ...) for i128 division,
    which the JIT did not link: the launch segfaulted."""
    import gpuc

    text = I128_DIVISION.replace(
        "  %x = arith.extsi",
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        "  %c2 = arith.constant 2 : index\n  %x = arith.extsi",
        1,
    )
    mod = gpuc.compile(text, target="native")
    rng = np.random.default_rng()
    for _ in range(5):
        a = int(rng.integers(-(2**62), 2**62))
        b = int(rng.integers(1, 2**40)) * (1 if rng.random() < 0.5 else -1)
        out = np.full(3, -1, np.int64)
        mod["k"][1, 1](out, np.int64(a), np.int64(b))
        big = a * a
        q = abs(big) // abs(b) * (1 if (big >= 0) == (b > 0) else -1)
        r = big - q * b
        uq = big // (b % 2**128)
        wrap = lambda v: (v + 2**63) % 2**64 - 2**63  # noqa: E731
        assert out.tolist() == [wrap(q), wrap(r), wrap(uq)], (a, b)


def test_a_forked_child_gets_a_pool_of_its_own() -> None:
    """A child forked after the parent's pool started launches on a pool of
    its own (the parent's threads are not in it), and exits through the
    inherited exit handler, which stops only the child's pool."""
    script = textwrap.dedent(
        """
        import os, sys
        import numpy as np
        from native_abi_ir import IDS, IDS_SIG
        from gpuc.runtime.native import NativeExecutor
        ex = NativeExecutor(IDS, {"ids": IDS_SIG}, workers=4)
        out, meta = np.zeros(70000, np.int64), np.zeros(6, np.int64)
        ex.launch("ids", 70000, 1, (out, meta))
        pid = os.fork()
        if pid == 0:
            out[:] = 0
            ex.launch("ids", 70000, 1, (out, meta))
            sys.exit(0 if (out == np.arange(1, 70001)).all() else 3)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "child 0" in done.stdout


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_private_copies_are_added_only_where_they_hold_adds(
    ex: NativeExecutor, dtype: type
) -> None:
    """The executor's sum of a private copy into the caller's array (run in
    vector groups, then one by one) adds and zeroes exactly the elements the
    copy added to: groups with none, some and all of them, a tail shorter
    than a group, and -0.0 (an add of it leaves any element as it is). The
    other elements of the caller's array are not written: -0.0 there would
    become +0.0 if 0.0 were added to it."""
    rng = np.random.default_rng(dtype(1).nbytes)
    n = 16 * 40 + 13
    src = rng.standard_normal(n).astype(dtype)
    src[: 16 * 5] = 0  # groups without an add
    src[16 * 5 + 3 : 16 * 9 : 2] = 0  # partial groups
    src[16 * 12 : 16 * 12 + 40 : 3] = -0.0
    src[n - 13 : n : 4] = 0  # the tail
    added = src != 0
    dst = rng.standard_normal(n).astype(dtype)
    dst[~added] = -0.0
    want = np.where(added, dst + src, dst)
    add = ex._private_sums[np.dtype(dtype).name]  # noqa: SLF001
    add(dst.ctypes.data, src.ctypes.data, n)
    np.testing.assert_array_equal(dst[added], want[added])
    assert (dst[~added] == 0).all() and np.signbit(dst[~added]).all()
    assert not src.any()
