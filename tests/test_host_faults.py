"""`gpuc run` on host code that faults: every fault (an integer division by
zero or that overflows, a shift by the width or more, recursion deeper than
the interpreter follows, an allocation of a negative size or of more than
the machine's memory) is a diagnostic located at the op, exit status 1 from
the command line; and Ctrl-C stops a native kernel that never ends
(gpuc/host/runner.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.diagnostics import OpError

GPUC = str(Path(sys.executable).parent / "gpuc")


def program(body: str, functions: str = "") -> str:
    return f"""\
"builtin.module"() ({{
  "func.func"() <{{sym_name = "main", function_type = () -> ()}}> ({{
    {body}
    "func.return"() : () -> ()
  }}) : () -> (){functions}
}}) : () -> ()
"""


def constants(*values: tuple[str, float, str]) -> str:
    return "\n    ".join(
        f'%{name} = "arith.constant"() <{{value = {value} : {kind}}}> : () -> {kind}'
        for name, value, kind in values
    )


def binary(op: str, a: int, b: int, kind: str = "i32") -> str:
    return program(
        constants(("a", a, kind), ("b", b, kind))
        + f'\n    %r = "{op}"(%a, %b) : ({kind}, {kind}) -> {kind}'
    )


RECURSE = program(
    '%r = "func.call"() <{callee = @forever}> : () -> i32',
    """
  "func.func"() <{sym_name = "forever", function_type = () -> i32}> ({
    %r = "func.call"() <{callee = @forever}> : () -> i32
    "func.return"(%r) : (i32) -> ()
  }) : () -> ()""",
)


def alloc(size: int, op: str = "memref.alloc") -> str:
    segments = "1, 0" if op == "memref.alloc" else "0, 1, 0"
    return program(
        constants(("n", size, "index"))
        + f'\n    %m = "{op}"(%n) <{{operandSegmentSizes = array<i32: {segments}>}}>'
        " : (index) -> memref<?xf32>"
    )


DIM = program(
    constants(("i", -1, "index"))
    + '\n    %m = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}>'
    " : () -> memref<4xf32>"
    '\n    %d = "memref.dim"(%m, %i) : (memref<4xf32>, index) -> index'
)
STEP_0 = program(
    constants(("z", 0, "index"), ("n", 4, "index"))
    + '\n    "scf.for"(%z, %n, %z) ({\n    ^bb0(%i: index):\n'
    '      "scf.yield"() : () -> ()\n    }) : (index, index, index) -> ()'
)

VECTOR_LOAD = program(
    constants(("i", 3, "index"))
    + '\n    %m = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}>'
    " : () -> memref<4xf32>"
    '\n    %v = "vector.load"(%m, %i) : (memref<4xf32>, index) -> vector<4xf32>'
)
VECTOR_STORE = VECTOR_LOAD.replace(
    '%v = "vector.load"(%m, %i) : (memref<4xf32>, index) -> vector<4xf32>',
    '%v = "vector.load"(%m, %z) : (memref<4xf32>, index) -> vector<4xf32>\n'
    '    "vector.store"(%v, %m, %i) : (vector<4xf32>, memref<4xf32>, index) -> ()',
).replace(
    "    %i =",
    '    %z = "arith.constant"() <{value = 0 : index}> : () -> index\n    %i =',
)

FAULTS = {
    "divsi": (binary("arith.divsi", 7, 0), 5, "'arith.divsi' op divides 7 by zero"),
    "remsi": (binary("arith.remsi", -7, 0), 5, "'arith.remsi' op divides -7 by zero"),
    "floordivsi": (binary("arith.floordivsi", 1, 0, "i64"), 5, "divides 1 by zero"),
    "ceildivui": (binary("arith.ceildivui", 1, 0), 5, "divides 1 by zero"),
    "divui": (binary("arith.divui", 1, 0, "index"), 5, "divides 1 by zero"),
    "divsi overflow": (
        binary("arith.divsi", -(2**31), -1),
        5,
        "divides -2147483648, the smallest i32 value, by -1, which overflows",
    ),
    "remsi overflow": (
        binary("arith.remsi", -(2**63), -1, "i64"),
        5,
        "the smallest i64 value, by -1",
    ),
    "shli": (
        binary("arith.shli", 1, 1 << 62, "i64"),
        5,
        "'arith.shli' op shifts by 4611686018427387904 bits, not less than the "
        "64 bits of i64",
    ),
    "shrsi": (binary("arith.shrsi", -8, 32), 5, "shifts by 32 bits"),
    "memref.dim": (DIM, 5, "asks for dimension -1 of a memref of rank 1"),
    "scf.for step 0": (STEP_0, 5, "'scf.for' op steps by 0; scf.for's step must"),
    "vector.load": (VECTOR_LOAD, 5, "accesses elements 3 to 6 of a row of 4"),
    "vector.store": (VECTOR_STORE, 7, "'vector.store' op accesses elements 3 to 6"),
    "recursion": (
        RECURSE,
        7,
        "'func.call' op recurses deeper than the host runner can follow",
    ),
    "4 TiB": (
        alloc(1 << 40),
        4,
        "'memref.alloc' op allocates 4.0 TiB (shape [1099511627776] of f32), "
        "more than this machine's memory",
    ),
    "negative": (
        alloc(-5),
        4,
        "'memref.alloc' op allocates a buffer of -5 elements in dimension 0",
    ),
    "negative gpu.alloc": (alloc(-5, "gpu.alloc"), 4, "'gpu.alloc' op allocates"),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_host_fault_is_located_at_its_op(name: str, tmp_path: Path) -> None:
    text, line, message = FAULTS[name]
    path = tmp_path / "host.mlir"
    path.write_text(text)
    with pytest.raises(OpError) as raised:
        gpuc.run_host(str(path), "native")
    assert f"{path}:{line}:" in str(raised.value) and message in str(raised.value)


def test_the_command_line_says_so_and_exits_1(tmp_path: Path) -> None:
    for name in ("divsi", "recursion", "negative"):
        text, line, message = FAULTS[name]
        path = tmp_path / f"{name}.mlir"
        path.write_text(text)
        done = subprocess.run(
            [GPUC, "run", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "GPUC_SERVER": "0"},
        )
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith(f"{path}:{line}:") and message in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize(
    "op, reference",
    [
        ("arith.divsi", lambda x, y: (x - np.fmod(x, y)) // y),
        ("arith.remsi", np.fmod),
        ("arith.floordivsi", np.floor_divide),
    ],
)
def test_signed_division_rounds_as_mlir_says(op: str, reference: object) -> None:
    """divsi rounds toward zero, remsi has the dividend's sign, floordivsi
    rounds down: on every sign combination, against numpy."""
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-(2**31), 1), (5, 7)]
    body = "\n    ".join(
        constants((f"a{i}", a, "i32"), (f"b{i}", b, "i32"))
        + f'\n    %r{i} = "{op}"(%a{i}, %b{i}) : (i32, i32) -> i32'
        f'\n    "vector.print"(%r{i}) : (i32) -> ()'
        for i, (a, b) in enumerate(pairs)
    )
    import io

    out = io.StringIO()
    gpuc.run_host(program(body), "native", stdout=out)
    expected = [
        str(int(reference(np.int64(a), np.int64(b))))  # type: ignore[operator]
        for a, b in pairs
    ]
    assert out.getvalue().split() == expected


LOOP = """\
"builtin.module"() ({
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xi32>) -> (), kernel}> ({
    ^bb0(%p: memref<?xi32>):
      %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %one = "arith.constant"() <{value = 1 : i32}> : () -> i32
      "cf.br"()[^bb1] : () -> ()
    ^bb1:
      %v = "memref.load"(%p, %c0) : (memref<?xi32>, index) -> i32
      %w = "arith.addi"(%v, %one) : (i32, i32) -> i32
      "memref.store"(%w, %p, %c0) : (i32, memref<?xi32>, index) -> ()
      "cf.br"()[^bb1] : () -> ()
    }) {sym_name = "spin"} : () -> ()
  }) : () -> ()
  "func.func"() <{sym_name = "main", function_type = () -> ()}> ({
    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %started = "arith.constant"() <{value = 1 : i32}> : () -> i32
    %buf = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xi32>
    %bufd = "memref.cast"(%buf) : (memref<4xi32>) -> memref<?xi32>
    "vector.print"(%started) : (i32) -> ()
    "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %bufd) <{kernel = @kernels::@spin, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<?xi32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""  # noqa: E501
"""Host code that prints 1 and launches a native kernel that never ends."""


def looping(path: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`gpuc run` of `LOOP`, once its kernel runs (it printed its 1)."""
    path.write_text(LOOP)
    client = subprocess.Popen(
        [GPUC, "run", str(path), "--target", "native"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**env, "PYTHONUNBUFFERED": "1"},
    )
    assert client.stdout is not None
    assert client.stdout.readline() == b"1\n"
    return client


def test_ctrl_c_stops_a_native_kernel_that_never_ends(tmp_path: Path) -> None:
    env = {**os.environ, "GPUC_SERVER": "0", "GPUC_CACHE": "0"}
    client = looping(tmp_path / "loop.mlir", env)
    client.send_signal(signal.SIGINT)
    _, err = client.communicate(timeout=30)
    assert client.returncode == 130 and err == b""


def test_math_gives_ieee_results_where_python_raises() -> None:
    """Not faults: the sqrt and log of negative numbers are NaN, the log of 0
    is -inf, an exp that overflows f32 is inf (Python's math raised)."""
    import io

    cases = [("math.sqrt", -1.0), ("math.log", 0.0), ("math.log", -1.0)]
    cases += [("math.exp", 1000.0), ("math.exp", 88.8), ("math.sqrt", 2.0)]
    body = "\n    ".join(
        constants((f"a{i}", value, "f32"))
        + f'\n    %r{i} = "{op}"(%a{i}) : (f32) -> f32'
        f'\n    "vector.print"(%r{i}) : (f32) -> ()'
        for i, (op, value) in enumerate(cases)
    )
    out = io.StringIO()
    gpuc.run_host(program(body), "native", stdout=out)
    printed = [v.replace("-nan", "nan") for v in out.getvalue().split()]  # x86's
    assert printed == ["nan", "-inf", "nan", "inf", "inf", "1.41421"]
