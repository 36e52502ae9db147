"""The host runner (`gpuc run`, `gpuc.run_host`): host code that allocates,
registers, copies, launches gpuc's kernels and prints with MLIR's runner
functions, on native and spirv (and ptx where a GPU exists).

Printed text is compared with text written out here by hand in MLIR's
`printMemref*` / `vector.print` format (the base address aside); computed
values with numpy on fresh random inputs (the seed is printed and in every
failure; rerun with GPUC_TEST_SEED=<seed>), outputs poisoned with NaN first.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.diagnostics import OpError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "host_runner"
SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_host_runner: GPUC_TEST_SEED={SEED}")


def _gpu_sm() -> int | str:
    try:
        from gpuc.runtime.cuda import device_sm

        return device_sm()
    except gpuc.LaunchError as error:
        return str(error)


GPU_SM = _gpu_sm()


def run(text: str, target: str, entry: str = "main") -> tuple[str, tuple[Any, ...]]:
    """What the host code prints and what `entry` returns."""
    options: dict[str, Any] = {}
    if target == "ptx":
        if isinstance(GPU_SM, str):
            pytest.skip(f"no GPU for the ptx executor: {GPU_SM}")
        options["sm"] = GPU_SM
    out = io.StringIO()
    returned = gpuc.run_host(text, target, entry=entry, stdout=out, **options)
    return out.getvalue(), returned


def without_addresses(text: str) -> str:
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@ = ADDR", text)


def exact(value: Any) -> str:
    """An f32 value as text that reads back as exactly that value."""
    return repr(float(np.float32(value)))


def dense(values: np.ndarray[Any, Any]) -> str:
    return "dense<[" + ", ".join(exact(v) for v in values.reshape(-1)) + "]>"


AXPY = (FIXTURES / "axpy.mlir").read_text()


def axpy_program(
    n: int, a: float, x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]
) -> str:
    return (
        AXPY.replace("N_", str(n))
        .replace("X_", dense(x))
        .replace("Y_", dense(y))
        .replace("A_", exact(a))
        .replace("BLOCKS_", str(-(-n // 64)))
    )


@pytest.mark.parametrize("target", ["native", "spirv", "ptx"])
def test_axpy_host_code_matches_numpy(target: str) -> None:
    rng = np.random.default_rng([SEED, 1])
    n = int(rng.integers(100, 700))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(rng.standard_normal())
    printed, (out,) = run(axpy_program(n, float(a), x, y), target)
    want = a * x + y
    assert out.shape == (n,) and out.dtype == np.float32, f"seed {SEED}"
    assert not np.isnan(out).any(), f"seed {SEED}: elements left poisoned"
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=1e-6, err_msg=f"seed {SEED}")
    header, rows = printed.split("\n", 1)
    assert re.fullmatch(
        rf"Unranked Memref base@ = 0x[0-9a-f]+ rank = 1 offset = 0 sizes = \[{n}\] "
        r"strides = \[1\] data = ",
        header,
    ), header
    printed_values = [float(v) for v in rows.strip()[1:-1].split(",")]
    np.testing.assert_allclose(printed_values, out, rtol=1e-5, err_msg=f"seed {SEED}")


LAUNCH = (FIXTURES / "launch.mlir").read_text()

LAUNCH_PRINTS = (
    "Unranked Memref base@ = ADDR rank = 2 offset = 0 sizes = [2, 3] "
    "strides = [3, 1] data = \n"
    "[[0,   1,   2], \n"
    " [10,   11,   12]]\n"
    "( 10, 11, 12 )\n"
    "2.5\n"
    "1e+06\n"
)


@pytest.mark.parametrize("target", ["native", "spirv", "ptx"])
def test_launch_region_prints_in_mlir_runner_format(target: str) -> None:
    printed, returned = run(LAUNCH, target)
    assert without_addresses(printed) == LAUNCH_PRINTS
    assert returned == ()


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_async_regions_run_in_order(target: str) -> None:
    printed, _ = run((FIXTURES / "async.mlir").read_text(), target)
    assert without_addresses(printed) == (
        "Unranked Memref base@ = ADDR rank = 1 offset = 0 sizes = [5] "
        "strides = [1] data = \n"
        "[0,  -7,  -14,  -21,  -28]\n"
    )


def test_print_formats_match_mlir_runner_utils() -> None:
    from gpuc.host.runner_utils import format_memref, format_vector

    three = np.arange(8, dtype=np.int64).reshape(2, 2, 2) * 1000
    assert without_addresses(format_memref(three)) == (
        "Unranked Memref base@ = ADDR rank = 3 offset = 0 sizes = [2, 2, 2] "
        "strides = [4, 2, 1] data = \n"
        "[[[0,    1000], \n"
        "  [2000,    3000]], \n"
        " [[4000,    5000], \n"
        "  [6000,    7000]]]\n"
    )
    floats = np.array([0.1, -2.0, 1.0e-7, 123456789.0, np.inf], dtype=np.float32)
    assert format_memref(floats).endswith(
        "data = \n[0.1,  -2,  1e-07,  1.23457e+08,  inf]\n"
    )
    assert format_memref(np.array([7], dtype=np.int32)).endswith("data = \n[7]\n")
    assert format_memref(np.array(5, dtype=np.int32)).endswith(
        "rank = 0 offset = 0 sizes = [] strides = [] data = \n[5]\n"
    )
    assert format_vector(np.array([1, -3], dtype=np.int32), np.dtype(np.int32)) == (
        "( 1, -3 )\n"
    )


HOST_ARITH = [
    # (op, operand types, result type, numpy reference)
    ("arith.divf", "f32, f32", "f32", lambda a, b, x, y: a / b),
    ("arith.mulf", "f32, f32", "f32", lambda a, b, x, y: a * b),
    ("arith.subf", "f32, f32", "f32", lambda a, b, x, y: a - b),
    ("arith.divui", "i32, i32", "i32", lambda a, b, x, y: np.uint32(x) // np.uint32(y)),
    ("arith.remui", "i32, i32", "i32", lambda a, b, x, y: np.uint32(x) % np.uint32(y)),
    (
        "arith.maxui",
        "i32, i32",
        "i32",
        lambda a, b, x, y: max(np.uint32(x), np.uint32(y)),
    ),
    ("arith.minsi", "i32, i32", "i32", lambda a, b, x, y: min(x, y)),
    ("arith.sitofp", "i32", "f32", lambda a, b, x, y: np.float32(x)),
    ("arith.uitofp", "i32", "f32", lambda a, b, x, y: np.float32(np.uint32(x))),
    ("arith.trunci", "i32", "i8", lambda a, b, x, y: np.int32(x).astype(np.int8)),
    ("arith.extf", "f32", "f64", lambda a, b, x, y: np.float64(a)),
    ("arith.negf", "f32", "f32", lambda a, b, x, y: -a),
]


def test_host_arithmetic_matches_numpy() -> None:
    rng = np.random.default_rng([SEED, 2])
    a, b = (np.float32(v) for v in rng.standard_normal(2) * 100)
    x, y = (np.int32(v) for v in rng.integers(-(2**31), 2**31, 2))
    lines = []
    expected = []
    for i, (name, operands, result, reference) in enumerate(HOST_ARITH):
        args = (
            "%a, %b"
            if operands.startswith("f32, ")
            else (
                "%x, %y" if "," in operands else ("%x" if operands == "i32" else "%a")
            )
        )
        lines.append(
            f'%r{i} = "{name}"({args}) : ({operands}) -> {result}\n'
            f'    "vector.print"(%r{i}) : ({result}) -> ()'
        )
        value = reference(a, b, x, y)
        if np.dtype(type(value)).kind == "f":
            expected.append(f"{float(value):g}")
        else:
            bits = np.dtype(result.replace("i", "int")).itemsize * 8
            wrapped = int(value) & ((1 << bits) - 1)
            expected.append(
                str(wrapped - (1 << bits) if wrapped >> (bits - 1) else wrapped)
            )
    body = "\n    ".join(lines)
    program = f"""
"builtin.module"() ({{
  "func.func"() <{{sym_name = "main", function_type = () -> ()}}> ({{
    %a = "arith.constant"() <{{value = {exact(a)} : f32}}> : () -> f32
    %b = "arith.constant"() <{{value = {exact(b)} : f32}}> : () -> f32
    %x = "arith.constant"() <{{value = {int(x)} : i32}}> : () -> i32
    %y = "arith.constant"() <{{value = {int(y)} : i32}}> : () -> i32
    {body}
    "func.return"() : () -> ()
  }}) : () -> ()
}}) : () -> ()
"""
    printed, _ = run(program, "native")
    assert printed.splitlines() == expected, f"seed {SEED}"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "host.mlir"
    path.write_text(text)
    return path


def gpuc_run(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuc.cli", "run", str(path), *flags],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "GPUC_SERVER": "0"},
    )


def test_cli_runs_host_code(tmp_path: Path) -> None:
    done = gpuc_run(write(tmp_path, LAUNCH), "--target", "native")
    assert done.returncode == 0, done.stderr
    assert without_addresses(done.stdout) == LAUNCH_PRINTS


def host_op_program(op: str) -> str:
    return f"""
"builtin.module"() ({{
  "func.func"() <{{sym_name = "main", function_type = () -> ()}}> ({{
    %a = "arith.constant"() <{{value = 1.0 : f32}}> : () -> f32
    {op}
    "func.return"() : () -> ()
  }}) : () -> ()
  "func.func"() <{{sym_name = "launchMissiles", function_type = () -> (),
                   sym_visibility = "private"}}> ({{
  }}) : () -> ()
}}) : () -> ()
"""


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            '%b = "math.tanh"(%a) : (f32) -> f32',
            "host op 'math.tanh' has no host implementation in gpuc run",
        ),
        (
            '"func.call"() <{callee = @launchMissiles}> : () -> ()',
            "calls @launchMissiles, a declaration gpuc run does not provide",
        ),
        (
            '%m = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () '
            '-> memref<4xf32>\n    %c = "arith.constant"() <{value = 4 : index}> : '
            '() -> index\n    "memref.store"(%a, %m, %c) : (f32, memref<4xf32>, '
            "index) -> ()",
            "'memref.store' op accesses element [4] of a buffer of shape [4], out of "
            "its bounds",
        ),
    ],
)
def test_bad_host_code_is_a_located_diagnostic(
    tmp_path: Path, op: str, message: str
) -> None:
    path = write(tmp_path, host_op_program(op))
    done = gpuc_run(path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert re.search(rf"{re.escape(str(path))}:\d+:\d+: error: ", done.stderr), (
        done.stderr
    )
    assert message in done.stderr
    assert done.stdout == ""


def test_compile_does_not_load_the_interpreter(tmp_path: Path) -> None:
    source = ROOT / "examples" / "saxpy.mlir"
    script = (
        "import sys\n"
        "from gpuc.cli.main import main\n"
        f"status = main(['compile', {str(source)!r}, '--target', 'native', "
        f"'--no-cache', '-o', {str(tmp_path / 'out.o')!r}])\n"
        "assert status == 0, status\n"
        "prefixes = ('xdsl.interpreter', 'gpuc.host')\n"
        "loaded = [m for m in sys.modules if m.startswith(prefixes)]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


VIEWS = (FIXTURES / "views_past_the_end.mlir").read_text()


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_views_past_the_end_and_laid_out_allocations(target: str) -> None:
    """run_host on the caller's arrays: a view past the end of a dimension
    reads the buffer's next row, as MLIR's compiled code does; an allocation
    whose layout has a negative offset holds the elements the loop uses."""
    rng = np.random.default_rng([SEED, 7])
    a = rng.standard_normal((4, 8)).astype(np.float32)
    out = np.full((3, 8), np.nan, np.float32)
    assert gpuc.run_host(VIEWS, target, entry="shifted", args=[a, out]) == ()
    rows, cols = np.mgrid[0:3, 0:8]
    np.testing.assert_array_equal(out, 2 * a.reshape(-1)[8 * rows + 2 + cols])


def test_run_host_arguments_are_checked() -> None:
    a = np.zeros((4, 8), np.float32)
    with pytest.raises(OpError, match="takes 2 argument"):
        gpuc.run_host(VIEWS, "native", entry="shifted", args=[a])
    with pytest.raises(OpError, match=r"argument 1 is a memref<3x8xf32>; got "):
        gpuc.run_host(VIEWS, "native", entry="shifted", args=[a, a])
    strided = np.zeros((8, 16), np.float32)[::2, ::2]
    with pytest.raises(OpError, match=r"contiguous; got a view with strides \[32, 2\]"):
        gpuc.run_host(VIEWS, "native", entry="shifted", args=[strided, a[:3]])


RESHAPES = (FIXTURES / "reshapes.mlir").read_text()


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_host_reshapes_and_reinterpret_cast(target: str) -> None:
    rng = np.random.default_rng([SEED, 8])
    a = rng.standard_normal((4, 6)).astype(np.float32)
    out = np.full((3, 4), np.nan, np.float32)
    out2 = np.full((2, 12), np.nan, np.float32)
    gpuc.run_host(RESHAPES, target, entry="shapes", args=[a, out, out2])
    rows, cols = np.mgrid[0:3, 0:4]
    np.testing.assert_array_equal(out, a.reshape(-1)[2 + 7 * rows + cols])
    np.testing.assert_array_equal(out2, 2 * a.reshape(2, 12))
