"""Every diagnostic about an imported kernel is located, never at 1:1.

Over the frontend corpus (mlir-opt-22's linalg lowerings: outlined kernels,
tiled loops gpuc converts, guarded tiles; xDSL's stencil pipeline output,
printed), one refused op goes into one kernel or loop body at a time: a
per-thread `memref.alloc` (a diagnostic about the op, at its own line) and a
workgroup buffer beyond spirv's shared-memory limit (a diagnostic about the
kernel, at the `gpu.func`, or at the `scf.parallel` gpuc made the kernel
of, which it names).
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

import gpuc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from xdsl_stencil_corpus import lower, pieces  # noqa: E402

LINALG = ROOT / "tests" / "fixtures" / "linalg"
KERNELS = re.compile(r'"(scf\.parallel|gpu\.func|gpu\.launch)"\(')
PRIVATE = (
    '%bad = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () '
    "-> memref<16xf32>"
)
SHARED = (
    '%bad_c = "arith.constant"() <{value = 1.0 : f32}> : () -> f32\n'
    '%bad = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () '
    "-> memref<400000xf32, 3>\n"
    '"memref.store"(%bad_c, %bad, IV) : (f32, memref<400000xf32, 3>, index) -> ()'
)
STENCILS = ("stencil_ops.mlir#2", "stencil-inlining.mlir#0", "canonicalize.mlir#0")


def stencil_text(name: str) -> str:
    from xdsl.printer import Printer

    out = io.StringIO()
    module = lower(dict(pieces())[name], tiled=True)
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def corpus() -> list[tuple[str, str]]:
    found = [
        (path.name, path.read_text())
        for path in sorted(LINALG.glob("programs*.mlir22.mlir"))
    ]
    try:
        available = dict(pieces())
    except Exception:  # noqa: BLE001 - no xdsl test files installed
        available = {}
    found += [(n, stencil_text(n)) for n in STENCILS if n in available]
    return found


def sites(text: str) -> list[int]:
    """The line (0-based) of each kernel, loop or launch body's first block,
    the first of each host function only."""
    lines = text.splitlines()
    chosen: list[int] = []
    function = -1
    for i, line in enumerate(lines):
        if '"func.func"(' in line or "func.func @" in line:
            function = i
        if KERNELS.search(line) and (not chosen or chosen[-1] < function):
            chosen.append(i + 1)
    return chosen


def with_op(text: str, at: int, op: str) -> tuple[str, int]:
    """`text` with `op` after the block header at line `at`, and the line
    (1-based) of op's last line."""
    lines = text.splitlines()
    header = lines[at]
    assert header.lstrip().startswith("^bb"), header
    iv = re.search(r"\^bb\d+\((%[\w.]+)", header)
    op = op.replace("IV", iv.group(1) if iv else "%bad_missing")
    new = op.splitlines()
    return "\n".join([*lines[: at + 1], *new, *lines[at + 1 :]]), at + 1 + len(new)


CASES = [(name, at) for name, text in corpus() for at in sites(text)]
TEXTS = dict(corpus())


@pytest.mark.parametrize(("name", "at"), CASES)
def test_diagnostics_are_located_at_the_users_op(name: str, at: int) -> None:
    text = TEXTS[name]
    bad, line = with_op(text, at, PRIVATE)
    with pytest.raises(Exception, match="per-thread memory") as error:
        gpuc.compile(bad, target="native")
    assert str(error.value).startswith(f"<source>:{line}:"), str(error.value)[:300]

    if not re.search(r"\^bb\d+\(%", text.splitlines()[at]):
        return  # a body without an index to store at
    bad, _ = with_op(text, at, SHARED)
    with pytest.raises(Exception, match="static shared memory") as error:
        gpuc.compile(bad, target="spirv")
    message = str(error.value)
    where = re.match(r"<source>:(\d+):(\d+): error: ", message)
    assert where and where.groups() != ("1", "1"), message[:300]
    kernel_line = bad.splitlines()[int(where.group(1)) - 1]
    assert KERNELS.search(kernel_line), (kernel_line, message[:300])
    if "gpu.func" not in kernel_line:
        assert "the kernel gpuc made of the" in message, message[:300]
