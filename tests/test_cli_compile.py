"""`gpuc compile` as a user runs it (a subprocess): what each --emit writes,
the options, and bad input: a diagnostic, exit status 1, no traceback and no
output file (an existing one is left as it was)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from special_outputs import check_special_outputs
from test_pipeline import DIALECT_PASSES

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples" / "saxpy.mlir")
REDUCE = str(ROOT / "examples" / "reduce.mlir")


def gpuc(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "gpuc.cli", *args], capture_output=True
    )


def failed(result: subprocess.CompletedProcess[bytes]) -> str:
    """The diagnostic of a run that must fail the way bad input fails."""
    assert result.returncode == 1, result
    assert result.stdout == b""
    text = result.stderr.decode()
    assert "Traceback" not in text
    return text


def test_ptx_to_stdout() -> None:
    result = gpuc("compile", SAXPY, "--target", "ptx", "--sm", "80")
    assert result.returncode == 0, result.stderr
    ptx = result.stdout.decode()
    assert ".target sm_80" in ptx and ".visible .entry saxpy(" in ptx


def test_every_emit_writes_its_kind(tmp_path: Path) -> None:
    cases = [
        (("--target", "ptx", "--emit", "llvm"), b"define ptx_kernel void @saxpy("),
        (("--target", "spirv", "--emit", "mlir"), b"gpuc.func @saxpy("),
        (("--target", "spirv", "--emit", "spirv-asm"), b"OpEntryPoint Kernel %saxpy"),
        (("--target", "spirv", "--emit", "spirv"), b"\x03\x02\x23\x07"),
        (("--target", "native", "--emit", "obj"), b"\x7fELF"),
    ]
    for i, (options, marker) in enumerate(cases):
        out = tmp_path / f"out{i}"
        result = gpuc("compile", SAXPY, *options, "-o", str(out))
        assert result.returncode == 0, result.stderr
        assert marker in out.read_bytes(), options


def test_validate_and_optimization_options() -> None:
    result = gpuc(
        "compile",
        REDUCE,
        "--target",
        "ptx",
        "--sm",
        "75",
        "--validate",
        "-O",
        "1",
        "--no-fp-contract",
    )
    assert result.returncode == 0, result.stderr
    assert b".target sm_75" in result.stdout


def test_print_ir_after_all_dumps_every_pass_then_every_stage() -> None:
    deferred_inline = str(ROOT / "examples" / "deferred_inline.mlir")
    result = gpuc("compile", deferred_inline, "--print-ir-after-all")
    assert result.returncode == 0, result.stderr
    banner = "// -----// IR Dump After "
    dumps = result.stderr.decode().split(banner)[1:]
    names = [dump.split(" //----- //\n", 1)[0] for dump in dumps]
    stages = ["translate", "link", "optimize", "emit"]
    assert names == ["parse", *DIALECT_PASSES, *stages]
    ir = dict(zip(names, dumps, strict=True))
    # Each dump is the module as that pass left it, not the final one again.
    assert "gpuc.deferred_call" in ir["attach-target"]
    assert "gpuc.deferred_call" not in ir["resolve-deferred"]
    wrapper = "@poly.helper.mock_autodiff.always_inline("
    assert wrapper in ir["privatize"] and wrapper not in ir["inline"]
    assert "@poly(" in ir["inline"] and "@poly(" not in ir["symbol-dce"]
    shared = "gpuc.finalized"
    assert shared not in ir["symbol-dce"] and shared in ir["finalize-kernels"]
    assert 'define ptx_kernel void @"deferred_inline"(' in ir["translate"]
    assert ".visible .entry deferred_inline(" in ir["emit"]


def test_no_fp_contract_keeps_multiply_and_add_apart() -> None:
    fused = gpuc("compile", SAXPY).stdout
    apart = gpuc("compile", SAXPY, "--no-fp-contract").stdout
    assert b"fma.rn.f32" in fused and b"fma.rn.f32" not in apart
    assert b"mul.rn.f32" in apart


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--target", "spirv", "--emit", "ptx"),
            "--emit ptx is not available for --target spirv",
        ),
        (("--target", "ptx", "--sm", "70"), "sm_70 is not supported"),
        (
            ("--target", "native", "--sm", "80"),
            "--sm applies to --target ptx only",
        ),
        (
            ("--target", "spirv", "--ptx-isa", "78"),
            "--ptx-isa applies to --target ptx only",
        ),
        (("--target", "native", "--emit", "spirv-asm"), "choose one of: mlir, llvm"),
        (("-O", "4"), "argument -O: invalid choice"),
        (
            ("--target", "cuda"),
            "unknown target 'cuda'; expected one of: ptx, spirv, native",
        ),
    ],
)
def test_bad_options_are_diagnostics(args: tuple[str, ...], message: str) -> None:
    assert message in failed(gpuc("compile", SAXPY, *args))


def test_bad_input_leaves_no_output_file(tmp_path: Path) -> None:
    source = tmp_path / "bad.mlir"
    source.write_text(
        "gpuc.func @k(%x: f32) kernel {\n  %y = arith.bogus %x : f32\n"
        "  gpuc.return\n}\n"
    )
    out = tmp_path / "out.ptx"
    message = failed(gpuc("compile", str(source), "-o", str(out)))
    assert message.startswith(f"{source}:2:8: error: unknown operation 'arith.bogus'")
    assert not out.exists()
    out.write_text("previous")
    failed(gpuc("compile", str(source), "-o", str(out)))
    assert out.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "out.ptx"]


def test_what_the_target_cannot_express_is_located(tmp_path: Path) -> None:
    source = tmp_path / "launch.mlir"
    source.write_text(
        "gpuc.func @parent(%p: !gpuc.ptr<f32, global>) kernel {\n"
        "  %c1 = arith.constant 1 : index\n"
        "  gpuc.launch @child grid(%c1) block(%c1) (%p) : (!gpuc.ptr<f32, global>)\n"
        "  gpuc.return\n}\n"
        "gpuc.func @child(%p: !gpuc.ptr<f32, global>) kernel {\n  gpuc.return\n}\n"
    )
    message = failed(gpuc("compile", str(source), "--target", "spirv"))
    assert message.startswith(
        f"{source}:3:3: error: 'gpuc.launch' op launches a kernel"
    )


def test_missing_input_file() -> None:
    message = failed(gpuc("compile", "/nonexistent/k.mlir"))
    assert "no such file: /nonexistent/k.mlir" in message


def test_library_and_export(tmp_path: Path) -> None:
    library = tmp_path / "lib.mlir"
    library.write_text(
        "gpuc.func @cube(%v: f32) -> f32 helper {\n"
        "  %s = arith.mulf %v, %v : f32\n  %c = arith.mulf %s, %v : f32\n"
        "  gpuc.return %c : f32\n}\n"
    )
    kernel = tmp_path / "k.mlir"
    kernel.write_text(
        "gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {\n"
        "  %v = gpuc.load %p : !gpuc.ptr<f32, global>\n"
        "  %r = gpuc.deferred_call @cube(%v) #gpuc.job<helper, no_inline>"
        " : (f32) -> f32\n"
        "  %h = gpuc.call @half(%r) : (f32) -> f32\n"
        "  gpuc.store %h, %p : !gpuc.ptr<f32, global>\n  gpuc.return\n}\n"
        "gpuc.func @half(%v: f32) -> f32 helper no_inline {\n"
        "  %c = arith.constant 0.5 : f32\n  %r = arith.mulf %v, %c : f32\n"
        "  gpuc.return %r : f32\n}\n"
    )
    missing = failed(gpuc("compile", str(kernel)))
    assert "cube" in missing
    result = gpuc("compile", str(kernel), "--library", str(library), "--validate")
    assert result.returncode == 0, result.stderr
    ptx = result.stdout.decode()
    assert ".func (.param .b32 func_retval0) cube_$_helper_$_no_inline(" in " ".join(
        ptx.split()
    )
    assert ".visible .func" not in ptx  # @half is private: not in the entrypoint set
    exported = gpuc(
        "compile", str(kernel), "--library", str(library), "--export", "half"
    )
    assert b".visible .func  (.param .b32 func_retval0) half(" in exported.stdout


def test_output_through_a_symlink_and_into_a_pipe(tmp_path: Path) -> None:
    """`-o /dev/null` must leave /dev/null a device: what is not a regular file
    is written in place, and a link keeps naming its file (stand-ins here: a
    FIFO and a symlink, never the real /dev/null)."""
    written = check_special_outputs(
        tmp_path,
        lambda out: gpuc("compile", SAXPY, "--sm", "80", "-o", out).returncode,
    )
    assert b".visible .entry saxpy(" in written


def test_unwritable_output_is_a_diagnostic(tmp_path: Path) -> None:
    out = tmp_path / "no" / "out.ptx"
    message = failed(gpuc("compile", SAXPY, "-o", str(out)))
    assert message.startswith(f"gpuc: error: cannot write output file '{out}': ")
    assert "No such file or directory" in message


def test_the_module_target_decides_without_target_and_flags_name_theirs(
    tmp_path: Path,
) -> None:
    """No --target: the module's #gpuc.target (else ptx); a target's own flag
    (--sm) names its target; a --target that disagrees is a diagnostic."""
    native = tmp_path / "native.mlir"
    native.write_text(
        "builtin.module attributes {gpuc.target = #gpuc.target<native>} {\n"
        "  gpuc.func @k() kernel {\n    gpuc.return\n  }\n}\n"
    )
    llvm = gpuc("compile", str(native), "--emit", "llvm")
    assert llvm.returncode == 0, llvm.stderr.decode()
    assert b"define void @__gpuc_launch_k(" in llvm.stdout
    assert "configured for native" in failed(gpuc("compile", str(native), "--sm", "80"))
    sm80 = gpuc("compile", SAXPY, "--sm", "80")
    assert sm80.returncode == 0 and b".target sm_80" in sm80.stdout
