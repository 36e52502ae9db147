"""Barriers and shuffles in cf control flow (tests/lift_cf_kernels.mlir),
lifted into scf ops by `lift-cf` for the native target's work-group
functions: diamonds, triangles, a switch, loops with a break, early returns,
a helper, values through block arguments. Each against numpy on native and
spirv (which lowers the lifted scf ops too), outputs poisoned first; and the
control flow the lift leaves alone keeps native's diagnostic."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kernel_modules import compiled, seeded
from xdsl.parser import Parser

import gpuc
from gpuc.compiler import compile_module
from gpuc.context import make_context
from gpuc.diagnostics import DiagnosticException
from gpuc.transforms.gpuc_pipeline import GpucPipeline, run_passes

SOURCE = Path(__file__).with_name("lift_cf_kernels.mlir")
SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_lift_cf: GPUC_TEST_SEED={SEED}")
TARGETS = ["native", "spirv"]
BLOCK = 64
Array = np.ndarray[Any, Any]


def module(target: str) -> gpuc.Module:
    return compiled(SOURCE, target)


def rng_for(*key: object) -> np.random.Generator:
    return seeded(SEED, *key)


def inputs(blocks: int, *key: object) -> tuple[Array, Array]:
    x = rng_for(*key).standard_normal(blocks * BLOCK).astype(np.float32)
    return x, np.full_like(x, np.nan)


def per_block(x: Array) -> Array:
    return x.reshape(-1, BLOCK)


def test_the_kernels_are_lifted() -> None:
    """No cf branch is left in the kernels the native target splits."""
    module = Parser(make_context(), SOURCE.read_text()).parse_module()
    run_passes(make_context(), module, GpucPipeline("native").passes())
    text = str(module)
    assert "cf.br" not in text and "cf.cond_br" not in text
    assert "cf.switch" not in text
    assert "scf.while" in text and "scf.index_switch" in text


def test_the_lifted_kernels_compile_for_ptx() -> None:
    validate = shutil.which("ptxas") is not None
    ptx = str(compile_module(SOURCE, "ptx", validate=validate).artefact)
    assert ".entry diamond(" in ptx and "bar.sync" in ptx and "shfl.sync" in ptx


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [0, 3])
def test_barriers_on_both_sides_of_a_diamond(target: str, mode: int) -> None:
    x, out = inputs(3, "diamond", mode)
    module(target)["diamond"][3, BLOCK](x, out, mode)
    xb = per_block(x)
    t = np.arange(BLOCK)
    want = 2 * xb[:, t ^ 1] if mode else xb[:, (t + 1) % BLOCK] + 1
    np.testing.assert_allclose(per_block(out), want, rtol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("steps", [0, 1, 5])
def test_barriers_in_a_cf_loop(target: str, steps: int) -> None:
    x, out = inputs(2, "rounds", steps)
    module(target)["rounds"][2, BLOCK](x, out, steps)
    acc = per_block(x).astype(np.float64)
    for _ in range(steps):
        acc = acc + np.roll(acc, -1, axis=1)
    acc[:, 1::2] *= -1
    np.testing.assert_allclose(per_block(out), acc + steps, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_early_returns(target: str, mode: int) -> None:
    x, out = inputs(2, "early", mode)
    module(target)["early_exit"][2, BLOCK](x, out, mode)
    if mode == 0:
        assert np.isnan(out).all()
    elif mode == 1:
        np.testing.assert_allclose(out, x + 1, rtol=1e-6)
    else:
        want = 3 * np.roll(per_block(x), -1, axis=1)
        np.testing.assert_allclose(per_block(out), want, rtol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("sel", [0, 1, -1, 7])
def test_shuffles_in_a_switch(target: str, sel: int) -> None:
    x, out = inputs(2, "switch", sel)
    module(target)["switch"][2, BLOCK](x, out, sel)
    lane = np.arange(x.size)
    if sel == 0:
        r = x + x[lane ^ 1]
    elif sel in (1, -1):
        r = x[lane ^ 2]
    else:
        r = -x
    np.testing.assert_allclose(out, r + r[lane ^ 4], rtol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("steps", "stop"), [(6, 100), (6, 3), (0, 0), (4, 0)])
def test_a_shuffle_in_a_loop_with_a_break(target: str, steps: int, stop: int) -> None:
    x, out = inputs(2, "search", steps, stop)
    module(target)["search"][2, BLOCK](x, out, steps, stop)
    lane = np.arange(x.size)
    acc = x.astype(np.float64)
    k = 0
    while k < steps:
        acc = acc + acc[lane ^ 1] if k % 2 == 0 else acc * 0.5
        if k == stop:
            break
        k += 1
    np.testing.assert_allclose(out, acc + k, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("steps", "stop"), [(4, 100), (4, 2), (3, 0), (0, 0)])
def test_a_return_from_inside_a_loop_with_barriers(
    target: str, steps: int, stop: int
) -> None:
    x, out = inputs(2, "early_in_loop", steps, stop)
    module(target)["early_in_loop"][2, BLOCK](x, out, steps, stop)
    acc = per_block(x).astype(np.float64)
    for k in range(steps):
        acc = acc + np.roll(acc, -1, axis=1)
        if k == stop:
            acc = acc * 10
            break
    np.testing.assert_allclose(per_block(out), acc, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("up", [0, 1])
def test_a_helper_with_a_barrier_in_a_diamond(target: str, up: int) -> None:
    x, out = inputs(2, "shift", up)
    module(target)["shift"][2, BLOCK](x, out, up)
    want = np.roll(per_block(x), -1 if up else 1, axis=1)
    np.testing.assert_array_equal(per_block(out), want)


@pytest.mark.parametrize("threads", [13, 32, 40])
def test_a_shuffle_of_a_value_recomputed_from_the_thread_index(threads: int) -> None:
    """Native only: the width is the block size, which on spirv may exceed
    the subgroup OpenCL forms."""
    out = np.full(threads, np.nan, np.float32)
    module("native")["shuffle_index"][1, threads](out)
    t = np.arange(threads)
    lane, width = t % 32, min(threads, 32)
    size = np.minimum(32, threads - (t - lane))  # the last warp may be partial
    position = lane % width
    source = (lane - position) + (position ^ 4)
    valid = ((position ^ 4) < width) & (source < size)
    want = np.where(valid, t - lane + source, -1)
    np.testing.assert_array_equal(out, want.astype(np.float32))


IRREDUCIBLE = """
gpuc.func @k(%out: !gpuc.ptr<f32, global>, %c: i1) kernel {
  %f = arith.constant 1.0 : f32
  cf.cond_br %c, ^a, ^b
^a:
  gpuc.barrier
  cf.cond_br %c, ^b, ^done
^b:
  cf.cond_br %c, ^a, ^done
^done:
  gpuc.return
}
"""

FOREVER = """
gpuc.func @k(%out: !gpuc.ptr<f32, global>) kernel {
  cf.br ^spin
^spin:
  gpuc.barrier
  cf.br ^spin
}
"""


@pytest.mark.parametrize("source", [IRREDUCIBLE, FOREVER])
def test_control_flow_the_lift_leaves_keeps_the_diagnostic(source: str) -> None:
    """Irreducible control flow, and a loop without an exit, stay cf: native
    names the barrier; spirv compiles it."""
    with pytest.raises(DiagnosticException) as info:
        gpuc.compile(source, target="native")
    assert "unstructured control flow" in str(info.value)
    assert "gpuc.barrier" in str(info.value)
    gpuc.compile(source, target="spirv")


GUARDED_RETURN = """
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %i = gpuc.global_id x
  %out = arith.cmpi uge, %i, %n : index
  cf.cond_br %out, ^ret, ^work
^ret:
  gpuc.return
^work:
  gpuc.barrier
  %f = arith.constant 1.0 : f32
  gpuc.store %f, %p[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


def test_an_early_return_of_some_threads_before_a_barrier_is_a_diagnostic() -> None:
    """Lifted, the barrier is under a condition on the thread index, which
    native names (a barrier some threads skip is undefined on GPUs)."""
    with pytest.raises(DiagnosticException) as info:
        gpuc.compile(GUARDED_RETURN, target="native")
    assert "not reached by every thread of the block" in str(info.value)


def random_cfg(rng: np.random.Generator, blocks: int) -> str:
    """A kernel of `blocks` blocks with random branches, switches, returns
    and back edges (to any earlier block: some are irreducible), each
    block mixing an accumulator it gets as a block argument, which the
    returning blocks store; a fuel argument that each back edge takes one
    from bounds the loops."""
    lines = [
        "gpuc.func @k(%out: !gpuc.ptr<i32, global>, %seed: i32) kernel {",
        "  %t = gpuc.thread_id x",
        "  %ti = arith.index_cast %t : index to i32",
        "  %a0 = arith.addi %seed, %ti : i32",
        "  %f0 = arith.constant 3 : i32",
        "  %zero = arith.constant 0 : i32",
        "  %one = arith.constant 1 : i32",
        "  %five = arith.constant 5 : i32",
        "  cf.br ^b1(%a0, %f0 : i32, i32)",
    ]
    for i in range(1, blocks + 1):
        later = list(range(i + 1, blocks + 1))

        def to(j: int, fuel: str = f"%f{i}", i: int = i) -> str:
            return f"^b{j}(%n{i}, {fuel} : i32, i32)"

        lines += [
            f"^b{i}(%a{i}: i32, %f{i}: i32):",
            f"  %k{i} = arith.constant {int(rng.integers(1, 1000))} : i32",
            f"  %m{i} = arith.muli %a{i}, %five : i32",
            f"  %n{i} = arith.addi %m{i}, %k{i} : i32",
            f"  %s{i} = arith.constant {int(rng.integers(0, 8))} : i32",
            f"  %h{i} = arith.shrui %n{i}, %s{i} : i32",
            f"  %l{i} = arith.andi %h{i}, %one : i32",
            f"  %c{i} = arith.cmpi ne, %l{i}, %zero : i32",
        ]
        kind = rng.choice(["br", "cond_br", "switch", "back", "return"])
        if not later or (kind == "return" and i > 1):
            lines += [f"  gpuc.store %n{i}, %out[%t] : !gpuc.ptr<i32, global>"]
            lines += ["  gpuc.return"]
        elif kind == "br":
            lines += [f"  cf.br {to(int(rng.choice(later)))}"]
        elif kind in ("cond_br", "return"):
            j, k = rng.choice(later, 2)
            lines += [f"  cf.cond_br %c{i}, {to(int(j))}, {to(int(k))}"]
        elif kind == "switch":
            j, k, m = rng.choice(later, 3)
            lines += [
                f"  %w{i} = arith.andi %h{i}, %five : i32",
                f"  cf.switch %w{i} : i32, [default: {to(int(j))}, "
                f"1: {to(int(k))}, 4: {to(int(m))}]",
            ]
        else:
            h = int(rng.integers(1, i + 1))
            lines += [
                f"  %p{i} = arith.cmpi sgt, %f{i}, %zero : i32",
                f"  %g{i} = arith.andi %c{i}, %p{i} : i1",
                f"  %d{i} = arith.subi %f{i}, %one : i32",
                f"  cf.cond_br %g{i}, {to(h, f'%d{i}')}, {to(int(rng.choice(later)))}",
            ]
    return "\n".join([*lines, "}"])


def test_random_control_flow_computes_the_same_when_lifted() -> None:
    """`lift-cf{everywhere}` on random CFGs: the lifted kernel (no cf branch
    left) writes what the original writes on native, thread by thread."""
    from gpuc.transforms.lift_cf import LiftCf

    lifted = 0
    for case in range(24):
        text = random_cfg(rng_for("random_cfg", case), 3 + case % 8)
        module = Parser(make_context(), text).parse_module()
        LiftCf(everywhere=True).apply(make_context(), module)
        structured = " cf." not in str(module)
        lifted += structured
        want, got = np.zeros(64, np.int32), np.ones(64, np.int32)
        gpuc.compile(text, target="native")["k"][1, 64](want, case)
        gpuc.compile(module, target="native")["k"][1, 64](got, case)
        np.testing.assert_array_equal(got, want, err_msg=text)
    assert lifted >= 16, f"only {lifted} of 24 random CFGs were lifted"
