"""Every problem with a Python kernel is a KernelError at the user's line:
`file.py:line:col: error: ...`, the line and a caret; never MLIR text the
user did not write, never the frontend's frames. Each case is a kernel in a
file of its own; `@` marks the column the diagnostic must point at (it is
removed before the file is written).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest

import gpuc

ROOT = Path(__file__).resolve().parent.parent
HEADER = """\
import math
import gpuc
F = gpuc.Array[gpuc.f32, 1]
items = [1, 2]
"""

CASES = {
    "class": ("    @class A:\n        pass", "classes are not supported"),
    "try": (
        "    @try:\n        x[0] = 1.0\n    except Exception:\n        pass",
        "try/except are not supported",
    ),
    "with": ("    @with open('f'):\n        pass", "with statements are not supported"),
    "dict": ("    d = @{1: 2}", "dicts are not supported"),
    "list": ("    d = @[1, 2]", "lists (use gpuc.local"),
    "comprehension": (
        "    d = @[i for i in range(3)]",
        "list comprehensions are not supported",
    ),
    "generator": (
        "    d = @(i for i in range(3))",
        "generator expressions are not supported",
    ),
    "yield": ("    @yield 1", "generators (yield) are not supported"),
    "lambda": ("    f = @lambda v: v", "lambda functions are not supported"),
    "nested def": ("    @def g():\n        pass", "nested functions (closures)"),
    "global": ("    @global items", "global statements"),
    "string": ("    s = @'text'", "strings are allowed only as print"),
    "f-string": ("    print(@f'{x[0]}')", "f-strings"),
    "mutable global": ("    x[0] = @items[0]", "'items' is 'list'"),
    "slice": ("    x[@1:2] = 1.0", "slices are not supported"),
    "for over a list": (
        "    for i in @x:\n        pass",
        "loop over range(start, stop, step) only",
    ),
    "for else": (
        "    @for i in range(3):\n        pass\n    else:\n        pass",
        "for ... else is not supported",
    ),
    "i32 + f32": (
        "    x[0] = @n + x[1]",
        "'+' mixes i32 and f32; write gpuc.f32(...) around the i32 operand",
    ),
    "f16 + f32": (
        "    x[0] = @gpuc.f16(1.0) + x[1]",
        "mixes f16 and f32; convert one operand",
    ),
    "float index": ("    x[@0.5] = 1.0", "index 0 is the float 0.5"),
    "negative index": ("    x[@-1] = 1.0", "negative index -1"),
    "two indices": ("    @x[0, 1] = 1.0", "has 1 dimension(s), indexed with 2"),
    "integer /": ("    k = @n / 2", "write '//' for integer division"),
    "undefined": ("    x[0] = @nothing", "name 'nothing' is not defined"),
    "one path": (
        "    if x[0] > 0:\n        y = 1.0\n    x[1] = @y",
        "'y' is not defined here: it is assigned only on some paths",
    ),
    "loop only": (
        "    for i in range(3):\n        y = 1.0\n    x[1] = @y",
        "assigned only inside the loop",
    ),
    "type change": (
        "    @if x[0] > 0:\n        v = n\n    else:\n        v = x[0]\n    x[1] = v",
        "'v' is i32 on one path and f32 on another",
    ),
    "return a value": ("    @return 1", "kernels return nothing"),
    "keyword": (
        "    k = @gpuc.thread_id(axis=0)",
        "keyword arguments are not supported",
    ),
    "bad axis": ("    k = @gpuc.thread_id(3)", "axis must be 0, 1 or 2"),
    "range step 0": (
        "    for i in @range(0, 3, 0):\n        pass",
        "step must not be zero",
    ),
    "shape not constant": (
        "    s = @gpuc.shared((n,), gpuc.f32)",
        "shape must be an integer known at compile time",
    ),
    "math on an int": (
        "    x[0] = @math.exp(n)",
        "math.exp() takes a float; write gpuc.f32(...)",
    ),
    "call a kernel": ("    @other(x, n)", "cannot be called from device code"),
    "call Python": ("    @sorted(n)", "'sorted' cannot be called in a kernel"),
    "array attribute": ("    k = @x.dtype", "an array has .shape, .strides and .ndim"),
    "set": ("    s = @{1, 2}", "sets are not supported"),
    "walrus": ("    if (@k := n) > 0:\n        pass", "assignment expressions"),
    "match": ("    @match n:\n        case 1:\n            pass", "match statements"),
    "del": ("    k = 1\n    @del k", "del statements are not supported"),
    "raise": ("    @raise ValueError()", "raise statements (use assert)"),
    "starred": ("    print(@*x.shape)", "starred expressions"),
    "in": ("    if @n in (1, 2):\n        pass", "'in' comparisons"),
    "None": ("    v = @None", "the literal None has no gpuc type"),
    "shared array through an address": (
        "    s = gpuc.shared((4,), gpuc.f32)\n    f = gpuc.address(first)\n"
        "    x[0] = f(@s)",
        "a function called through its gpuc.address() takes arrays in global",
    ),
}

KERNEL = """
@gpuc.kernel
def other(x: F, n: gpuc.i32):
    pass


@gpuc.func
def first(a: F) -> gpuc.f32:
    return a[0]


@gpuc.kernel
def k(x: F, n: gpuc.i32):
{body}
"""


def load(tmp_path: Path, name: str, source: str) -> object:
    path = tmp_path / f"{name.replace(' ', '_').replace('/', '_')}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def marked(source: str) -> tuple[str, int, int]:
    """`source` without its `@` marker, and the marker's line and column."""
    for number, line in enumerate(source.splitlines(), start=1):
        if "@" in line and not line.lstrip().startswith("@gpuc"):
            col = line.index("@") + 1
            return source.replace(line, line.replace("@", "", 1)), number, col
    raise AssertionError("no marker")


@pytest.mark.parametrize("name", sorted(CASES))
def test_located_diagnostic(tmp_path: Path, name: str) -> None:
    body, message = CASES[name]
    source, line, col = marked(HEADER + KERNEL.format(body=body))
    module = load(tmp_path, name, source)
    with pytest.raises(gpuc.KernelError) as info:
        gpuc.to_mlir(module.k)  # type: ignore[attr-defined]
    text = str(info.value)
    path = tmp_path / f"{name.replace(' ', '_').replace('/', '_')}.py"
    first, shown, caret = text.splitlines()[:3]
    assert first.startswith(f"{path}:{line}:{col}: error: "), text
    assert message in first, text
    assert shown == source.splitlines()[line - 1]
    assert caret == " " * (col - 1) + "^"
    frames = traceback.extract_tb(info.value.__traceback__)
    api = {"to_mlir", "build_module"}
    assert not any("gpuc/python/" in f.filename and f.name not in api for f in frames)


def test_recursion(tmp_path: Path) -> None:
    source = HEADER + textwrap.dedent(
        """
        @gpuc.func
        def down(n: gpuc.i32) -> gpuc.i32:
            return down(n - 1) if n > 0 else n


        @gpuc.kernel
        def k(x: gpuc.Array[gpuc.i32, 1]):
            x[0] = down(3)
        """
    )
    module = load(tmp_path, "recursion", source)
    with pytest.raises(gpuc.KernelError, match=r"recursion \(k -> down -> down\)") as e:
        gpuc.to_mlir(module.k)  # type: ignore[attr-defined]
    assert str(e.value).startswith(f"{tmp_path / 'recursion.py'}:8:12: error:")


def test_missing_annotation(tmp_path: Path) -> None:
    module = load(
        tmp_path, "annotation", HEADER + "@gpuc.kernel\ndef k(x):\n    pass\n"
    )
    with pytest.raises(gpuc.KernelError, match="parameter 'x' needs a type annotation"):
        gpuc.to_mlir(module.k)  # type: ignore[attr-defined]


def test_pipeline_error_at_the_python_line(tmp_path: Path) -> None:
    """A diagnostic of the compiler's own passes (a barrier some threads of a
    block skip, which the native target refuses) names the Python line."""
    source = HEADER + textwrap.dedent(
        """
        @gpuc.kernel
        def k(x: F):
            if gpuc.thread_id(0) < 4:
                gpuc.barrier()
        """
    )
    module = load(tmp_path, "barrier", source)
    with pytest.raises(gpuc.KernelError) as e:
        gpuc.compile(module.k, "native")  # type: ignore[attr-defined]
    text = str(e.value)
    assert text.startswith(f"{tmp_path / 'barrier.py'}:9:9: error: 'gpuc.barrier' op ")
    assert "gpuc.barrier()" in text.splitlines()[1]
    assert "%" not in text  # no MLIR the user did not write


def test_calling_a_kernel_from_python() -> None:
    @gpuc.kernel
    def k(x: gpuc.Array[gpuc.f32, 1]):
        pass

    with pytest.raises(TypeError, match=r"k\[grid, block\]"):
        k(None)
    with pytest.raises(RuntimeError, match="only inside a @gpuc.kernel"):
        gpuc.thread_id(0)


def test_tools_point_at_python_lines(tmp_path: Path) -> None:
    """A checked-mode fault, `-g` line tables and `gpuc explain` name the
    `.py` file and line."""
    import numpy as np

    from gpuc.explain import explain

    source = HEADER + textwrap.dedent(
        """
        @gpuc.func
        def twice(v: gpuc.f32) -> gpuc.f32:
            return v + v


        @gpuc.kernel
        def k(x: F):
            i = gpuc.global_id(0)
            x[i + 1] = gpuc.deferred(twice, inline="never")(x[i])
        """
    )
    module = load(tmp_path, "tools", source)
    path = tmp_path / "tools.py"
    x = np.zeros(8, np.float32)
    mod = gpuc.compile(module.k, "native", checked=True)  # type: ignore[attr-defined]
    with pytest.raises(gpuc.LaunchError, match=f"{path}:14:5: 'gpuc.store' outside"):
        mod["k"][1, 8](x)
    ptx = gpuc.compile(module.k, "ptx", line_info=True).artefact  # type: ignore[attr-defined]
    assert isinstance(ptx, str) and f'"{path}"' in ptx and "\t.loc\t1 14 " in ptx
    text = explain(module.k, target="ptx").text()  # type: ignore[attr-defined]
    assert f"gpuc.deferred_call in @k at {path}:14:16" in text


def run_gpuc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuc.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def test_command_line_takes_python_files(tmp_path: Path) -> None:
    """`gpuc compile k.py` and `gpuc explain k.py` compile the file's
    kernels; a problem is a located diagnostic and exit status 1."""
    done = run_gpuc("compile", "examples/python/scan.py", "--target", "ptx")
    assert done.returncode == 0, done.stderr
    assert ".entry scan_block" in done.stdout and ".entry add_sums" in done.stdout
    done = run_gpuc("explain", "examples/python/deferred_helper.py")
    assert done.returncode == 0, done.stderr
    assert "examples/python/deferred_helper.py:15:16" in done.stdout
    bad = tmp_path / "bad.py"
    bad.write_text(HEADER + "@gpuc.kernel\ndef k(x: F):\n    x[0] = {1: 2}\n")
    done = run_gpuc("compile", str(bad), "--target", "ptx")
    assert done.returncode == 1 and not done.stdout
    assert done.stderr.startswith(f"{bad}:7:12: error: dicts are not supported")
    assert "Traceback" not in done.stderr
    bad.write_text("raise ValueError('boom')\n")
    done = run_gpuc("compile", str(bad))
    assert done.returncode == 1
    assert (
        "running the file to find its kernels failed: ValueError: boom" in done.stderr
    )


def test_invalid_frontend_ir_is_reported_located_when_a_pass_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frontend's module is not verified before the pipeline; should a
    pass fail on IR the frontend got wrong, the error is the verifier's, at
    the Python line, not the pass's crash. A pass failing on valid IR still
    raises its own error."""
    from xdsl.dialects.builtin import IntegerAttr, i32

    from gpuc.python import values
    from gpuc.transforms.convert_foreign_to_gpuc import ConvertForeignToGpuc

    source = HEADER + "@gpuc.kernel\ndef k(x: F):\n    x[0] = 2.5\n"
    module = load(tmp_path, "wrong", source)

    def crash(self: object, ctx: object, op: object) -> None:
        raise RuntimeError("a pass crashed")

    # The import runs as its own passes (ImportForeign.passes()).
    monkeypatch.setattr(ConvertForeignToGpuc, "apply", crash)
    with pytest.raises(RuntimeError, match="a pass crashed"):
        gpuc.compile(module.k, "ptx", cache=False)  # type: ignore[attr-defined]
    real = values.constant_attr
    monkeypatch.setattr(
        values,
        "constant_attr",
        lambda v, t: IntegerAttr(1, i32) if isinstance(v, float) else real(v, t),
    )
    with pytest.raises(gpuc.KernelError) as e:
        gpuc.compile(module.k, "ptx", cache=False)  # type: ignore[attr-defined]
    assert str(e.value).startswith(f"{tmp_path / 'wrong.py'}:7:5: error: ")
    assert "'memref.store' op" in str(e.value) and "does not verify" in str(e.value)
