"""Compile work grows linearly with the module: counted, not timed.

Every Python function call a compile makes (`sys.setprofile`: calls into
Python and into C, generator resumptions included, so every op a walker
visits counts) is attributed to the pass or stage that made it. Modules of n
and 4n kernels (bench/scale.py's family: each kernel with a plain helper, an
always-inline one and two deferred jobs), a kernel of k and 4k ops and a
chain of m and 4m helpers (always-inline, or plain ones each called once)
are compiled for ptx, spirv and native; no pass or stage may do more than
4.5 times the work at four times the size. A per-kernel walk of the module
(the quadratic compile of issue #22) fails this at any size, and so does any
future pass that adds one.
Counts, unlike times, do not depend on the machine's load.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from gpuc.driver import Compilation, make_options, run

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
from scale import gpuc_kernel, module_text  # noqa: E402

LIMIT = 4.5
PTR = "!gpuc.ptr<f32, global>"


def counted_compile(text: str, target: str) -> Counter[str]:
    """Function calls made by each pass (`pass:<name>`) and stage of a compile
    of `text` for `target`, up to the emitted artefact."""
    counts: Counter[str] = Counter()
    pending = [0]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":
            pending[0] += 1

    def close(name: str) -> None:
        counts[name] += pending[0]
        pending[0] = 0

    def after_pass(name: str, module: object) -> None:
        close(f"pass:{name}")

    def after_stage(name: str, c: Compilation) -> None:
        close(name)

    options = make_options(target, {})
    sys.setprofile(profile)
    try:
        run(
            text,
            options,
            stop_after="emit",
            after_stage=after_stage,
            after_pass=after_pass,
        )
    finally:
        sys.setprofile(None)
    return counts


def big_kernel(ops: int) -> str:
    """One kernel whose body is a chain of `ops` arithmetic ops in an scf.if."""
    body = [f"    %v{i + 1} = arith.mulf %v{i}, %a : f32" for i in range(ops)]
    return "\n".join(
        [
            "builtin.module {",
            f"  gpuc.func @big(%x: {PTR}, %a: f32, %n: i32) kernel {{",
            "    %i = gpuc.global_id x",
            "    %n_index = arith.index_cast %n : i32 to index",
            "    %in = arith.cmpi ult, %i, %n_index : index",
            "    scf.if %in {",
            f"      %v0 = gpuc.load %x[%i] : {PTR}",
            *["  " + line for line in body],
            f"      gpuc.store %v{ops}, %x[%i] : {PTR}",
            "    }",
            "    gpuc.return",
            "  }",
            "}",
        ]
    )


def helper_chain(length: int, hint: str) -> str:
    """A kernel calling f1, f(i) calling f(i+1): `length` helpers with `hint`
    (`always_inline`, or none: each called once, which `inline` inlines at
    O1 and above as LLVM would)."""
    lines = [
        "builtin.module {",
        f"  gpuc.func @k(%x: f32, %p: {PTR}) kernel {{",
        "    %r = gpuc.call @f1(%x) : (f32) -> f32",
        f"    gpuc.store %r, %p : {PTR}",
        "    gpuc.return",
        "  }",
    ]
    for i in range(1, length + 1):
        lines += [
            f"  gpuc.func private @f{i}(%x: f32) -> f32 helper {hint} {{",
            "    %y = arith.mulf %x, %x : f32",
        ]
        if i < length:
            lines += [f"    %z = gpuc.call @f{i + 1}(%y) : (f32) -> f32"]
        lines += [f"    gpuc.return {'%z' if i < length else '%y'} : f32", "  }"]
    return "\n".join([*lines, "}"])


FAMILIES: dict[str, tuple[Callable[[int], str], int]] = {
    "kernels": (lambda n: module_text(n, gpuc_kernel), 6),
    "ops": (big_kernel, 250),
    "inline-chain": (lambda m: helper_chain(m, "always_inline"), 60),
    "single-use-chain": (lambda m: helper_chain(m, ""), 60),
}


def growth(small: Counter[str], large: Counter[str]) -> dict[str, float]:
    return {name: large[name] / max(small[name], 1) for name in large}


@pytest.mark.parametrize("target", ["ptx", "spirv", "native"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_pass_and_stage_grows_linearly(family: str, target: str) -> None:
    make, size = FAMILIES[family]
    counted_compile(make(1), target)  # first-use caches and imports
    small = counted_compile(make(size), target)
    large = counted_compile(make(4 * size), target)
    ratios = growth(small, large)
    assert "pass:finalize-kernels" in ratios and "parse" in ratios, ratios
    worst = {
        name: f"{ratio:.2f}x ({small[name]} -> {large[name]} calls)"
        for name, ratio in ratios.items()
        if ratio > LIMIT
    }
    assert not worst, (
        f"{family} x4 on {target}: work grows faster than linearly in {worst}"
    )


def test_the_count_sees_a_per_kernel_walk_of_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check fails on the bug it guards against: finalization that walks
    the whole module once per kernel (as asserts' did) grows quadratically."""
    from gpuc.dialects.functions import FuncOp
    from gpuc.targets.base import Target

    original = Target.finalize_kernel

    def walking(self: Target, kernel: FuncOp, facts: Any) -> Any:
        module = kernel.parent_op()
        assert module is not None
        sum(1 for _ in module.walk())
        return original(self, kernel, facts)

    monkeypatch.setattr(Target, "finalize_kernel", walking)
    make, size = FAMILIES["kernels"]
    counted_compile(make(1), "ptx")
    ratios = growth(
        counted_compile(make(size), "ptx"), counted_compile(make(4 * size), "ptx")
    )
    assert ratios["pass:finalize-kernels"] > LIMIT, ratios
