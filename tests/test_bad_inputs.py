"""A catalogue of bad inputs, each expecting what the user must get.

`gpuc compile` on each bad module (the dialect, deferred jobs, what a target
cannot express): exit status 1, one diagnostic on stderr that starts with the
input's `file:line:col: error:` (the line marked `// here`; the column is
where that line's op name starts, unless the case says) and contains the
case's key words; no traceback, no internal error, nothing on stdout and no
output file. The CLI runs in-process (`gpuc.cli.main.main`, the same code as the
command; a few cases also run it as a subprocess), so the catalogue is fast.

From Python: compile options, sources and launches a user can get wrong
each raise an exception of gpuc's own (its class defined in gpuc), with the
case's key words in its message.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.cli import main as cli

PTR = "!gpuc.ptr<f32, global>"


@dataclass(frozen=True)
class Bad:
    """A module `gpuc compile` must refuse with a located diagnostic."""

    id: str
    source: str
    words: tuple[str, ...]
    target: str = "native"
    col: int | None = None
    """Where the diagnostic points on the `// here` line (None: the op name)."""
    line: int | None = None
    """The line, where it is not the `// here` one (parse errors at the next
    token, a module-level check at the function)."""
    library: str | None = None
    """A library module (`--library`); its `// here` line is the one, then."""
    args: tuple[str, ...] = ()
    finding: str | None = None
    """A known bug: the case is expected to fail (strictly) for this reason."""


def kernel(body: str, params: str = f"%p: {PTR}", extra: str = "") -> str:
    """A kernel @k with `body` (lines), then `extra` functions."""
    lines = "\n".join("  " + line for line in body.strip().split("\n"))
    return f"gpuc.func @k({params}) kernel {{\n{lines}\n  gpuc.return\n}}\n{extra}"


HELPER = "gpuc.func private @h(%a: f32) -> f32 helper {\n  gpuc.return %a : f32\n}\n"
C0 = "%c0 = arith.constant 0 : index"

DIALECT = [
    Bad(
        "unknown-op",
        kernel("%x = arith.bogus %c : f32 // here", "%c: f32"),
        ("unknown operation 'arith.bogus'",),
    ),
    Bad(
        "unknown-dialect",
        kernel("%x = foo.bar %c : f32 // here", "%c: f32"),
        ("foo.bar",),
    ),
    Bad(
        "undefined-value",
        kernel("gpuc.store %v, %p : " + PTR + " // here"),
        ("use of undefined value %v",),
        col=14,
    ),
    Bad(
        "redefined-value",
        kernel(C0 + "\n%c0 = arith.constant 1 : index // here"),
        ("%c0",),
        col=3,
    ),
    Bad(
        "load-index-not-index",
        kernel(
            "%i = arith.constant 0 : i32\n%v = gpuc.load %p[%i] : " + PTR + " // here"
        ),
        ("used with type index", "i32"),
        col=21,
    ),
    Bad(
        "store-wrong-type",
        kernel("%v = arith.constant 1 : i32\ngpuc.store %v, %p : " + PTR + " // here"),
        ("used with type f32",),
        col=14,
    ),
    Bad(
        "offset-float-index",
        kernel(
            "%i = arith.constant 1.0 : f32\n%q = gpuc.offset %p[%i] : "
            + PTR
            + " // here"
        ),
        ("used with type index",),
        col=23,
    ),
    Bad(
        "cast-global-to-shared",
        kernel(
            f"%s = gpuc.addrspace_cast %p : {PTR} to !gpuc.ptr<f32, shared> // here"
        ),
        ("generic",),
    ),
    Bad(
        "cast-changes-element",
        kernel(
            f"%s = gpuc.addrspace_cast %p : {PTR} to !gpuc.ptr<i32, generic> // here"
        ),
        ("element",),
    ),
    Bad(
        "shared-alloc-zero",
        kernel("%s = gpuc.shared_alloc 0 : !gpuc.ptr<f32, shared> // here"),
        ("gpuc.shared_alloc",),
    ),
    Bad(
        "shared-alloc-overflow",
        kernel(
            "%s = gpuc.shared_alloc 9223372036854775807 : !gpuc.ptr<f32, "
            "shared> // here"
        ),
        ("shared_alloc",),
    ),
    Bad(
        "shared-alloc-global",
        kernel(f"%s = gpuc.shared_alloc 4 : {PTR} // here"),
        ("shared",),
    ),
    Bad(
        "shared-alloc-align",
        kernel("%s = gpuc.shared_alloc 4 align 3 : !gpuc.ptr<f32, shared> // here"),
        ("align",),
    ),
    Bad(
        "atomic-and-on-float",
        kernel(
            "%v = arith.constant 1.0 : f32\n%o = gpuc.atomic_rmw and %p, %v : "
            f"{PTR} // here"
        ),
        ("and",),
    ),
    Bad(
        "atomic-umax-on-float",
        kernel(
            "%v = arith.constant 1.0 : f32\n%o = gpuc.atomic_rmw umax %p, %v "
            f": {PTR} // here"
        ),
        ("umax",),
    ),
    Bad(
        "cmpxchg-on-float",
        kernel(
            "%v = arith.constant 1.0 : f32\n%o = gpuc.atomic_cmpxchg %p, %v, "
            f"%v : {PTR} // here"
        ),
        ("integer",),
    ),
    Bad(
        "atomic-unknown-kind",
        kernel(
            "%v = arith.constant 1.0 : f32\n%o = gpuc.atomic_rmw nand %p, %v "
            f": {PTR} // here"
        ),
        ("Expected `add`",),
        col=24,
    ),
    Bad(
        "atomic-unknown-ordering",
        kernel(
            "%v = arith.constant 1.0 : f32\n%o = gpuc.atomic_rmw add %p, %v "
            f"sloppy : {PTR} // here"
        ),
        ("Expected `relaxed`",),
        col=35,
    ),
    Bad(
        "dimension-w",
        kernel("%t = gpuc.thread_id w // here"),
        ("Expected `x`",),
        col=23,
    ),
    # gpuc.barrier takes no operands: `%c0` starts the next op, which fails.
    Bad(
        "barrier-with-operand",
        kernel(C0 + "\ngpuc.barrier %c0 // here"),
        ("Expected '='",),
        line=4,
        col=3,
    ),
    Bad(
        "unknown-address-space",
        kernel("gpuc.return // here", "%p: !gpuc.ptr<f32, bogus>"),
        ("unknown address space 'bogus'",),
        line=1,
        col=33,
    ),
    Bad(
        "pointer-to-i0",
        kernel(
            "%v = gpuc.load %p : !gpuc.ptr<i0, global> // here",
            "%p: !gpuc.ptr<i0, global>",
        ),
        ("cannot point to i0",),
        line=1,
        col=1,
    ),
    Bad(
        "pointer-to-none",
        kernel(
            "%v = gpuc.load %p : !gpuc.ptr<none, global> // here",
            "%p: !gpuc.ptr<none, global>",
        ),
        ("cannot point to none",),
        line=1,
        col=1,
    ),
    Bad(
        "f8-load",  # bf16 lowers (gpuc/lowering/bf16.py); 8-bit floats do not
        kernel(
            "%v = gpuc.load %p : !gpuc.ptr<f8E4M3FN, global> // here",
            "%p: !gpuc.ptr<f8E4M3FN, global>",
        ),
        ("f8E4M3FN",),
    ),
    Bad(
        "complex-load",
        kernel(
            "%v = gpuc.load %p : !gpuc.ptr<complex<f32>, global> // here",
            "%p: !gpuc.ptr<complex<f32>, global>",
        ),
        ("complex",),
    ),
    Bad(
        "vector-load",  # 2, 4, 8 or 16 elements lower (gpuc/lowering/vector.py)
        kernel(
            "%v = gpuc.load %p : !gpuc.ptr<vector<3xf32>, global> // here",
            "%p: !gpuc.ptr<vector<3xf32>, global>",
        ),
        ("vector<3xf32> cannot be lowered",),
    ),
    Bad(
        "f8-vector-load",  # located at the first op using the vector type
        kernel(
            "%v = gpuc.load %p : !gpuc.ptr<vector<4xf8E4M3FN>, global> // here",
            "%p: !gpuc.ptr<vector<4xf8E4M3FN>, global>",
        ),
        ("type f8E4M3FN has no LLVM lowering",),
    ),
    Bad(
        "kernel-returns-value",
        "gpuc.func @k(%a: f32) -> f32 kernel { // here\n  gpuc.return %a : f32\n}\n",
        ("kernel",),
        col=1,
    ),
    Bad(
        "missing-role",
        "gpuc.func @k(%a: f32) { // here\n  gpuc.return\n}\n",
        ("unknown function role", "kernel, helper"),
        col=23,
    ),
    Bad(
        "role-typo",
        "gpuc.func @k(%a: f32) kernal { // here\n  gpuc.return\n}\n",
        ("unknown function role 'kernal'",),
        col=23,
    ),
    Bad(
        "inline-hint-typo",
        "gpuc.func private @h(%a: f32) -> f32 helper forceinline { // here\n"
        "  gpuc.return %a : f32\n}\n",
        ("expected an inline hint (always_inline, no_inline)", "got 'forceinline'"),
        col=45,
    ),
    Bad(
        "empty-symbol-name",
        'gpuc.func @"" () kernel { // here\n  gpuc.return\n}\n',
        ("name",),
        col=1,
    ),
    Bad(
        "duplicate-function",
        kernel("", extra="gpuc.func @k(%p: f32) kernel { // here\n  gpuc.return\n}\n"),
        ("redefinition of symbol @k (first defined at ", ":1:1)"),
        col=1,
    ),
    Bad(
        "return-count",
        "gpuc.func private @h(%a: f32) -> f32 helper {\n  gpuc.return // here\n}\n"
        + kernel("%r = gpuc.call @h(%a) : (f32) -> f32", "%a: f32"),
        ("gpuc.return",),
    ),
    Bad(
        "return-type",
        "gpuc.func private @h(%a: f32) -> i32 helper "
        "{\n  gpuc.return %a : f32 // here\n}\n"
        + kernel("%r = gpuc.call @h(%a) : (f32) -> i32", "%a: f32"),
        ("gpuc.return",),
    ),
    Bad(
        "missing-terminator",
        "gpuc.func @k(%a: f32) kernel { // here\n  %b = arith.addf %a, %a : f32\n}\n",
        ("is not a terminator",),
        line=2,
        col=8,
    ),
    Bad(
        "unbalanced-brace",
        "gpuc.func @k(%a: f32) kernel {\n  gpuc.return\n // here",
        ("'}' closing the region opened at 1:30, got the end of the input",),
        col=1,
    ),
    Bad(
        "call-unknown",
        kernel("%r = gpuc.call @nope(%a) : (f32) -> f32 // here", "%a: f32"),
        ("@nope",),
    ),
    Bad(
        "call-arg-count",
        kernel(
            "%r = gpuc.call @h(%a, %a) : (f32, f32) -> f32 // here", "%a: f32", HELPER
        ),
        ("gpuc.call",),
    ),
    Bad(
        "call-arg-type",
        kernel(
            "%i = arith.constant 1 : i32\n%r = gpuc.call @h(%i) : (i32) -> f32 // here",
            "%a: f32",
            HELPER,
        ),
        ("gpuc.call",),
    ),
    Bad(
        "call-result-type",
        kernel("%r = gpuc.call @h(%a) : (f32) -> i32 // here", "%a: f32", HELPER),
        ("gpuc.call",),
    ),
    Bad(
        "call-a-kernel",
        kernel(
            "gpuc.call @k2() : () -> () // here",
            "%a: f32",
            "gpuc.func @k2() kernel {\n  gpuc.return\n}\n",
        ),
        ("kernel",),
    ),
    Bad(
        "func-addr-unknown",
        kernel(
            "%f = gpuc.func_addr @nope : !gpuc.funcptr<() -> ()> // here", "%a: f32"
        ),
        ("@nope",),
    ),
    Bad(
        "call-indirect-type",
        kernel(
            "%f = gpuc.func_addr @h : !gpuc.funcptr<(f32) -> f32>\n"
            "%r = gpuc.call_indirect %f(%a) : !gpuc.funcptr<(i32) -> f32> // here",
            "%a: f32",
            HELPER,
        ),
        ("used with type !gpuc.funcptr<(i32) -> f32>",),
        col=27,
    ),
    Bad(
        "launch-a-helper",
        kernel(
            C0.replace("0 :", "1 :")
            + "\ngpuc.launch @h grid(%c1) block(%c1) (%a) : (f32) // here",
            "%a: f32",
            HELPER.replace("%c0", "%c1"),
        ).replace("%c0", "%c1"),
        ("kernel",),
    ),
    Bad(
        "launch-arg-count",
        kernel(
            "%c1 = arith.constant 1 : index\n"
            "gpuc.launch @k2 grid(%c1) block(%c1) () : () // here",
            "%a: f32",
            "gpuc.func @k2(%x: f32) kernel {\n  gpuc.return\n}\n",
        ),
        ("gpuc.launch",),
    ),
    Bad(
        "addi-mixed-types",
        kernel(
            "%x = arith.constant 1 : i32\n%y = arith.constant 1 : i64\n"
            "%z = arith.addi %x, %y : i32 // here",
            "%a: f32",
        ),
        ("i64",),
        col=23,
    ),
    Bad(
        "scf-yield-type",
        kernel(
            "%c = arith.constant true\n%r = scf.if %c -> (f32) {\n"
            "  %i = arith.constant 1 : i32\n  scf.yield %i : i32 // here\n"
            "} else {\n  scf.yield %a : f32\n}",
            "%a: f32",
        ),
        ("scf.yield",),
        col=5,
    ),
    Bad(
        "scf-if-results-without-else",
        kernel(
            "%c = arith.constant true\n%r = scf.if %c -> (f32) { // here\n"
            "  scf.yield %a : f32\n}",
            "%a: f32",
        ),
        ("else",),
    ),
    Bad(
        "scf-for-step-zero",
        kernel(
            C0 + "\n%n = arith.constant 4 : index\n"
            "scf.for %i = %c0 to %n step %c0 { // here\n}",
            "%a: f32",
        ),
        ("step",),
    ),
    Bad(
        "cf-br-unknown-block",
        kernel("cf.br ^nowhere // here", "%a: f32"),
        ("missing block declarations for block(s) nowhere",),
        line=5,
        col=1,
    ),
    Bad(
        "undefined-helper-called",
        kernel(
            "%r = gpuc.call @decl(%a) : (f32) -> f32 // here",
            "%a: f32",
            "gpuc.func private @decl(f32) -> f32 helper\n",
        ),
        ("@decl",),
    ),
]

DEFERRED = [
    Bad(
        "deferred-unknown-source",
        kernel(
            "%r = gpuc.deferred_call @nope(%a) #gpuc.job<helper> : (f32) -> "
            "f32 // here",
            "%a: f32",
        ),
        ("@nope",),
    ),
    Bad(
        "deferred-arg-count",
        kernel(
            "%r = gpuc.deferred_call @h(%a, %a) #gpuc.job<helper> : (f32, f32) "
            "-> f32 // here",
            "%a: f32",
            HELPER,
        ),
        ("@h",),
    ),
    Bad(
        "deferred-arg-type",
        kernel(
            "%i = arith.constant 1 : i32\n"
            "%r = gpuc.deferred_call @h(%i) #gpuc.job<helper> : (i32) -> f32 // here",
            "%a: f32",
            HELPER,
        ),
        ("@h",),
    ),
    Bad(
        "deferred-result-type",
        kernel(
            "%r = gpuc.deferred_call @h(%a) #gpuc.job<helper> : (f32) -> i32 // here",
            "%a: f32",
            HELPER,
        ),
        ("@h",),
    ),
    Bad(
        "deferred-unknown-generator",
        kernel(
            '%r = gpuc.deferred_call @h(%a) #gpuc.job<helper, generator = "nope"> '
            ": (f32) -> f32 // here",
            "%a: f32",
            HELPER,
        ),
        ("nope",),
    ),
    Bad(
        "deferred-generator-unknown-param",
        kernel(
            "%r = gpuc.deferred_call @h(%a) #gpuc.job<helper, generator = "
            '"mock_autodiff" {bogus = 1}> : (f32) -> f32 // here',
            "%a: f32",
            HELPER,
        ),
        ("bogus",),
    ),
    Bad(
        "deferred-generator-bad-flag",
        kernel(
            "%r = gpuc.deferred_call @h(%a) #gpuc.job<helper, generator = "
            '"mock_autodiff" {always_inline = 3}> : (f32) -> f32 // here',
            "%a: f32",
            HELPER,
        ),
        ("always_inline",),
    ),
    Bad(
        "deferred-role-typo",
        kernel(
            "%r = gpuc.deferred_call @h(%a) #gpuc.job<helpr> : (f32) -> f32 // here",
            "%a: f32",
            HELPER,
        ),
        ("unknown job role 'helpr'",),
        col=44,
    ),
    Bad(
        "deferred-call-kernel-job",
        kernel(
            "%r = gpuc.deferred_call @h(%a) #gpuc.job<kernel> : (f32) -> f32 // here",
            "%a: f32",
            HELPER,
        ),
        ("kernel",),
    ),
    Bad(
        "deferred-launch-helper-job",
        kernel(
            "%c1 = arith.constant 1 : index\n"
            "gpuc.deferred_launch @k2 grid(%c1) block(%c1) (%a) #gpuc.job<helper> "
            ": (f32) // here",
            "%a: f32",
            "gpuc.func private @k2(%x: f32) kernel {\n  gpuc.return\n}\n",
        ),
        ("kernel",),
        col=None,
    ),
    Bad(
        "deferred-addr-unknown",
        kernel(
            "%f = gpuc.deferred_addr @nope #gpuc.job<helper> : "
            "!gpuc.funcptr<() -> ()> // here",
            "%a: f32",
        ),
        ("@nope",),
    ),
    Bad(
        "deferred-source-without-body",
        kernel(
            "%r = gpuc.deferred_call @decl(%a) #gpuc.job<helper> : (f32) -> "
            "f32 // here",
            "%a: f32",
            "gpuc.func private @decl(f32) -> f32 helper\n",
        ),
        ("@decl",),
    ),
    Bad(
        "deferred-always-inline-cycle",
        kernel(
            "%r = gpuc.deferred_call @a(%x) #gpuc.job<helper, always_inline> "
            ": (f32) -> f32",
            "%x: f32",
            "gpuc.func private @a(%v: f32) -> f32 helper {\n"
            "  %r = gpuc.deferred_call @b(%v) #gpuc.job<helper, always_inline> "
            ": (f32) -> f32\n"
            "  gpuc.return %r : f32\n}\n"
            "gpuc.func private @b(%v: f32) -> f32 helper {\n"
            "  %r = gpuc.deferred_call @a(%v) #gpuc.job<helper, always_inline> "
            ": (f32) -> f32 // here\n"
            "  gpuc.return %r : f32\n}\n",
        ),
        ("recursive always-inline cycle", "no_inline"),
    ),
    Bad(
        "deferred-recursion-on-spirv",
        kernel(
            "%r = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32",
            "%x: f32",
            "gpuc.func private @a(%v: f32) -> f32 helper { // here\n"
            "  %r = gpuc.deferred_call @a(%v) #gpuc.job<helper> : (f32) -> f32\n"
            "  gpuc.return %r : f32\n}\n",
        ),
        ("recursive",),
        target="spirv",
        col=1,
    ),
    Bad(
        "library-source-unknown",
        kernel(
            "%r = gpuc.deferred_call @lh(%x) #gpuc.job<helper> : (f32) -> f32",
            "%x: f32",
        ),
        ("@nope",),
        library="gpuc.func @lh(%v: f32) -> f32 helper {\n"
        "  %r = gpuc.deferred_call @nope(%v) #gpuc.job<helper> : (f32) -> f32 // here\n"
        "  gpuc.return %r : f32\n}\n",
    ),
    Bad(
        "library-does-not-parse",
        kernel(
            "%r = gpuc.deferred_call @lh(%x) #gpuc.job<helper> : (f32) -> f32",
            "%x: f32",
        ),
        ("arith.bogus",),
        library="gpuc.func @lh(%v: f32) -> f32 helper {\n"
        "  %r = arith.bogus %v : f32 // here\n  gpuc.return %r : f32\n}\n",
    ),
    Bad(
        "library-signature-differs",
        kernel(
            "%r = gpuc.deferred_call @lh(%x) #gpuc.job<helper> : (f32) -> f32 // here",
            "%x: f32",
        ),
        ("@lh",),
        library="gpuc.func @lh(%v: i32) -> i32 helper {\n  gpuc.return %v : i32\n}\n",
    ),
]

LIMITS = [
    Bad(
        "spirv-device-launch",
        kernel(
            "%c1 = arith.constant 1 : index\n"
            "gpuc.launch @k2 grid(%c1) block(%c1) (%a) : (f32) // here",
            "%a: f32",
            "gpuc.func @k2(%x: f32) kernel {\n  gpuc.return\n}\n",
        ),
        ("launches a kernel",),
        target="spirv",
    ),
    Bad(
        "spirv-function-pointer",
        kernel(
            "%f = gpuc.func_addr @h : !gpuc.funcptr<(f32) -> f32> // here",
            "%a: f32",
            HELPER,
        ),
        ("function pointer",),
        target="spirv",
    ),
    Bad(
        "spirv-i128",
        kernel("%x = arith.constant 1 : i128 // here", "%a: f32"),
        ("i128",),
        target="spirv",
    ),
    Bad(
        "spirv-atomic-i16",
        kernel(
            "%v = arith.constant 1 : i16\n"
            "%o = gpuc.atomic_rmw add %p, %v : !gpuc.ptr<i16, global> // here",
            "%p: !gpuc.ptr<i16, global>",
        ),
        ("i16",),
        target="spirv",
    ),
    Bad(
        "spirv-atomic-f16",
        kernel(
            "%v = arith.constant 1.0 : f16\n"
            "%o = gpuc.atomic_rmw add %p, %v : !gpuc.ptr<f16, global> // here",
            "%p: !gpuc.ptr<f16, global>",
        ),
        ("f16",),
        target="spirv",
    ),
    Bad(
        "spirv-generic-kernel-param",
        "gpuc.func @k(%p: !gpuc.ptr<f32, generic>) kernel { // here\n"
        "  gpuc.return\n}\n",
        ("generic",),
        target="spirv",
        col=1,
    ),
    Bad(
        "spirv-shared-over-limit",
        kernel("%s = gpuc.shared_alloc 8193 : !gpuc.ptr<f32, shared> // here"),
        ("32772 bytes of static shared memory", "32768"),
        target="spirv",
        line=1,
        col=1,
    ),
    Bad(
        "ptx-shared-over-limit",
        kernel("%s = gpuc.shared_alloc 12289 : !gpuc.ptr<f32, shared> // here"),
        ("49156 bytes of static shared memory", "49152"),
        target="ptx",
        line=1,
        col=1,
    ),
    Bad(
        "native-shared-over-limit",
        kernel("%s = gpuc.shared_alloc 1000000000 : !gpuc.ptr<f32, shared> // here"),
        ("4000000000 bytes of static shared memory",),
        line=1,
        col=1,
    ),
    Bad(
        "ptx-mangled-names-collide",
        'gpuc.func @"a.b"() kernel {\n  gpuc.return\n}\n'
        'gpuc.func @"a_$_b"() kernel { // here\n  gpuc.return\n}\n',
        ("both named 'a_$_b' in PTX",),
        target="ptx",
        col=1,
    ),
    Bad(
        "math-on-vector",
        kernel(
            "%v = arith.constant dense<1.0> : vector<4xf32>\n"
            "%r = math.sin %v : vector<4xf32> // here"
        ),
        ("math on vector<4xf32> is not supported",),
    ),
]

LIMITS += [
    Bad(
        "native-barrier-under-thread-condition",
        kernel(
            "%t = gpuc.thread_id x\n%c0 = arith.constant 0 : index\n"
            "%z = arith.cmpi eq, %t, %c0 : index\nscf.if %z {\n"
            "  gpuc.barrier // here\n}"
        ),
        ("is not reached by every thread of the block",),
    ),
    Bad(
        "native-barrier-in-thread-dependent-loop",
        kernel(
            "%t = gpuc.thread_id x\n%c0 = arith.constant 0 : index\n"
            "%c1 = arith.constant 1 : index\n"
            "scf.for %i = %c0 to %t step %c1 {\n  gpuc.barrier // here\n}"
        ),
        ("barrier", "thread"),
    ),
]

LIMITS += [
    Bad(
        "import-reinterpret-strided-kernel-param",
        "func.func @k(%a: memref<4xf32, strided<[2], offset: ?>>) attributes "
        "{gpu.kernel} {\n"
        "  %r = memref.reinterpret_cast %a to offset: [0], sizes: [4], strides: "
        "[1] : memref<4xf32, strided<[2], offset: ?>> to memref<4xf32> // here\n"
        "  return\n}\n",
        ("reinterprets kernel parameter", "memref.subview the parameter instead"),
        col=8,
    ),
    Bad(
        "import-space-cast-workgroup-to-global",
        "func.func @k(%a: memref<4xf32, 3>) attributes {gpu.kernel} {\n"
        "  %g = memref.memory_space_cast %a : memref<4xf32, 3> to memref<4xf32>"
        " // here\n  return\n}\n",
        ("casts shared memory to global memory", "#gpuc<space generic>"),
    ),
    Bad(
        "spirv-space-cast-constant-to-generic",
        "func.func @k(%a: memref<4xf32, 4>) attributes {gpu.kernel} {\n"
        "  %g = memref.memory_space_cast %a : memref<4xf32, 4> to "
        "memref<4xf32, #gpuc<space generic>> // here\n  return\n}\n",
        ("constant and generic memory", "OpenCL"),
        target="spirv",
    ),
]

CATALOGUE = DIALECT + DEFERRED + LIMITS


def here(text: str) -> tuple[int, str]:
    """The `// here` line's number and text (the marker removed)."""
    for number, line in enumerate(text.split("\n"), 1):
        if "// here" in line:
            return number, line.replace(" // here", "").rstrip()
    raise AssertionError("no // here line")


def op_column(line: str) -> int:
    """Where the line's op name starts (after `%results = `)."""
    m = re.match(r"\s*(?:%[\w.$#:, %-]+=\s*)?", line)
    assert m is not None
    return m.end() + 1


def run_cli(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("GPUC_DEBUG", raising=False)


def params(cases: list[Bad]) -> list[Any]:
    return [
        pytest.param(
            c,
            id=c.id,
            marks=[pytest.mark.xfail(strict=True, reason=c.finding)]
            if c.finding
            else [],
        )
        for c in cases
    ]


@pytest.mark.parametrize("case", params(CATALOGUE))
def test_bad_module_is_a_located_diagnostic(
    case: Bad, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.mlir"
    source.write_text(case.source.replace(" // here", ""))
    argv = ["compile", str(source), "--target", case.target, *case.args]
    located, text = source, case.source
    if case.library is not None:
        lib = tmp_path / "lib.mlir"
        lib.write_text(case.library.replace(" // here", ""))
        argv += ["--library", str(lib)]
        if "// here" in case.library:
            located, text = lib, case.library
    out = tmp_path / "out.bin"
    argv += ["-o", str(out)]
    status, stdout, stderr = run_cli(argv, capsys)
    line, line_text = here(text)
    col = case.col if case.col is not None else op_column(line_text)
    line = case.line or line
    assert status == 1, stderr
    assert stdout == ""
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    prefix = f"{source}: error: in library {located}:\n"
    if located != source and stderr.startswith(prefix):  # the library as a file
        stderr = stderr[len(prefix) :]
    assert stderr.startswith(f"{located}:{line}:{col}: error:"), stderr
    for word in case.words:
        assert word in stderr, stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["bad.mlir"] + (["lib.mlir"] if case.library else [])
    )


@pytest.mark.parametrize(
    "case_id", ["unknown-op", "spirv-device-launch", "deferred-unknown-source"]
)
def test_the_command_itself_fails_the_same_way(case_id: str, tmp_path: Path) -> None:
    case = next(c for c in CATALOGUE if c.id == case_id)
    source = tmp_path / "bad.mlir"
    source.write_text(case.source.replace(" // here", ""))
    out = tmp_path / "out.bin"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuc.cli",
            "compile",
            str(source),
            "--target",
            case.target,
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    line, line_text = here(case.source)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{source}:{line}:{op_column(line_text)}: error:")
    assert not out.exists()


# ---------------------------------------------------------------------------
# The Python API: each call must raise an exception class of gpuc's own.

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "examples" / "saxpy.mlir"
REDUCE = ROOT / "examples" / "reduce.mlir"
SHAPES = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %n: i32, %h: i16, %f: f64,
             %u: !gpuc.ptr<i64, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


@dataclass(frozen=True)
class Call:
    id: str
    call: Callable[[], Any]
    words: tuple[str, ...]
    base: type[BaseException] = Exception
    """The exception must also be one of these (e.g. a KeyError)."""


_modules: dict[tuple[str, str], gpuc.Module] = {}


def module(name: str, target: str = "native") -> gpuc.Module:
    if (name, target) not in _modules:
        source = {"saxpy": SAXPY, "reduce": REDUCE}.get(name)
        _modules[name, target] = gpuc.compile(
            source if source else SHAPES, target=target
        )
    return _modules[name, target]


def spirv_saxpy(*args: Any, grid: Any = (1,), block: Any = (8,)) -> None:
    module("saxpy", "spirv").launch("saxpy", grid=grid, block=block, args=args)


def saxpy(*args: Any, grid: Any = (1,), block: Any = (8,)) -> None:
    module("saxpy").launch("saxpy", grid=grid, block=block, args=args)


def shapes(*args: Any, grid: Any = (1,), block: Any = (8,)) -> None:
    module("shapes").launch("k", grid=grid, block=block, args=args)


X = np.zeros(8, np.float32)
U = np.zeros(8, np.int64)
OK = (X, 8, 1, 1.0, U)
RO = np.zeros(8, np.float32)
RO.setflags(write=False)

CALLS = [
    Call("compile-int-source", lambda: gpuc.compile(123, target="native"), ("got",)),
    Call("compile-bytes", lambda: gpuc.compile(b"x", target="native"), ("decode",)),
    Call(
        "compile-syntax-error",
        lambda: gpuc.compile("gpuc.func @k(", target="native"),
        ("error",),
    ),
    Call("compile-unknown-target", lambda: gpuc.compile(SAXPY, target="tpu"), ("tpu",)),
    Call(
        "compile-unknown-option",
        lambda: gpuc.compile(SAXPY, target="native", bogus=1),
        ("bogus",),
    ),
    Call(
        "compile-opt-level-7",
        lambda: gpuc.compile(SAXPY, target="native", opt_level=7),
        ("7",),
    ),
    Call(
        "compile-sm-for-native",
        lambda: gpuc.compile(SAXPY, target="native", sm=80),
        ("sm",),
    ),
    Call(
        "compile-missing-file",
        lambda: gpuc.compile(ROOT / "nope.mlir", target="native"),
        ("nope.mlir",),
    ),
    Call(
        "compile-missing-library",
        lambda: gpuc.compile(SAXPY, target="native", libraries=("/nonexistent.mlir",)),
        ("nonexistent",),
    ),
    Call(
        "compile-verifier-error",
        lambda: gpuc.compile(
            DIALECT[4].source.replace(" // here", ""), target="native"
        ),
        ("index",),
    ),
    Call("unknown-kernel-index", lambda: module("saxpy")["nope"], ("nope",), KeyError),
    Call(
        "unknown-kernel-launch",
        lambda: module("saxpy").launch("nope", 1, 1, ()),
        ("nope",),
        KeyError,
    ),
    Call("too-few-args", lambda: saxpy(np.float32(1), X, X), ("argument",)),
    Call("too-many-args", lambda: saxpy(np.float32(1), X, X, 8, 9), ("argument",)),
    Call("array-for-scalar", lambda: saxpy(X, X, X, 8), ("f32",)),
    Call("scalar-for-array", lambda: saxpy(1.0, 1.0, X, 8), ("array",)),
    Call(
        "wrong-dtype", lambda: saxpy(1.0, np.zeros(8, np.float64), X, 8), ("float64",)
    ),
    Call(
        "int-array-for-float",
        lambda: saxpy(1.0, np.zeros(8, np.int32), X, 8),
        ("int32",),
    ),
    Call("read-only-written-array", lambda: saxpy(1.0, X, RO, 8), ("writ",)),
    Call(
        "non-contiguous-array",
        lambda: saxpy(1.0, np.zeros(16, np.float32)[::2], X, 8),
        ("contiguous",),
    ),
    Call("list-for-array", lambda: saxpy(1.0, [0.0] * 8, X, 8), ("array",)),
    Call("float-for-int", lambda: shapes(X, 1.5, 1, 1.0, U), ("i32",)),
    Call("int-out-of-range", lambda: shapes(X, 2**40, 1, 1.0, U), ("i32",)),
    Call("i16-out-of-range", lambda: shapes(X, 1, 70000, 1.0, U), ("i16",)),
    Call("string-for-int", lambda: shapes(X, "8", 1, 1.0, U), ("i32",)),
    Call("none-for-float", lambda: shapes(X, 8, 1, None, U), ("f64",)),
    Call("huge-for-float", lambda: shapes(X, 8, 1, 10**400, U), ("f64",)),
    Call("grid-four-dims", lambda: saxpy(1.0, X, X, 8, grid=(1, 1, 1, 1)), ("grid",)),
    Call("grid-zero", lambda: saxpy(1.0, X, X, 8, grid=(0,)), ("grid",)),
    Call("grid-negative", lambda: saxpy(1.0, X, X, 8, grid=(-1,)), ("grid",)),
    Call("grid-float", lambda: saxpy(1.0, X, X, 8, grid=(1.5,)), ("grid",)),
    Call("grid-string", lambda: saxpy(1.0, X, X, 8, grid="1"), ("grid",)),
    Call("block-zero", lambda: saxpy(1.0, X, X, 8, block=(0,)), ("block",)),
    Call("block-too-large", lambda: saxpy(1.0, X, X, 8, block=(1 << 20,)), ("block",)),
    Call("block-empty", lambda: saxpy(1.0, X, X, 8, block=()), ("block",)),
    Call(
        "kernel-without-config",
        lambda: module("saxpy")["saxpy"](1.0, X, X, 8),
        ("launch",),
    ),
    Call("kernel-grid-only", lambda: module("saxpy")["saxpy"][1], ("grid, block",)),
    Call("spirv-too-few-args", lambda: spirv_saxpy(np.float32(1), X, X), ("argument",)),
    Call(
        "spirv-wrong-dtype",
        lambda: spirv_saxpy(1.0, np.zeros(8, np.float64), X, 8),
        ("float64",),
    ),
    Call(
        "spirv-block-too-large",
        lambda: spirv_saxpy(1.0, X, X, 8, block=(1 << 20,)),
        ("block",),
    ),
    Call("spirv-grid-zero", lambda: spirv_saxpy(1.0, X, X, 8, grid=(0,)), ("grid",)),
    Call(
        "barrier-block-over-shared",
        lambda: module("reduce").launch(
            "reduce", (1,), (2048,), (X, np.zeros(1, np.float32), 8)
        ),
        ("block",),
    ),
]


def is_gpucs(error: BaseException) -> bool:
    return any(c.__module__.split(".")[0] == "gpuc" for c in type(error).__mro__)


@pytest.mark.parametrize("case", CALLS, ids=[c.id for c in CALLS])
def test_bad_python_call_raises_a_gpuc_exception(case: Call) -> None:
    with pytest.raises(Exception) as info:
        case.call()
    error = info.value
    assert is_gpucs(error), f"{type(error).__module__}.{type(error).__name__}: {error}"
    assert isinstance(error, case.base)
    for word in case.words:
        assert word in str(error), str(error)


ASSERTS = """
gpuc.func @k(%p: !gpuc.ptr<i32, global>) kernel {
  %c = arith.constant false
  cf.assert %c, "boom"
  gpuc.return
}
"""


def test_a_failing_assert_on_native_is_a_launch_error() -> None:
    # In a child: it ended the process that made the launch (SIGILL, llvm.trap).
    script = (
        "import numpy as np, gpuc, sys\n"
        f"m = gpuc.compile({ASSERTS!r}, target='native')\n"
        "try:\n"
        "    m.launch('k', (1,), (1,), (np.zeros(1, np.int32),))\n"
        "except gpuc.LaunchError as e:\n"
        "    print('LaunchError:', e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "LaunchError:" in result.stdout and "boom" in result.stdout
