"""Compile a generated program for every target, run it, compare with the
reference interpreter; minimize a program that disagrees.

`check(seed)` is one program: native and spirv run it (the in-process JIT,
and Intel's OpenCL CPU runtime through the spirv executor) on inputs made
from the seed (NaNs with payloads, infinities, signed zeros, subnormals,
integer extremes) with outputs poisoned first, and every output must agree
with the reference; ptx is compiled with validation (ptxas). Floats are
compiled without contraction (`fp_contract=False`), so IEEE arithmetic is
exact on every target and compared bit for bit (NaNs as NaNs, since MLIR
leaves their payload unspecified once computed with); copies of bits
(loads, constants, selects, bitcasts, negf, absf, copysign) keep them, and
are compared bit for bit, NaN payloads included; math functions that no
standard requires to be correctly rounded are compared within a tolerance.
"""

from __future__ import annotations

import os
import re
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import generator as g
from .reference import NP_FLOAT, Interpreter, UndefinedBehaviour, parse

TARGETS = ("native", "spirv", "ptx")
RUN_TARGETS = ("native", "spirv")
DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, **NP_FLOAT}
POISON = {
    "i8": 0xA5,
    "i16": 0xA5A5,
    "i32": 0xA5A5A5A5,
    "i64": 0xA5A5A5A5A5A5A5A5,
    "f16": 0xDEAD,
    "f32": 0xDEADBEEF,
    "f64": 0xDEADBEEFDEADBEEF,
}
"""Output poison: finite floats, so that an element never written never
compares equal to a NaN."""
TOLERANCE = {"f32": 1e-5, "f64": 1e-11}
TINY = {"f16": 6.2e-5, "f32": 1.2e-38, "f64": 2.3e-308}


@dataclass
class Finding:
    """What went wrong with one program on one target."""

    target: str
    kind: str
    """mismatch, compile (a valid program rejected or a crash), launch."""
    detail: str

    def signature(self) -> tuple[str, str]:
        return (self.target, self.kind)


@dataclass
class Outcome:
    seed: int
    findings: list[Finding] = field(default_factory=list)
    invalid: str | None = None
    """Why the reference refused the program (a generator bug)."""
    text: str = ""
    library: str | None = None


def unsigned(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return a.view(f"u{a.dtype.itemsize}")


def make_args(
    kernel: g.Function,
    rng: np.random.Generator,
    pyrng: Any,
    avoid: frozenset[str] = frozenset(),
) -> list[Any]:
    """Fresh arguments of `kernel`, as its parameters' roles say."""
    args: list[Any] = []
    for p in kernel.params:
        if p.role == "scalar":
            if p.elem in NP_FLOAT:
                bits = g.random_float_bits(pyrng, p.elem)
                args.append(
                    np.frombuffer(
                        int(bits).to_bytes(g.FLOAT_BITS[p.elem] // 8, "little"),
                        DTYPES[p.elem],
                    )[0]
                )
            else:
                raw = g.random_int(pyrng, g.WIDTH[p.elem])
                args.append(
                    DTYPES[p.elem](
                        np.array(raw, f"u{g.WIDTH[p.elem] // 8}").view(DTYPES[p.elem])
                    )
                )
            continue
        length = p.length
        if p.role == "out":
            length = kernel.threads * max(len(kernel.slots.get(p.elem, [])), 1)
        dtype = np.dtype(DTYPES[p.elem])
        a = np.empty(length, dtype)
        if p.role == "out":
            unsigned(a)[:] = POISON[p.elem]
        elif p.role == "acc" and p.elem in NP_FLOAT:
            a[:] = rng.integers(-50, 50, length)
        elif p.elem in NP_FLOAT:
            unsigned(a)[:] = [g.random_float_bits(pyrng, p.elem) for _ in range(length)]
        else:
            w = g.WIDTH[p.elem]
            unsigned(a)[:] = [g.random_int(pyrng, w) for _ in range(length)]
        args.append(a)
    return args


def copy_args(args: list[Any]) -> list[Any]:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def compare(
    got: np.ndarray[Any, Any], want: np.ndarray[Any, Any], mode: str, ty: str
) -> np.ndarray[Any, Any]:
    """Where `got` differs from `want` (a boolean array)."""
    bits_differ = unsigned(got) != unsigned(want)
    if ty not in NP_FLOAT or mode == g.BITS:
        return bits_differ
    both_nan = np.isnan(got) & np.isnan(want)
    if mode == g.VALUE:
        return bits_differ & ~both_nan
    with np.errstate(all="ignore"):
        gf, wf = got.astype(np.float64), want.astype(np.float64)
        if mode == g.NOZERO:
            return (gf != wf) & ~both_nan
        close = np.abs(gf - wf) <= TINY[ty] + TOLERANCE.get(ty, 1e-2) * np.abs(wf)
        same = (gf == wf) | both_nan | close
    return ~same


def output_modes(kernel: g.Function, p: g.Param, n: int) -> list[str]:
    if p.role == "out":
        modes = kernel.slots.get(p.elem, [g.BITS])
        return (modes or [g.BITS]) * kernel.threads
    # Float atomics: LLVM's fmin/fmax may keep either zero of equal operands.
    return [g.NOZERO if p.elem in NP_FLOAT else g.BITS] * n


def mismatches(kernel: g.Function, got: list[Any], want: list[Any]) -> list[str]:
    lines: list[str] = []
    for p, a, b in zip(kernel.params, got, want, strict=True):
        if p.role in ("in", "scalar"):
            continue
        modes = output_modes(kernel, p, len(a))
        for mode in set(modes):
            mask = np.array([m == mode for m in modes]) & compare(a, b, mode, p.elem)
            for i in np.flatnonzero(mask)[:4]:
                where = f"{p.name}[{i}]"
                if p.role == "out":
                    k = max(len(kernel.slots.get(p.elem, [])), 1)
                    where += f" (thread {i // k}, slot {i % k})"
                lines.append(
                    f"@{kernel.name} {where} ({mode}): got {fmt(a[i], p.elem)}"
                    f", expected {fmt(b[i], p.elem)}"
                )
    return lines


def fmt(x: Any, ty: str) -> str:
    if ty in NP_FLOAT:
        bits = int(np.array(x).view(f"u{np.dtype(DTYPES[ty]).itemsize}"))
        return f"{float(x)!r} (0x{bits:0{g.FLOAT_BITS[ty] // 4}X})"
    return str(int(x))


class Checker:
    """Runs programs; holds the library file it writes for them."""

    def __init__(self, targets: tuple[str, ...] = TARGETS) -> None:
        self.targets = targets
        self.tmp = tempfile.TemporaryDirectory(prefix="gpuc-fuzz-")

    def close(self) -> None:
        self.tmp.cleanup()

    def check(
        self, program: g.Program, seed: int, only: tuple[str, ...] | None = None
    ) -> Outcome:
        text, library = program.text(), program.library_text()
        out = Outcome(seed, text=text, library=library)
        libraries: tuple[str, ...] = ()
        lib_modules = []
        sources = {"program.mlir": text}
        if library is not None:
            path = Path(self.tmp.name) / "library.mlir"
            path.write_text(library)
            libraries = (str(path),)
            lib_modules = [parse(library, "library.mlir")]
            sources["library.mlir"] = library
        # The reference first: a program it refuses is not compared.
        rng = np.random.default_rng(seed)
        import random

        pyrng = random.Random(seed ^ 0x5EED)
        launches = []
        try:
            module = parse(text, "program.mlir")
            interp = Interpreter(module, lib_modules, sources)
            for k in program.kernels:
                args = make_args(k, rng, pyrng, program.avoid)
                want = copy_args(args)
                interp.launch(k.name, k.grid, k.block, want)
                launches.append((k, args, want))
        except UndefinedBehaviour as e:
            out.invalid = f"undefined behaviour: {e}"
            return out
        except Exception as e:  # noqa: BLE001 - the generator made bad text
            out.invalid = f"the reference cannot run it: {describe(e)}"
            return out
        for target in only or self.targets:
            finding = self.check_target(program, target, text, libraries, launches)
            if finding is not None:
                out.findings.append(finding)
        return out

    def check_target(
        self,
        program: g.Program,
        target: str,
        text: str,
        libraries: tuple[str, ...],
        launches: list[Any],
    ) -> Finding | None:
        import gpuc

        try:
            mod = gpuc.compile(
                text,
                target=target,
                opt_level=program.opt_level,
                fp_contract=False,
                libraries=libraries,
                validate=target != "native",
            )
        except Exception as e:  # noqa: BLE001 - every failure is a finding
            return Finding(target, "compile", describe(e))
        if target not in RUN_TARGETS:
            return None
        for k, args, want in launches:
            got = copy_args(args)
            try:
                mod.launch(k.name, grid=k.grid, block=k.block, args=got)
            except Exception as e:  # noqa: BLE001
                return Finding(target, "launch", f"@{k.name}: {describe(e)}")
            diffs = mismatches(k, got, want)
            if diffs:
                return Finding(target, "mismatch", "\n".join(diffs[:12]))
        return None


def describe(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}"
    if os.environ.get("GPUC_FUZZ_TRACEBACK"):
        text += "\n" + "".join(traceback.format_exception(e))
    return text[:3000]


def check_seed(
    checker: Checker,
    seed: int,
    size: int = 12,
    avoid: frozenset[str] = frozenset(),
    removed: frozenset[int] = frozenset(),
    dropped: frozenset[str] = frozenset(),
) -> Outcome:
    """Check the program of `seed`, less the nodes numbered `removed` (in
    `numbered` order) and the functions named `dropped`."""
    program = g.generate(seed, size, avoid)
    if removed or dropped:
        reduce(program, removed, dropped)
    return checker.check(program, seed)


def numbered(program: g.Program) -> list[g.Node]:
    """Every node of every function, outermost first: a node's number."""
    return [n for f in program.functions() for n in f.all_nodes()]


def reduce(
    program: g.Program, removed: frozenset[int], dropped: frozenset[str]
) -> None:
    for i, node in enumerate(numbered(program)):
        node.removed = i in removed
    for funcs in (program.kernels, program.helpers, program.library):
        funcs[:] = [f for f in funcs if f.name not in dropped]


# ---------------------------------------------------------------------------
# Minimization: delete nodes (deepest last) while the same finding persists.


def minimize(
    checker: Checker,
    seed: int,
    finding: Finding,
    size: int = 12,
    avoid: frozenset[str] = frozenset(),
    budget: float = 90.0,
) -> tuple[str, str | None]:
    """The smallest program found (and its library) that still shows
    `finding`'s kind on its target, within about `budget` seconds."""
    import time

    program = g.generate(seed, size, avoid)
    deadline = time.monotonic() + budget

    def out_of_time() -> bool:
        return time.monotonic() > deadline

    def still_fails() -> bool:
        out = checker.check(program, seed, only=(finding.target,))
        return out.invalid is None and any(
            f.signature() == finding.signature() and same_kind(f, finding)
            for f in out.findings
        )

    # Whole kernels first, then nodes, outermost first.
    for k in list(program.kernels):
        if len(program.kernels) > 1 and not out_of_time():
            i = program.kernels.index(k)
            program.kernels.remove(k)
            if not still_fails():
                program.kernels.insert(i, k)

    def drop_helpers() -> None:
        for funcs in (program.helpers, program.library):
            for f in list(funcs):
                if not out_of_time():
                    i = funcs.index(f)
                    funcs.remove(f)
                    if not still_fails():
                        funcs.insert(i, f)

    drop_helpers()
    changed = True
    while changed and not out_of_time():
        changed = False
        for func in list(program.functions()):
            for node in list(func.all_nodes()):
                if node.removed or out_of_time():
                    continue
                node.removed = True
                if still_fails():
                    changed = True
                else:
                    node.removed = False
    drop_helpers()  # those the deleted nodes called
    library = program.library_text()
    return drop_unused_constants(program.text()), (
        None if library is None else drop_unused_constants(library)
    )


CONSTANT_LINE = re.compile(r"^\s*%([\w.$-]+) = arith\.constant [^\n]*$", re.MULTILINE)


def drop_unused_constants(text: str) -> str:
    """`text` without the constants nothing uses (what deleted nodes left)."""
    while True:
        unused = [
            m
            for m in CONSTANT_LINE.finditer(text)
            if not re.search(rf"%{re.escape(m.group(1))}\b(?! =)", text)
        ]
        if not unused:
            return text
        for m in reversed(unused):
            text = text[: m.start()] + text[m.end() + 1 :]


def same_kind(a: Finding, b: Finding) -> bool:
    """Compile failures must keep their first line's gist (not any error)."""
    if a.kind != "compile":
        return True
    return first_words(a.detail) == first_words(b.detail)


def first_words(detail: str) -> str:
    head = detail.split("\n", 1)[0]
    return head.split(":", 1)[0] + ":" + " ".join(head.split()[1:4])


Report = Callable[[str], None]
