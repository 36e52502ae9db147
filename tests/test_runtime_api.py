"""The Python API: gpuc.compile on a path, text or xDSL module; mod.launch and
mod[name][grid, block](...); signatures with the kernel's own argument names;
errors; and `import gpuc` staying cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from cases import assert_within, fma_bound  # noqa: E402

import gpuc

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "examples" / "saxpy.mlir"


@pytest.fixture(scope="module")
def mod() -> gpuc.Module:
    return gpuc.compile(SAXPY, target="native")


def saxpy_inputs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    return x, y, y.copy()


def check_saxpy(a: float, x: np.ndarray, y: np.ndarray, y0: np.ndarray) -> None:
    # a*x+y may be contracted into an fma: cases.fma_bound says how far.
    product = np.float32(a) * x
    want = product + y0
    assert_within(y, want, fma_bound(product, want, y), "saxpy")


def test_launch_and_numba_style_call(mod: gpuc.Module) -> None:
    n = 1000
    x, y, y0 = saxpy_inputs(n, 1)
    mod.launch("saxpy", grid=(4,), block=(256,), args=(1.5, x, y, n))
    check_saxpy(1.5, x, y, y0)
    x, y, y0 = saxpy_inputs(n, 2)
    mod["saxpy"][4, 256](-0.5, x, y, n)
    check_saxpy(-0.5, x, y, y0)


def test_module_knows_its_kernels(mod: gpuc.Module) -> None:
    assert list(mod) == ["saxpy"] and "saxpy" in mod
    sig = mod.signatures["saxpy"]
    assert [p.name for p in sig.params] == ["a", "x", "y", "n"]
    assert [p.spelling for p in sig.params] == [
        "f32",
        "!gpuc.ptr<f32, global>",
        "!gpuc.ptr<f32, global>",
        "i32",
    ]
    assert repr(mod["saxpy"]).startswith("<gpuc kernel saxpy(a: f32, x: !gpuc.ptr")
    assert mod.target == "native" and "__gpuc_launch_saxpy" in mod.llvm_ir


def test_errors_name_what_is_wrong(mod: gpuc.Module) -> None:
    x = np.zeros(8, np.float32)
    with pytest.raises(gpuc.LaunchError, match="no kernel named 'sax'.*saxpy"):
        mod.launch("sax", 1, 1, ())
    with pytest.raises(KeyError, match="no kernel named 'sax'"):
        mod["sax"]
    with pytest.raises(gpuc.LaunchError, match=r"mod\['saxpy'\]\[grid, block\]"):
        mod["saxpy"](1.0, x, x, 8)
    with pytest.raises(gpuc.LaunchError, match=r"kernel\[grid, block\]"):
        mod["saxpy"][1](1.0, x, x, 8)
    with pytest.raises(gpuc.LaunchError, match="argument 1 \\('x'.*got one of float64"):
        mod["saxpy"][1, 8](1.0, x.astype(np.float64), x, 8)
    with pytest.raises(
        gpuc.LaunchError, match="argument 3 \\('n': i32\\) = 4294967296"
    ):
        mod["saxpy"][1, 8](1.0, x, x, 2**32)
    # A TypeError from list(args) before; a string was split into letters.
    for args in (None, 5, "axyn", {"a": 1.0}):
        with pytest.raises(gpuc.LaunchError, match="pass its arguments as a tuple"):
            mod.launch("saxpy", 1, 8, args)
    # A grid computed with numpy is a grid (it was refused as one odd x).
    x, y, y0 = saxpy_inputs(8, 4)
    mod.launch("saxpy", np.array([2]), np.array([4, 1]), (1.5, x, y, 8))
    check_saxpy(1.5, x, y, y0)


@pytest.mark.parametrize("target", ["native", "spirv"])
@pytest.mark.parametrize(
    ("params", "message"),
    [
        # These raised a KeyError from inside gpuc (no numpy dtype) ...
        ("%a: i128", "argument 0 ('a': i128) is of type i128, which has no numpy"),
        ("%p: !gpuc.ptr<i7, global>", "argument 0 ('p': !gpuc.ptr<i7, global>) "),
        (
            "%p: !gpuc.ptr<!gpuc.ptr<f32, global>, global>",
            "points to !gpuc.ptr<f32, global>, which has no numpy dtype",
        ),
        # ... and these ran with a host address where the kernel expects shared
        # (or private) memory.
        ("%p: !gpuc.ptr<f32, shared>", "is a shared pointer, which the host cannot"),
        ("%p: !gpuc.ptr<f32, local>", "is a local pointer, which the host cannot"),
    ],
)
def test_a_parameter_the_host_cannot_pass_is_a_launch_error(
    target: str, params: str, message: str
) -> None:
    source = f"gpuc.func @k({params}) kernel {{\n  gpuc.return\n}}\n"
    rejected = {"%a: i128": "SPIR-V for OpenCL has i1, i8, i16"}
    rejected["%p: !gpuc.ptr<f32, local>"] = "OpenCL kernels take global, constant"
    if target == "spirv" and params in rejected:
        from gpuc.diagnostics import OpError

        with pytest.raises(OpError, match=rejected[params]):
            gpuc.compile(source, target=target)
        return
    mod = gpuc.compile(source, target=target)
    with pytest.raises(gpuc.LaunchError, match="kernel 'k': ") as info:
        mod["k"][1, 1](np.zeros(4, np.float32))
    assert message in str(info.value)


ALIASED = """
gpuc.func @k(%x: !gpuc.ptr<f32, constant>, %y: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, constant>
  %one = arith.constant 1.0 : f32
  %w = arith.addf %v, %one : f32
  gpuc.store %w, %y[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_an_array_passed_twice_is_written_back_if_either_is_written(
    target: str,
) -> None:
    # The OpenCL executor made the buffer read-only after the constant
    # parameter and dropped the kernel's writes through the global one.
    mod = gpuc.compile(ALIASED, target=target)
    x = np.arange(64, dtype=np.float32)
    mod["k"][2, 32](x, x)
    np.testing.assert_array_equal(x, np.arange(64, dtype=np.float32) + 1)


@pytest.mark.parametrize(
    ("target", "options", "message"),
    [
        # llvmlite asserted on these, or tuple() raised a TypeError naming
        # no option; "no" and "yes" were taken as True.
        ("native", {"opt_level": 9}, "opt_level must be 0, 1, 2 or 3, got 9"),
        ("spirv", {"opt_level": "3"}, "opt_level must be 0, 1, 2 or 3, got '3'"),
        ("native", {"fp_contract": "no"}, "fp_contract must be True or False"),
        ("native", {"validate": "yes"}, "validate must be True or False"),
        ("native", {"exports": 5}, "exports must be a name or a sequence of names"),
        ("native", {"libraries": [1]}, "libraries must be a name or a sequence"),
        ("native", {"generators": {"g": 1}}, "generators must map names to"),
        # LLVM ignored 'sm_90.0' with a warning and emitted its default sm.
        ("ptx", {"sm": 90.0}, "sm must be an int such as 90, got 90.0"),
        # The native executor failed at the first launch with a TypeError, the
        # OpenCL one with an AttributeError.
        ("native", {"device": 0}, "the native executor takes no device"),
        ("spirv", {"device": 0}, "the spirv executor's device is a fragment of"),
        ("ptx", {"device": "0"}, "the ptx executor's device is a CUDA device"),
    ],
)
def test_bad_compile_options_are_gpuc_errors(
    target: str, options: dict[str, object], message: str
) -> None:
    from xdsl.utils.exceptions import DiagnosticException

    with pytest.raises((DiagnosticException, gpuc.LaunchError)) as info:
        gpuc.compile(SAXPY, target=target, **options)
    assert message in str(info.value)


def test_source_as_text_and_as_xdsl_module() -> None:
    text = SAXPY.read_text()
    from_text = gpuc.compile(text, target="native")
    from gpuc.driver import load_module

    from_module = gpuc.compile(load_module(SAXPY), target="native")
    for m in (from_text, from_module):
        x, y, y0 = saxpy_inputs(300, 3)
        m["saxpy"][3, 128](2.0, x, y, 300)
        check_saxpy(2.0, x, y, y0)


def test_ptx_compiles_without_a_gpu() -> None:
    mod = gpuc.compile(SAXPY, target="ptx")
    assert isinstance(mod.artefact, str) and ".entry saxpy" in mod.artefact
    try:
        from gpuc.runtime.cuda import start_driver

        start_driver()
    except gpuc.LaunchError:
        x = np.zeros(4, np.float32)
        with pytest.raises(gpuc.LaunchError, match="CUDA|cuda-bindings"):
            mod["saxpy"][1, 4](1.0, x, x, 4)


def test_import_gpuc_loads_nothing_heavy() -> None:
    code = (
        "import sys, gpuc\n"
        "heavy = [m for m in ('xdsl', 'llvmlite', 'numpy', 'pyopencl', 'cuda')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
        "assert callable(gpuc.compile)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


KNOWN_BLOCK = """
gpuc.func @fill(%out: !gpuc.ptr<i32, global>) kernel
    attributes {gpu.known_block_size = array<i32: 4, 2, 1>} {
  %i = gpuc.global_id x
  %t = gpuc.thread_id y
  %v = arith.index_cast %t : index to i32
  %c2 = arith.constant 2 : index
  %j = arith.muli %i, %c2 : index
  %k = arith.addi %j, %t : index
  gpuc.store %v, %out[%k] : !gpuc.ptr<i32, global>
  gpuc.return
}
"""


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_a_known_block_size_is_the_only_block_a_kernel_runs_with(target: str) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")
    mod = gpuc.compile(KNOWN_BLOCK, target=target)
    assert mod.result.kernels["fill"].block_size == (4, 2, 1)
    out = np.full(16, -1, np.int32)
    mod["fill"][2, (4, 2)](out)
    assert out.tolist() == [0, 1] * 8
    with pytest.raises(gpuc.LaunchError, match=r"compiled for block \(4, 2, 1\)"):
        mod["fill"][2, 8](out)


NATIVE_MODULE = """
builtin.module attributes {gpuc.target = #gpuc.target<native>} {
  gpuc.func @ones(%out: !gpuc.ptr<f32, global>) kernel {
    %i = gpuc.global_id x
    %one = arith.constant 1.0 : f32
    gpuc.store %one, %out[%i] : !gpuc.ptr<f32, global>
    gpuc.return
  }
}
"""


def test_the_module_target_is_the_default_and_is_never_overridden() -> None:
    from xdsl.utils.exceptions import DiagnosticException

    from gpuc.driver import OptionError

    mod = gpuc.compile(NATIVE_MODULE)
    assert mod.target == "native"
    out = np.full(8, np.nan, np.float32)
    mod["ones"][2, 4](out)
    assert out.tolist() == [1.0] * 8
    with pytest.raises(DiagnosticException, match="configured for native"):
        gpuc.compile(NATIVE_MODULE, target="ptx")
    with pytest.raises(OptionError, match="sm need a target"):
        gpuc.compile(NATIVE_MODULE, sm=80)
