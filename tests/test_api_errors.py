"""Every error a user can cause from Python is a gpuc exception: an unknown
kernel, a scalar out of its type's range, a source of the wrong type, text that
does not parse; and `gpuc.compile` leaves a caller's module as it was."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import DiagnosticException, ParseError

import gpuc

SAXPY = Path(__file__).resolve().parent.parent / "examples" / "saxpy.mlir"


@pytest.fixture(scope="module")
def mod() -> gpuc.Module:
    return gpuc.compile(SAXPY, target="native")


def test_an_unknown_kernel_is_one_error_however_it_is_named(mod: gpuc.Module) -> None:
    # mod["nope"] raised a plain KeyError, mod.launch("nope") a LaunchError.
    message = "no kernel named 'nope' in this module (kernels: saxpy)"
    with pytest.raises(gpuc.UnknownKernel) as by_index:
        mod["nope"]
    with pytest.raises(gpuc.UnknownKernel) as by_launch:
        mod.launch("nope", 1, 1, ())
    for info in (by_index, by_launch):
        assert isinstance(info.value, gpuc.LaunchError)
        assert isinstance(info.value, KeyError)
        assert str(info.value) == message  # not quoted, as KeyError's would be


@pytest.mark.parametrize(
    "value, shown",
    [
        (10**400, "an int of 401 digits"),
        (10**39, str(10**39)),
        (1e39, "1e+39"),
        (np.float64(-1e300), "-1e+300"),
    ],
)
def test_a_finite_scalar_beyond_its_float_type_is_a_launch_error(
    mod: gpuc.Module, value: object, shown: str
) -> None:
    # 10**400 raised numpy's OverflowError; 1e39 became inf with a warning.
    x = np.zeros(8, np.float32)
    with pytest.raises(
        gpuc.LaunchError,
        match=re.escape(f"argument 0 ('a': f32) = {shown} is beyond the range of f32"),
    ):
        mod["saxpy"][1, 8](value, x, x, 8)


def test_inf_and_nan_stay_accepted_for_floats(mod: gpuc.Module) -> None:
    for a in (1e400, float("-inf"), float("nan")):  # 1e400 is inf already
        x = np.ones(8, np.float32)
        y = np.zeros(8, np.float32)
        mod["saxpy"][1, 8](a, x, y, 8)
        np.testing.assert_array_equal(y, np.full(8, np.float32(a)))


@pytest.mark.parametrize("source", [123, b"gpuc.func @k() kernel {}", None])
def test_a_source_of_another_type_is_an_option_error(source: object) -> None:
    # Each raised a TypeError from inside the driver.
    with pytest.raises(gpuc.OptionError, match="a path .*MLIR text .*ModuleOp"):
        gpuc.compile(source, target="native")  # type: ignore[arg-type]
    with pytest.raises(gpuc.OptionError, match="got "):
        gpuc.compile(source)  # type: ignore[arg-type]


def test_bytes_are_told_to_be_decoded() -> None:
    with pytest.raises(gpuc.OptionError, match="got bytes: decode the bytes"):
        gpuc.compile(b"", target="native")  # type: ignore[arg-type]


@pytest.mark.parametrize("target", ["native", None])
def test_text_that_does_not_parse_is_a_located_gpuc_diagnostic(
    target: str | None,
) -> None:
    # It was xDSL's ParseError alone, printed with xDSL's own layout.
    text = "gpuc.func @k() kernel {\n  gpuc.return %\n}\n"
    with pytest.raises(gpuc.SourceParseError) as info:
        gpuc.compile(text, target=target)
    error = info.value
    assert isinstance(error, DiagnosticException) and isinstance(error, ParseError)
    first, line, caret = str(error).splitlines()[:3]
    assert first.startswith("<source>:2:") and ": error: " in first
    assert line == "  gpuc.return %" and caret.lstrip().startswith("^")


def test_an_owned_module_is_compiled_in_place_and_still_verified() -> None:
    """`compile_module(owned=True)` (a frontend's module, built for the
    compile) takes the module as it is: no copy, no verification before the
    pipeline, whose end still verifies it, at the op's location."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, f32, i32

    from gpuc.compiler import compile_module
    from gpuc.diagnostics import OpError
    from gpuc.driver import load_module

    module = load_module(SAXPY)
    result = compile_module(module, "native", owned=True, cache=False)
    assert result.module is module
    bad = load_module(SAXPY)
    kernel = next(iter(bad.ops))
    # An op whose result type its verifier refuses, left unused.
    wrong = arith.ConstantOp.create(
        properties={"value": IntegerAttr(1, i32)}, result_types=[f32]
    )
    body = kernel.regions[0].blocks[0]
    assert body.first_op is not None
    body.insert_op_before(wrong, body.first_op)
    with pytest.raises(OpError, match="arith.constant"):
        compile_module(bad, "native", owned=True, cache=False)


def test_a_file_that_does_not_parse_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("gpuc.func @k( kernel {\n")
    with pytest.raises(gpuc.SourceParseError, match="^" + re.escape(f"{path}:1:")):
        gpuc.compile(path, target="native")


@pytest.mark.parametrize("target", ["native", None])
def test_compiling_a_module_leaves_it_as_it_was(target: str | None) -> None:
    # The caller's module became gpuc IR with a target attribute.
    from gpuc.driver import load_module

    module = load_module(SAXPY)
    before = str(module)
    compiled = gpuc.compile(module, target=target)
    assert str(module) == before
    assert compiled.result.module is not module
    again = gpuc.compile(module, target="native")  # it compiles again, unchanged
    x = np.ones(8, np.float32)
    y = np.zeros(8, np.float32)
    again["saxpy"][1, 8](2.0, x, y, 8)
    np.testing.assert_array_equal(y, np.full(8, 2, np.float32))


def test_the_exception_classes_are_exported() -> None:
    for name in ("LaunchError", "UnknownKernel", "OptionError", "SourceParseError"):
        assert name in gpuc.__all__
        assert isinstance(getattr(gpuc, name), type)
