"""`gpuc-opt` on good and bad input: every bad input gives a diagnostic (with
file:line:col where there is one), exit status 1, no traceback, nothing on
stdout and no output file; expected diagnostics (--verify-diagnostics) exit 0.

Most cases call `gpuc.cli.opt.main` in-process (fast); a few run the installed
`gpuc-opt` to check what a user's shell sees.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from special_outputs import check_special_outputs
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gpuc.cli import opt
from gpuc.diagnostics import OpError
from gpuc.dialects.functions import CallOp, FuncOp

GPUC_OPT = str(Path(sys.executable).with_name("gpuc-opt"))

KERNEL = """\
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %i: index) kernel {
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


@dataclass
class Result:
    status: int
    out: str
    err: str


@pytest.fixture
def gpuc_opt(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Result]:
    """Run `gpuc-opt args` in-process, with `stdin` bytes as standard input."""

    def run(*args: str, stdin: bytes = b"") -> Result:
        fake = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", fake)
        status = opt.main(list(args))
        captured = capsys.readouterr()
        return Result(status, captured.out, captured.err)

    return run


def write(tmp_path: Path, text: str | bytes, name: str = "input.mlir") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


def test_good_input_prints_the_module_and_reparses(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    first = gpuc_opt(write(tmp_path, KERNEL))
    assert (first.status, first.err) == (0, "")
    assert "gpuc.load %p[%i] : !gpuc.ptr<f32, global>" in first.out
    again = gpuc_opt(write(tmp_path, first.out, "again.mlir"))
    assert again.out == first.out


def test_output_is_deterministic(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    path = write(tmp_path, KERNEL)
    outputs = {gpuc_opt(path, "--print-op-generic").out for _ in range(3)}
    assert len(outputs) == 1


# (case id, input text or bytes, extra arguments, expected part of the message)
BAD_INPUT: list[tuple[str, str | bytes, list[str], str]] = [
    (
        "syntax",
        "gpuc.func @k() kernel {\n  gpuc.return\n",
        [],
        "input.mlir:3:1: error:",
    ),
    (
        "unknown-op",
        "gpuc.func @k() kernel {\n  %x = gpuc.warp_id\n  gpuc.return\n}\n",
        [],
        "input.mlir:2:8: error: unknown operation 'gpuc.warp_id': dialect 'gpuc' "
        "has no such op",
    ),
    (
        "unknown-dialect",
        '"vendor.op"() : () -> ()\n',
        [],
        "input.mlir:1:1: error: unknown operation 'vendor.op': dialect 'vendor' is "
        "not registered",
    ),
    (
        "unknown-type",
        "gpuc.func private @d(!vendor.thing) helper\n",
        [],
        "input.mlir:1:",
    ),
    (
        "unknown-address-space",
        "gpuc.func private @d(!gpuc.ptr<f32, texture>) helper\n",
        [],
        "input.mlir:1:37: error: unknown address space 'texture'",
    ),
    (
        "verifier",
        "gpuc.func @k(%a: f32) -> f32 kernel {\n  gpuc.return %a : f32\n}\n",
        [],
        "input.mlir:1:1: error: 'gpuc.func' op kernel @k returns (f32)",
    ),
    (
        "verifier-nested-op",
        "gpuc.func @k() kernel {\n  gpuc.call @nope() : () -> ()\n  gpuc.return\n}\n",
        [],
        "input.mlir:2:3: error: 'gpuc.call' op callee @nope does not exist",
    ),
    (
        "verifier-split",
        KERNEL + "// -----\n" + KERNEL.replace("f32, global", "f32, constant"),
        ["--split-input-file"],
        "input.mlir:9:3: error: 'gpuc.store' op cannot store through a pointer to "
        "constant memory",
    ),
    (
        "not-utf8",
        b"gpuc.func @k() kernel {\n  \xff\n}\n",
        [],
        "input.mlir': byte 0xff at line 2, column 3 is not UTF-8 text",
    ),
    ("unknown-pass", KERNEL, ["-p", "no-such-pass"], "Unrecognized passes"),
    (
        "unknown-pass-option",
        KERNEL,
        ["-p", "dce{bogus=1}"],
        "gpuc-opt: error: bad pass pipeline 'dce{bogus=1}'",
    ),
    ("malformed-pipeline", KERNEL, ["-p", "dce("], "bad pass pipeline 'dce('"),
    (
        "unknown-option",
        KERNEL,
        ["--no-such-flag"],
        "gpuc-opt: error: unrecognized arguments: --no-such-flag",
    ),
    ("unknown-target", KERNEL, ["-t", "vhdl"], "unknown target 'vhdl'"),
    (
        "unknown-target-option",
        KERNEL,
        ["-t", "ptx{nope=1}"],
        "gpuc-opt: error: bad target 'ptx{nope=1}'",
    ),
    (
        "ill-typed-target-option",
        KERNEL,
        ["-t", "ptx{sm=bogus}"],
        "gpuc-opt: error: bad target 'ptx{sm=bogus}'",
    ),
    ("malformed-target", KERNEL, ["-t", "ptx{"], "gpuc-opt: error: bad target 'ptx{'"),
]


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [case[1:] for case in BAD_INPUT],
    ids=[case[0] for case in BAD_INPUT],
)
def test_bad_input(
    gpuc_opt: Callable[..., Result],
    tmp_path: Path,
    text: str | bytes,
    args: list[str],
    message: str,
) -> None:
    output = tmp_path / "out.mlir"
    result = gpuc_opt(write(tmp_path, text), "-o", str(output), *args)
    assert result.status == 1
    assert message in result.err
    assert "Traceback" not in result.err
    assert result.out == ""
    assert not output.exists()
    assert os.listdir(tmp_path) == ["input.mlir"], "no temporary file left behind"


def test_missing_and_unreadable_input(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    missing = gpuc_opt(str(tmp_path / "nope.mlir"))
    assert missing.status == 1
    assert "cannot read input file" in missing.err
    assert "No such file or directory" in missing.err
    directory = gpuc_opt(str(tmp_path))
    assert directory.status == 1
    assert "Is a directory" in directory.err
    if os.geteuid() != 0:  # root reads anything
        locked = Path(write(tmp_path, KERNEL))
        locked.chmod(0)
        denied = gpuc_opt(str(locked))
        assert (denied.status, "Permission denied" in denied.err) == (1, True)


def test_unwritable_output(gpuc_opt: Callable[..., Result], tmp_path: Path) -> None:
    result = gpuc_opt(write(tmp_path, KERNEL), "-o", str(tmp_path / "no" / "x.mlir"))
    assert result.status == 1
    assert "cannot write output file" in result.err
    assert "No such file or directory" in result.err


def test_failure_leaves_an_existing_output_untouched(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    output = tmp_path / "out.mlir"
    output.write_text("previous contents\n")
    bad = write(tmp_path, "gpuc.func @k() kernel {\n")
    assert gpuc_opt(bad, "-o", str(output)).status == 1
    assert output.read_text() == "previous contents\n"


def test_output_file_is_written_whole_with_the_usual_mode(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    output = tmp_path / "out.mlir"
    result = gpuc_opt(write(tmp_path, KERNEL), "-o", str(output))
    assert (result.status, result.out, result.err) == (0, "", "")
    assert output.read_text() == gpuc_opt(write(tmp_path, KERNEL)).out
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(output.stat().st_mode) == 0o666 & ~umask
    dash = gpuc_opt(write(tmp_path, KERNEL), "-o", "-")
    assert dash.out == output.read_text()


def test_output_through_a_symlink_and_into_a_pipe(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    """A link still points to its file afterwards; a pipe (like /dev/null)
    stays a pipe: an atomic rename over it would replace the device."""
    source = write(tmp_path, KERNEL)
    written = check_special_outputs(
        tmp_path, lambda out: gpuc_opt(source, "-o", out).status
    )
    assert written.decode() == gpuc_opt(source).out


def test_stdin(gpuc_opt: Callable[..., Result]) -> None:
    good = gpuc_opt(stdin=KERNEL.encode())
    assert good.status == 0 and "gpuc.func @k" in good.out
    bad = gpuc_opt("-", stdin=b"gpuc.barrier\n")
    assert bad.status == 1
    assert "<stdin>:1:1: error: 'gpuc.barrier' op must be inside a function" in bad.err
    empty = gpuc_opt(stdin=b"// nothing but a comment\n")
    assert (empty.status, empty.out) == (0, "builtin.module {\n}\n\n")


def test_verify_diagnostics_prints_in_place_and_exits_0(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    broken = "gpuc.func @k(%a: f32) -> f32 kernel {\n  gpuc.return %a : f32\n}\n"
    text = KERNEL + "// -----\n" + broken + "// -----\n" + KERNEL
    result = gpuc_opt(
        write(tmp_path, text), "--split-input-file", "--verify-diagnostics"
    )
    assert (result.status, result.err) == (0, "")
    pieces = result.out.split("// -----\n")
    assert len(pieces) == 3
    assert pieces[0].startswith("builtin.module {") and pieces[2] == pieces[0]
    assert pieces[1].startswith(
        f"{tmp_path}/input.mlir:7:1: error: 'gpuc.func' op kernel @k returns (f32)"
    )
    # A syntax error is not a verifier diagnostic: without --parsing-diagnostics
    # it still fails the run.
    syntax = write(tmp_path, KERNEL + "// -----\ngpuc.func\n", "syntax.mlir")
    failed = gpuc_opt(syntax, "--split-input-file", "--verify-diagnostics")
    assert (failed.status, failed.out) == (1, "")
    parsing = gpuc_opt(syntax, "--split-input-file", "--parsing-diagnostics")
    assert parsing.status == 0
    assert "syntax.mlir:8:1: error: expect symbol name" in parsing.out


def test_every_split_piece_is_reported(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    text = "gpuc.barrier\n// -----\n" + KERNEL + "// -----\ngpuc.func @k(\n"
    result = gpuc_opt(write(tmp_path, text), "--split-input-file")
    assert result.status == 1
    assert "input.mlir:1:1: error: 'gpuc.barrier' op must be inside a function" in (
        result.err
    )
    assert "input.mlir:10:1: error: type expected" in result.err
    assert result.out == ""


# Passes that misbehave, to see how gpuc-opt reports what passes do.


@dataclass(frozen=True)
class AddCallToMissing(ModulePass):
    """Append a call to @missing in every function (an op with no location)."""

    name = "test-add-call-to-missing"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            terminator = func.body.block.last_op
            assert terminator is not None
            func.body.block.insert_op_before(CallOp("missing", [], []), terminator)


@dataclass(frozen=True)
class RejectLoads(ModulePass):
    """Report the first gpuc.load as a diagnostic, the way gpuc passes do."""

    name = "test-reject-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for child in op.walk():
            if child.name == "gpuc.load":
                raise OpError(child, "loads are not supported here")


@dataclass(frozen=True)
class Crash(ModulePass):
    """A pass with a bug."""

    name = "test-crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise KeyError("oops")


@pytest.fixture
def test_passes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    register = opt.GpucOptMain.register_all_passes

    def with_test_passes(self: opt.GpucOptMain) -> None:
        register(self)
        for test_pass in (AddCallToMissing, RejectLoads, Crash):
            self.register_pass(test_pass.name, lambda p=test_pass: p)

    monkeypatch.setattr(opt.GpucOptMain, "register_all_passes", with_test_passes)
    yield


@pytest.mark.usefixtures("test_passes")
def test_invalid_ir_made_by_a_pass_is_reported_where_its_function_was_written(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    result = gpuc_opt(write(tmp_path, KERNEL), "-p", "test-add-call-to-missing")
    assert result.status == 1
    assert "input.mlir:1:1: error: 'gpuc.call' op callee @missing does not exist" in (
        result.err
    )
    assert "input.mlir:1:1: note: the op was created by a pass" in result.err
    assert '"gpuc.call"() <{callee = @missing}> : () -> ()' in result.err


@pytest.mark.usefixtures("test_passes")
def test_op_error_from_a_pass_is_located(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    result = gpuc_opt(write(tmp_path, KERNEL), "-p", "test-reject-loads")
    assert result.status == 1
    assert result.err.startswith(
        f"{tmp_path}/input.mlir:2:8: error: 'gpuc.load' op loads are not supported here"
    )
    diagnostics = gpuc_opt(
        write(tmp_path, KERNEL), "-p", "test-reject-loads", "--verify-diagnostics"
    )
    assert diagnostics.status == 0
    assert "input.mlir:2:8: error: 'gpuc.load' op loads are not" in diagnostics.out


@pytest.mark.usefixtures("test_passes")
def test_a_crashing_pass_is_an_internal_error_without_traceback(
    gpuc_opt: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPUC_DEBUG", raising=False)
    result = gpuc_opt(write(tmp_path, KERNEL), "-p", "test-crash")
    assert result.status == 1
    assert "gpuc-opt: internal error: KeyError: 'oops'" in result.err
    assert "GPUC_DEBUG=1" in result.err and "Traceback" not in result.err
    monkeypatch.setenv("GPUC_DEBUG", "1")
    with pytest.raises(KeyError):
        opt.main([write(tmp_path, KERNEL), "-p", "test-crash"])


def test_installed_command_reports_without_traceback(tmp_path: Path) -> None:
    """The real executable: exit status 1, diagnostic on stderr, stdout empty."""
    bad = write(tmp_path, "gpuc.func @k() kernel {\n  gpuc.call @nope() : () -> ()\n")
    output = tmp_path / "out.mlir"
    done = subprocess.run(
        [GPUC_OPT, bad, "-o", str(output)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(f"{bad}:3:1: error:")
    assert "Traceback" not in done.stderr
    assert not output.exists()


MLIR16_SAXPY = Path(__file__).parent / "filecheck" / "import" / "saxpy.mlir"


def test_mlir16_text_verifies_and_its_errors_are_located(
    gpuc_opt: Callable[..., Result], tmp_path: Path
) -> None:
    """MLIR 16's generic text is upgraded while it is parsed (no import pass,
    no --disable-verify); a verifier error in it, in a later split piece,
    points at the op's line in the whole file."""
    good = gpuc_opt(str(MLIR16_SAXPY))
    assert (good.status, good.err) == (0, "")
    assert "gpu.module_end" not in good.out
    assert "operand_segment_sizes" not in good.out
    text = MLIR16_SAXPY.read_text()
    load = '"memref.load"(%arg1, %0) : (memref<?xf32>, index) -> f32'
    two_indices = '"memref.load"(%arg1, %0, %0) : (memref<?xf32>, index, index) -> f32'
    addf = '#arith.fastmath<none>} : (f32, f32) -> f32\n        "memref.store"'
    cases = [
        (text.replace(load, two_indices), two_indices, "error: 'memref.load' op"),
        (
            text.replace(addf, addf.replace("f32\n", "f64\n")),
            "%7, %arg2",
            "error: operand is used with type f32",
        ),
    ]
    for broken, at, message in cases:
        assert broken != text
        source = KERNEL + "// -----\n" + broken
        before = source[: source.index(at)]
        line = before.count("\n") + 1
        col = len(before) - before.rfind("\n")
        path = write(tmp_path, source)
        result = gpuc_opt(path, "--split-input-file")
        assert result.status == 1
        assert result.err.startswith(f"{path}:{line}:{col}: {message}"), result.err
        assert "Traceback" not in result.err


def test_a_module_without_gpu_ops_does_not_import_the_gpu_dialect(
    tmp_path: Path,
) -> None:
    """Parsing upgrades MLIR-printed ops by name, so gpuc-opt's start-up cost
    does not grow by xDSL's gpu and memref dialects on every input."""
    probe = (
        "import sys\nfrom gpuc.cli import opt\nstatus = opt.main(sys.argv[1:])\n"
        "print(status, *sorted(m for m in sys.modules if m in "
        "('xdsl.dialects.gpu', 'xdsl.dialects.memref')))"
    )

    def loaded(path: str | Path) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(path), "-o", str(tmp_path / "o.mlir")],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.split()

    assert loaded(write(tmp_path, KERNEL)) == ["0"]
    assert loaded(MLIR16_SAXPY) == ["0", "xdsl.dialects.gpu", "xdsl.dialects.memref"]
