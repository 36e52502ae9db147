"""Kernels written in Python (gpuc/python/, docs/python.md), run on native
and spirv (Intel's OpenCL CPU runtime) against numpy, inputs fresh per run
(the seed is printed; rerun with GPUC_TEST_SEED=<seed>), outputs poisoned
with NaN (or a sentinel) first; every kernel's PTX validated by ptxas.

examples/python/ (the examples of examples/*.mlir, in Python) are checked
with examples/cases.py, the checks the .mlir kernels pass, by
tests/test_python_examples.py.
"""

from __future__ import annotations

import math
import os
import secrets
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "python"))
import scan  # noqa: E402
import softmax  # noqa: E402
import transpose  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_python_kernels: GPUC_TEST_SEED={BASE_SEED}")
TARGETS = ["native", "spirv"]
Array = np.ndarray[Any, Any]
SCALE = 3
F32 = gpuc.Array[gpuc.f32, 1]


def rng_for(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr((BASE_SEED, *key)).encode()))


# Control flow


@gpuc.func
def clamp(v: gpuc.f32, lo: gpuc.f32, hi: gpuc.f32) -> gpuc.f32:
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v


@gpuc.func(inline="never")
def first_negative(x: gpuc.Array[gpuc.f32, 1]) -> gpuc.i32:
    for k in range(x.shape[0]):
        if x[k] < 0:
            return gpuc.i32(k)
    return gpuc.i32(-1)


@gpuc.kernel
def control(x: F32, out: F32, found: gpuc.Array[gpuc.i32, 1], n: gpuc.i32):
    i = gpuc.global_id(0)
    if i >= n:
        return
    acc = 0.0
    k = 0
    while True:
        k += 1
        if k > 10:
            break
        if k % 2 == 0:
            continue
        acc += x[i] * gpuc.f32(k)
    s = 0
    for j in range(10, 0, -3):
        s += j
    odd = 1.0 if x[i] > 0 and x[i] < 0.5 else 2.0
    out[i] = clamp(acc, -5.0, 5.0) + gpuc.f32(s) * SCALE + odd
    if i == 0:
        found[0] = first_negative(x)


@gpuc.kernel
def short_circuit(x: F32, out: F32, n: gpuc.i32):
    i = gpuc.global_id(0)
    # x[i] is read only where i < n: the right operand never runs past x.
    if i < n and x[i] > 0 or i == n:
        out[i] = 1.0
    elif i < n:
        out[i] = -1.0 if not x[i] < -0.5 else -2.0


@gpuc.kernel
def literal_accumulators(x: gpuc.Array[gpuc.f64, 1], out: gpuc.Array[gpuc.f64, 1]):
    acc = 0  # a literal: the loop makes it f64
    ...  # a statement that does nothing, as pass
    k = 0
    while k < x.shape[0]:
        acc += x[k]
        k += 1
    total = 0
    for j in range(x.shape[0]):
        for _ in range(2):
            total = total + x[j] * 0.5
    out[0], out[1] = acc, total


@pytest.mark.parametrize("target", TARGETS)
def test_control_flow(target: str) -> None:
    rng = rng_for("control", target)
    n = 300
    x = rng.standard_normal(n).astype(np.float32)
    x[rng.integers(0, n)] = -1.0  # some element is negative
    out = np.full(n + 8, np.nan, np.float32)
    found = np.full(1, -7, np.int32)
    mod = gpuc.compile([control, short_circuit, literal_accumulators], target)
    mod["control"][gpuc.blocks(n, 64), 64](x, out, found, n)
    acc = x * np.float32(1 + 3 + 5 + 7 + 9)
    odd = np.where((x > 0) & (x < 0.5), 1.0, 2.0)
    want = np.clip(acc, -5, 5) + (10 + 7 + 4 + 1) * SCALE + odd
    np.testing.assert_allclose(out[:n], want, rtol=1e-5)
    assert np.isnan(out[n:]).all()
    assert found[0] == np.flatnonzero(x < 0)[0]
    assert mod.strided is None  # contiguous arrays: the unit-stride variant only
    out = np.full(n + 1, np.nan, np.float32)
    mod["short_circuit"][gpuc.blocks(n + 1, 64), 64](x, out, n)
    want = np.where(x > 0, 1.0, np.where(x < -0.5, -2.0, -1.0))
    np.testing.assert_array_equal(out, np.append(want, 1.0).astype(np.float32))
    sums = np.full(2, np.nan)
    mod["literal_accumulators"][1, 1](x.astype(np.float64), sums)
    np.testing.assert_allclose(sums, [x.astype(np.float64).sum()] * 2, rtol=1e-12)


# Types and conversions, math, min/max/abs, local arrays, views


@gpuc.kernel
def conversions(
    a: gpuc.Array[gpuc.f64, 2],
    b: gpuc.Array[gpuc.f64, 2],
    ints: gpuc.Array[gpuc.i64, 1],
):
    i, j = gpuc.global_id(1), gpuc.global_id(0)
    if i < a.shape[0] and j < a.shape[1]:
        parts = gpuc.local((4,), gpuc.f64)
        for k in range(4):
            parts[k] = a[i, j] * gpuc.f64(k)
        total = parts[0] + parts[1] + parts[2] + parts[3]
        b[i, j] = total + math.sqrt(abs(a[i, j])) + min(a[i, j], 0.25) + math.exp2(1.0)
    if i == 0 and j == 0:
        small = gpuc.i8(100) + gpuc.i8(27)
        wide = gpuc.i64(gpuc.i32(-7)) * 3
        ints[0] = gpuc.i64(small)
        ints[1] = wide
        ints[2] = gpuc.i64(gpuc.f32(2.75))
        ints[3] = gpuc.i64(-7 // 2)
        ints[4] = gpuc.i64(gpuc.i32(-7) // 2) * 10 + gpuc.i64(gpuc.i32(-7) % 3)
        ints[5] = gpuc.i64(gpuc.f16(1.5) * 2.0)
        ints[6] = gpuc.i64(max(gpuc.i32(3), 5, gpuc.i32(-1)))
        ints[7] = gpuc.i64(gpuc.bool(3)) + gpuc.i64(gpuc.f64(gpuc.bf16(2.0)))
        ints[8] = gpuc.i64(gpuc.i32(3) ** 3) + gpuc.i64(a[0, 0] ** 2 >= 0.0)


@pytest.mark.parametrize("target", TARGETS)
def test_conversions_math_and_views(target: str) -> None:
    rng = rng_for("conversions", target)
    base = rng.standard_normal((20, 64))
    a = base[::2, ::-3]  # a non-contiguous view, one stride negative
    whole = np.full((20, 64), np.nan)
    b = whole[1::2, 0::3]  # writes through a view land in `whole`
    ints = np.full(9, -999, np.int64)
    mod = gpuc.compile(conversions, target)
    grid = (gpuc.blocks(a.shape[1], 8), gpuc.blocks(a.shape[0], 8))
    mod["conversions"][grid, (8, 8)](a, b, ints)
    want = a * 6 + np.sqrt(abs(a)) + np.minimum(a, 0.25) + 2.0
    np.testing.assert_allclose(b, want, rtol=1e-12)
    assert mod.strided is not None  # the views made it compile the strided one
    written = np.zeros(whole.shape, bool)
    written[1::2, 0::3] = True
    assert np.isnan(whole[~written]).all()
    # i8 wraps (100 + 27 = 127 fits; no wrap); floor division and modulo as
    # Python; f32 -> i64 truncates; f16 arithmetic.
    assert ints.tolist() == [127, -21, 2, -4, (-4) * 10 + 2, 3, 5, 1 + 2, 27 + 1]


# Atomics


@gpuc.kernel
def atomics(x: gpuc.Array[gpuc.i32, 1], hist: gpuc.Array[gpuc.i32, 1], fsum: F32):
    i = gpuc.global_id(0)
    if i < x.shape[0]:
        gpuc.atomic_add(hist, x[i] % 8, 1)
        gpuc.atomic_max(hist, 8, x[i])
        gpuc.atomic_min(hist, 10, x[i])
        gpuc.atomic_sub(hist, 9, 1)
        old = gpuc.atomic_exchange(hist, 11, 5)
        if old != 5 and old != -1:
            hist[12] = old
        gpuc.atomic_add(fsum, 0, gpuc.f32(x[i]))
        # Exactly one thread finds the -1 and claims slot 13.
        if gpuc.atomic_cas(hist, 13, -1, gpuc.i32(i)) == -1:
            gpuc.atomic_add(hist, 14, 1)


@pytest.mark.parametrize("target", TARGETS)
def test_atomics(target: str) -> None:
    rng = rng_for("atomics", target)
    n = 500
    x = rng.integers(0, 100, n).astype(np.int32)
    hist = np.zeros(15, np.int32)
    hist[10], hist[11], hist[12], hist[13] = 1000, -1, -77, -1
    fsum = np.zeros(1, np.float32)
    gpuc.compile(atomics, target)["atomics"][gpuc.blocks(n, 64), 64](x, hist, fsum)
    np.testing.assert_array_equal(hist[:8], np.bincount(x % 8, minlength=8))
    assert (hist[8], hist[9], hist[10], hist[11], hist[12]) == (
        x.max(),
        -n,
        x.min(),
        5,
        -77,
    )
    assert fsum[0] == x.sum()  # exact: integers below 2^24
    assert 0 <= hist[13] < n and hist[14] == 1


# Subgroups, print and assert


@gpuc.kernel
def subgroups(
    x: F32, out: F32, sizes: gpuc.Array[gpuc.i32, 1], masks: gpuc.Array[gpuc.i32, 1]
):
    i = gpuc.global_id(0)
    total = gpuc.subgroup_sum(x[i])
    top = gpuc.subgroup_max(x[i])
    neighbour = gpuc.shuffle_xor(x[i], 1)
    any_big = gpuc.vote_any(x[i] > 0.99)
    out[i] = total + top * 0.0 + neighbour * 0.0 + gpuc.f32(any_big) * 0.0
    out[i + x.shape[0]] = neighbour
    if i == 0:
        sizes[0] = gpuc.i32(gpuc.subgroup_size())
    masks[i] = gpuc.ballot(x[i] > 0.5)


@pytest.mark.parametrize("target", TARGETS)
def test_subgroups(target: str) -> None:
    rng = rng_for("subgroups", target)
    n = 64
    x = rng.random(n).astype(np.float32)
    out = np.full(2 * n, np.nan, np.float32)
    sizes = np.zeros(1, np.int32)
    masks = np.full(n, -7, np.int32)
    gpuc.compile(subgroups, target)["subgroups"][1, n](x, out, sizes, masks)
    width = int(sizes[0])
    assert width in (8, 16, 32, 64)
    sums = x.reshape(-1, width).sum(1, dtype=np.float64).repeat(width)
    np.testing.assert_allclose(out[:n], sums, rtol=1e-5)
    np.testing.assert_array_equal(out[n:], x.reshape(-1, 2)[:, ::-1].reshape(-1))
    bits = (x > 0.5).reshape(-1, width) * (1 << np.arange(width, dtype=np.int64))
    want = bits.sum(1).astype(np.uint32).view(np.int32).repeat(width)
    np.testing.assert_array_equal(masks, want)


@gpuc.kernel
def shows(x: F32, n: gpuc.i32):
    i = gpuc.global_id(0)
    if i < 2:
        print("i =", i, "x =", x[i], "n =", n)


@gpuc.kernel
def checks(x: F32):
    i = gpuc.global_id(0)
    assert x[i] >= 0, "x must be non-negative"
    x[i] = x[i] * 2.0


@pytest.mark.parametrize("target", TARGETS)
def test_print_and_assert(target: str, capfd: pytest.CaptureFixture[str]) -> None:
    mod = gpuc.compile([shows, checks], target)
    mod["shows"][1, 4](np.array([0.5, 1.5, 2.5, 3.5], np.float32), 7)
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == ["i = 0 x = 0.5 n = 7", "i = 1 x = 1.5 n = 7"]
    x = np.array([1, 2, -1, 3], np.float32)
    with pytest.raises(gpuc.LaunchError) as failure:
        mod["checks"][1, 4](x)
    line = checks.fn.__code__.co_firstlineno + 3
    assert f"{__file__}:{line}:5: assertion failed: x must be non-negative" in str(
        failure.value
    )


# Device functions on shared arrays, constexpr, captured constants


@gpuc.func
def tile_sum(tile: gpuc.Array[gpuc.f32, 2], row: gpuc.index) -> gpuc.f32:
    s = 0.0
    for j in range(tile.shape[1]):
        s += tile[row, j]
    return s


@gpuc.kernel
def rows(x: gpuc.Array[gpuc.f32, 2], out: F32, width: gpuc.constexpr):
    tile = gpuc.shared((8, width), gpuc.f32)
    t, r = gpuc.thread_id(0), gpuc.thread_id(1)
    tile[r, t] = x[r, t]
    gpuc.barrier()
    if t == 0:
        out[r] = tile_sum(tile, r) + tile_sum(x, r) * 0.0 + gpuc.f32(width)


@pytest.mark.parametrize("target", TARGETS)
def test_shared_arrays_device_functions_constexpr(target: str) -> None:
    rng = rng_for("rows", target)
    rows.target = target
    for width in (4, 16):
        x = rng.standard_normal((8, width)).astype(np.float32)
        out = np.full(8, np.nan, np.float32)
        rows[1, (width, 8)](x, out, width)
        np.testing.assert_allclose(out, x.sum(1) + width, rtol=1e-5)
    # One variant per target and constexpr value.
    assert sum(key[0] == target for key in rows._compiled) == 2


@pytest.mark.parametrize("target", TARGETS)
def test_issue_kernels(target: str) -> None:
    """The softmax, transpose and scan of examples/python/."""
    rng = rng_for("issue", target)
    x = rng.standard_normal((37, 1000)).astype(np.float32)
    out = np.full_like(x, np.nan)
    gpuc.compile(softmax.softmax, target)["softmax"][37, softmax.BLOCK](x, out)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    src = rng.standard_normal((70, 45)).astype(np.float32)
    dst = np.full((45, 70), np.nan, np.float32)
    tile = transpose.TILE
    mod = gpuc.compile(transpose.transpose, target)
    grid = (gpuc.blocks(45, tile), gpuc.blocks(70, tile))
    mod["transpose"][grid, (tile, tile)](src, dst)
    np.testing.assert_array_equal(dst, src.T)
    n, block = 3000, scan.BLOCK
    v = rng.standard_normal(n).astype(np.float32)
    want = np.cumsum(v.astype(np.float64))
    blocks = gpuc.blocks(n, block)
    sums = np.full(blocks, np.nan, np.float32)
    total = np.full(1, np.nan, np.float32)
    mod = gpuc.compile([scan.scan_block, scan.add_sums], target)
    mod["scan_block"][blocks, block](v, sums)
    mod["scan_block"][1, block](sums, total)
    mod["add_sums"][blocks, block](v, sums)
    np.testing.assert_allclose(v, want, atol=1e-3 * math.sqrt(n))


def test_ptx_validated_by_ptxas() -> None:
    """Every kernel of this file compiles for ptx and ptxas accepts it."""
    from gpuc.tools import ToolError, ptxas

    try:
        ptxas()
    except ToolError as e:
        pytest.skip(str(e))
    kernels = [control, short_circuit, conversions, atomics, subgroups, shows, checks]
    mod = gpuc.compile(kernels, "ptx", validate=True)
    assert set(mod) >= {k.name for k in kernels}
    gpuc.compile(rows, "ptx", validate=True, constexprs={"width": 8})
    mod = gpuc.compile([scan.scan_block, scan.add_sums], "ptx", validate=True)
    assert isinstance(mod.artefact, str) and ".entry scan_block" in mod.artefact


@gpuc.kernel
def bump(x: F32, flag: bool, by: gpuc.f32):
    i = gpuc.global_id(0)
    if i < x.shape[0] and flag:
        x[i] += by


@gpuc.kernel
def add_rows(x: gpuc.Array[gpuc.f32, 2]):
    i, j = gpuc.global_id(1), gpuc.global_id(0)
    if i < x.shape[0] and j < x.shape[1]:
        x[i, j] += gpuc.f32(i * 100 + j)


@pytest.mark.parametrize("target", TARGETS)
def test_device_arrays_and_bool_parameters(target: str) -> None:
    rng = rng_for("bump", target)
    host = rng.standard_normal(100).astype(np.float32)
    mod = gpuc.compile([bump, add_rows], target)
    d = mod.to_device(host)
    mod["bump"][gpuc.blocks(100, 32), 32](d, True, 2.0)
    mod["bump"][gpuc.blocks(100, 32), 32](d, False, 5.0)
    got = d.copy_to_host() if hasattr(d, "copy_to_host") else np.asarray(d)
    np.testing.assert_array_equal(got, host + np.float32(2.0))
    grid = rng.standard_normal((37, 45)).astype(np.float32)
    d2 = mod.to_device(grid)
    g = (gpuc.blocks(45, 8), gpuc.blocks(37, 8))
    mod["add_rows"][g, (8, 8)](d2)
    got = d2.copy_to_host() if hasattr(d2, "copy_to_host") else np.asarray(d2)
    rows, cols = np.indices(grid.shape)
    np.testing.assert_array_equal(got, grid + (rows * 100 + cols).astype(np.float32))


def test_amdgpu_validated() -> None:
    from gpuc.tools import ToolError, llvm_tool

    try:
        llvm_tool("ld.lld")
    except ToolError as e:
        pytest.skip(str(e))
    kernels = [control, conversions, atomics, bump, via_pointer, via_array_pointer]
    mod = gpuc.compile(kernels, "amdgpu", validate=True)
    assert {k.name for k in kernels} <= set(mod)


SOURCE = """
import gpuc

STEP = {step}


@gpuc.kernel
def add_step(x: gpuc.Array[gpuc.f32, 1]):
    # {comment}
    x[gpuc.global_id(0)] += STEP
"""


def test_cache_keys_on_captured_constants_not_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "cache"))
    outcomes = []
    for n, (step, comment) in enumerate([(1, "a"), (1, "another comment"), (2, "a")]):
        path = tmp_path / "k.py"  # native keys on the locations: one file
        path.write_text(SOURCE.format(step=step, comment=comment))
        spec = importlib.util.spec_from_file_location(f"k{n}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        mod = gpuc.compile(module.add_step, "native")
        x = np.zeros(4, np.float32)
        mod["add_step"][1, 4](x)
        assert (x == step).all()
        outcomes.append(mod.cache)
    assert outcomes == ["miss", "hit", "miss"]


def test_cache_hits_across_moved_lines_where_the_output_quotes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ptx without -g or asserts quotes no line: a comment that moves the
    kernel's lines still hits; with -g (line tables) it compiles again."""
    import importlib.util

    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "cache"))
    outcomes = []
    runs = [("a", False), ("a\n    # moved\n    # down", False), ("a", True)]
    runs.append((runs[1][0], True))
    for n, (comment, line_info) in enumerate(runs):
        path = tmp_path / "k.py"
        path.write_text(SOURCE.format(step=1, comment=comment))
        spec = importlib.util.spec_from_file_location(f"moved{n}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        mod = gpuc.compile(module.add_step, "ptx", line_info=line_info)
        outcomes.append(mod.cache)
    assert outcomes == ["miss", "hit", "miss", "miss"]


def test_launch_shorthand_recompiles_when_a_captured_constant_changes(
    tmp_path: Path,
) -> None:
    import importlib.util

    path = tmp_path / "steps.py"
    path.write_text(SOURCE.format(step=1, comment="c"))
    spec = importlib.util.spec_from_file_location("steps", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = module.add_step
    kernel.target = "native"
    x = np.zeros(4, np.float32)
    kernel[1, 4](x)
    kernel[1, 4](x)  # compiled once
    module.STEP = 10  # type: ignore[attr-defined]
    kernel[1, 4](x)  # the constant it read changed: compiled again
    np.testing.assert_array_equal(x, [12, 12, 12, 12])
    assert len(kernel._compiled) == 1


def test_launch_errors_show_the_python_line() -> None:
    x = np.array([1, -2], np.float32)
    mod = gpuc.compile([checks, bump], "native")
    with pytest.raises(gpuc.LaunchError, match=r"'x' has 2 dimension\(s\)"):
        mod["checks"][1, 2](x.reshape(1, 2))
    # Arguments are numbered as in the Python call, not the expanded ABI.
    with pytest.raises(gpuc.LaunchError, match=r"argument 2 \('by': f32\)"):
        mod["bump"][1, 2](x, True, "a string")
    with pytest.raises(gpuc.LaunchError) as failure:
        mod["checks"][1, 2](x)
    lines = str(failure.value).splitlines()
    assert lines[-2:] == ['    assert x[i] >= 0, "x must be non-negative"', "    ^"]


@gpuc.func
def square_plus(v: gpuc.f32, b: gpuc.f32) -> gpuc.f32:
    return v * v + b


@gpuc.kernel
def via_pointer(x: F32, bias: gpuc.f32):
    i = gpuc.global_id(0)
    f = gpuc.address(square_plus, inline="never")
    if i < x.shape[0]:
        x[i] = f(x[i], bias)


def test_function_addresses() -> None:
    """gpuc.address is gpuc.deferred_addr, its call gpuc.call_indirect: run
    on native, validated by ptxas; spirv refuses function pointers at the
    .py line."""
    x = rng_for("address").standard_normal(50).astype(np.float32)
    want = x * x + np.float32(0.5)
    gpuc.compile(via_pointer, "native")["via_pointer"][2, 32](x, 0.5)
    np.testing.assert_allclose(x, want, rtol=1e-6)
    gpuc.compile(via_pointer, "ptx", validate=True)
    line = via_pointer.fn.__code__.co_firstlineno + 3
    with pytest.raises(gpuc.KernelError, match=f":{line}:9: error: 'gpuc.func_addr'"):
        gpuc.compile(via_pointer, "spirv")


@gpuc.func
def row_dot(x: gpuc.Array[gpuc.f32, 2], row: gpuc.i32, w: F32, out: F32) -> gpuc.f32:
    acc = gpuc.f32(0)
    for k in range(x.shape[1]):
        acc += x[row, k] * w[k]
    out[row] = acc
    return acc * 2.0


@gpuc.kernel
def via_array_pointer(x: gpuc.Array[gpuc.f32, 2], w: F32, out: F32, twice: F32):
    i = gpuc.global_id(0)
    f = gpuc.address(row_dot, inline="never")
    if i < x.shape[0]:
        twice[i] = f(x, gpuc.i32(i), w, out)


def test_addresses_of_functions_taking_arrays() -> None:
    """The address of a function of arrays: its signature holds each array's
    memref, offset, shape and strides, which the import expands as a direct
    call's; reading a strided view and writing through an array argument
    via the pointer on native, ptx validated by ptxas, spirv refusing
    function pointers at the .py line."""
    rng = rng_for("array address")
    x = rng.standard_normal((37, 10)).astype(np.float32)
    view = x[:, ::2]  # strides (10, 2) elements: they reach the function
    w = rng.standard_normal(5).astype(np.float32)
    out = np.full(37, np.nan, np.float32)
    twice = np.full(37, np.nan, np.float32)
    gpuc.compile(via_array_pointer, "native")["via_array_pointer"][2, 32](
        view, w, out, twice
    )
    want = view.astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(twice, out * np.float32(2))
    gpuc.compile(via_array_pointer, "ptx", validate=True)
    line = via_array_pointer.fn.__code__.co_firstlineno + 3
    with pytest.raises(gpuc.KernelError, match=f":{line}:9: error: 'gpuc.func_addr'"):
        gpuc.compile(via_array_pointer, "spirv")
