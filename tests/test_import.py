"""The `import` pass and the reading of other tools' text, from Python.

Modules built with xDSL's builders (examples/frontend_xdsl.py) import into the
documented signatures; the import is deterministic, idempotent and all or
nothing; MLIR 16's generic text is upgraded to what xDSL 0.74 verifies; the
committed MLIR 16 inputs are what mlir-opt-16 prints today (when installed).
"""
# ruff: noqa: E501  (MLIR text below is kept as mlir-opt prints it, one op a line)

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import IndexType, ModuleOp, UnitAttr, f32, i32
from xdsl.ir import Attribute
from xdsl.utils.exceptions import ParseError

from gpuc.context import make_context
from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace, PtrType
from gpuc.dialects.foreign.gpu import GPUAddressSpace, GPUAddressSpaceAttr
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.memory import SharedAllocOp
from gpuc.reader.text import parse_foreign_module, upgrade_foreign_ops
from gpuc.transforms.import_foreign import ImportForeign

ROOT = Path(__file__).resolve().parents[1]
MLIR16_DIR = ROOT / "tests" / "filecheck" / "import"
GLOBAL_F32 = PtrType(f32, AddressSpace.GLOBAL)


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "examples" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


frontend = load_example("frontend_xdsl")


def imported(module: ModuleOp) -> ModuleOp:
    ImportForeign().apply(make_context(), module)
    module.verify()
    return module


def signature(module: ModuleOp, name: str) -> tuple[Attribute, ...]:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op.function_type.inputs.data
    raise AssertionError(f"no gpuc.func @{name} in\n{module}")


def test_builders_import_to_the_bare_pointer_convention() -> None:
    index = IndexType()
    saxpy = imported(frontend.saxpy())
    assert signature(saxpy, "saxpy") == (f32, GLOBAL_F32, index, GLOBAL_F32, index)

    block_sum = imported(frontend.block_sum())
    assert signature(block_sum, "block_sum") == (GLOBAL_F32, index, GLOBAL_F32, index)
    allocs = [op for op in block_sum.walk() if isinstance(op, SharedAllocOp)]
    assert [a.count.value.data for a in allocs] == [frontend.REDUCE_BLOCK]
    assert not [
        op for op in block_sum.walk() if op.name.startswith(("gpu.", "memref."))
    ]

    transpose = imported(frontend.transpose_scale())
    matrix = (GLOBAL_F32, index, index)
    assert signature(transpose, "transpose_scale") == (f32, *matrix, *matrix)
    assert signature(transpose, "scaled") == (f32, *matrix, index, index)


@pytest.mark.parametrize("build", ["saxpy", "block_sum", "transpose_scale"])
def test_import_is_deterministic_and_idempotent(build: str) -> None:
    once = imported(getattr(frontend, build)())
    again = imported(getattr(frontend, build)())
    assert str(once) == str(again)
    assert str(imported(once)) == str(again)


def test_failed_import_reports_every_problem_and_changes_nothing() -> None:
    module = parse_foreign_module(
        """
        func.func @fine(%m: memref<4xf32>, %i: index) attributes {gpu.kernel} {
          %v = memref.load %m[%i] : memref<4xf32>
          func.return
        }
        func.func @bad(%t: tensor<4xf32>, %m: memref<2x2xf32, affine_map<(d0, d1) -> (d1, d0)>>) {
          %a = memref.alloc() : memref<4xf32>
          func.return
        }
        """
    )
    before = str(module)
    with pytest.raises(OpError) as error:
        ImportForeign().apply(make_context(), module)
    assert str(module) == before
    text = "\n".join([str(error.value), *error.value.__notes__])
    assert "tensor type tensor<4xf32> is not supported" in text
    assert "layout affine_map<(d0, d1) -> (d1, d0)> is not supported" in text
    assert "allocates per-thread memory" in text
    assert len(error.value.__notes__) == 2


# MLIR 16 prints these; each is parsed and upgraded, then must verify.

MODULE_END = """
"gpu.module"() ({
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
  "gpu.module_end"() : () -> ()
}) {sym_name = "m"} : () -> ()
"""

ATTRIBUTIONS = """
"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%arg0: memref<?xf32>, %w: memref<32xf32, #gpu.address_space<workgroup>>, %p: memref<4xf32, #gpu.address_space<private>>):
    %c0 = "arith.constant"() {value = 0 : index} : () -> index
    %v = "memref.load"(%w, %c0) : (memref<32xf32, #gpu.address_space<workgroup>>, index) -> f32
    "gpu.return"() : () -> ()
  }) {function_type = (memref<?xf32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 1 : i64} : () -> ()
  "gpu.module_end"() : () -> ()
}) {sym_name = "m"} : () -> ()
"""

GLOBALS_AND_SEGMENTS = """
"memref.global"() {sym_name = "declared", type = memref<8xf32, 3>} : () -> ()
"func.func"() ({
  %a = "memref.alloca"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<4xf32, 3>
  "func.return"() : () -> ()
}) {function_type = () -> (), sym_name = "f"} : () -> ()
"""

LAUNCH_FUNC = """
"func.func"() ({
^bb0(%n: index, %x: f32):
  "gpu.launch_func"(%n, %n, %n, %n, %n, %n, %x) {kernel = @m::@k, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 1>} : (index, index, index, index, index, index, f32) -> ()
  "func.return"() : () -> ()
}) {function_type = (index, f32) -> (), sym_name = "host"} : () -> ()
"""


def test_upgrade_drops_module_end_and_makes_gpu_kernel_a_property() -> None:
    module = parse_foreign_module(MODULE_END)
    module.verify()
    assert not [op for op in module.walk() if op.name == "gpu.module_end"]
    (fn,) = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    assert isinstance(fn.kernel, UnitAttr) and "gpu.kernel" not in fn.attributes
    assert "workgroup_attributions" not in fn.attributes


def test_upgrade_turns_attributions_into_allocas() -> None:
    module = parse_foreign_module(ATTRIBUTIONS)
    module.verify()
    (fn,) = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    entry = fn.body.blocks[0]
    assert len(entry.args) == 1
    allocas = [op for op in entry.ops if isinstance(op, memref.AllocaOp)]
    spaces = [a.memref.type.memory_space for a in allocas]
    assert spaces == [
        GPUAddressSpaceAttr(GPUAddressSpace.WORKGROUP),
        GPUAddressSpaceAttr(GPUAddressSpace.PRIVATE),
    ]
    # Both import: to gpuc.shared_alloc and gpuc.private_alloc.
    ImportForeign().apply(make_context(), module)
    names = [op.name for op in module.walk()]
    assert "gpuc.shared_alloc" in names and "gpuc.private_alloc" in names


def test_upgrade_completes_globals_and_renames_segment_sizes() -> None:
    module = parse_foreign_module(GLOBALS_AND_SEGMENTS)
    module.verify()
    (glob,) = [op for op in module.walk() if isinstance(op, memref.GlobalOp)]
    assert glob.sym_visibility.data == "public"
    assert isinstance(glob.initial_value, UnitAttr)
    (alloca,) = [op for op in module.walk() if isinstance(op, memref.AllocaOp)]
    assert "operand_segment_sizes" not in alloca.attributes
    imported(module)


def test_upgrade_widens_launch_func_segments() -> None:
    module = parse_foreign_module(LAUNCH_FUNC)
    module.verify()
    (launch,) = [op for op in module.walk() if isinstance(op, gpu.LaunchFuncOp)]
    assert list(launch.kernelOperands) and launch.clusterSizeX is None


MALFORMED_GPU_FUNC = """
"builtin.module"() ({{
  "gpu.module"() ({{
    "gpu.func"() ({{
    ^bb0(%arg0: memref<?xf32>{extra}):
      "gpu.return"() : () -> ()
    }}) {{{function_type}gpu.kernel, sym_name = "k"}} : () -> ()
  }}) {{sym_name = "m"}} : () -> ()
}}) {{gpu.container_module}} : () -> ()
"""


@pytest.mark.parametrize(
    ("extra", "function_type", "message"),
    [
        # The upgrade raised a KeyError and an AttributeError on the first two
        # (gpuc: internal error) and an AssertionError on the third.
        ("", "", "property 'function_type' expected in operation 'gpu.func'"),
        ("", "function_type = 5, ", "5 : i64 should be of base attribute fun"),
        (
            ", %arg1: f32",
            "function_type = (memref<?xf32>) -> (), ",
            "Expected first entry block arguments to have the same types",
        ),
    ],
    ids=["no function_type", "not a type", "extra scalar argument"],
)
def test_malformed_gpu_func_is_left_to_the_verifier(
    extra: str, function_type: str, message: str
) -> None:
    from xdsl.utils.exceptions import DiagnosticException

    from gpuc.driver import load_module

    text = MALFORMED_GPU_FUNC.format(extra=extra, function_type=function_type)
    with pytest.raises(DiagnosticException, match=re.escape(message)) as info:
        load_module(text)
    assert str(info.value).startswith("<source>:4:5: error: 'gpu.func' op")


@pytest.mark.parametrize("text", [MODULE_END, ATTRIBUTIONS, GLOBALS_AND_SEGMENTS])
def test_upgrade_is_idempotent(text: str) -> None:
    module = parse_foreign_module(text)
    before = str(module)
    upgrade_foreign_ops(module)
    assert str(module) == before


def test_gpu_address_space_attribute_parses_and_prints() -> None:
    text = "memref<4xf32, #gpu.address_space<workgroup>>"
    module = parse_foreign_module(
        f'"func.func"() <{{sym_name = "f", function_type = ({text}) -> ()}}> ({{\n'
        f"^bb0(%m: {text}):\n  func.return\n}}) : () -> ()"
    )
    assert text in str(module)
    with pytest.raises(ParseError, match="expected one of: global, workgroup, private"):
        parse_foreign_module(
            "func.func private @f(memref<4xf32, #gpu.address_space<shared>>)"
        )


def test_integer_and_keyword_spaces_agree() -> None:
    numbered = parse_foreign_module(
        "func.func @f(%a: memref<4xi32, 3>, %b: memref<4xi32, 5>) { func.return }"
    )
    named = parse_foreign_module(
        "func.func @f(%a: memref<4xi32, #gpu.address_space<workgroup>>, "
        "%b: memref<4xi32, #gpu.address_space<private>>) { func.return }"
    )
    assert (
        signature(imported(numbered), "f")
        == signature(imported(named), "f")
        == (
            PtrType(i32, AddressSpace.SHARED),
            PtrType(i32, AddressSpace.LOCAL),
        )
    )


DEBUGINFO = """
"builtin.module"() ({
  "func.func"() ({
    %0 = "memref.alloc"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<4xf32> loc(#loc1)
    "func.return"() : () -> () loc(#loc2)
  }) {function_type = () -> (), gpu.kernel, sym_name = "k"} : () -> () loc(#loc3)
}) : () -> () loc(#loc)
#loc = loc("kernel.mlir":1:1)
#loc1 = loc("kernel.mlir":3:8)
#loc2 = loc("kernel.mlir":4:3)
#loc3 = loc("kernel.mlir":2:1)
"""


def test_debuginfo_locations_name_the_frontends_source() -> None:
    # mlir-opt --mlir-print-debuginfo defines its location aliases after the
    # module; the diagnostic points into the file the frontend compiled.
    module = parse_foreign_module(DEBUGINFO, name="printed.mlir")
    with pytest.raises(OpError) as error:
        ImportForeign().apply(make_context(), module)
    assert str(error.value).startswith(
        "kernel.mlir:3:8: error: 'memref.alloc' op allocates per-thread memory"
    )


def test_text_positions_survive_moved_aliases() -> None:
    text = DEBUGINFO.replace(" loc(#loc1)", "")
    module = parse_foreign_module(text, name="printed.mlir")
    with pytest.raises(OpError) as error:
        ImportForeign().apply(make_context(), module)
    assert str(error.value).startswith("printed.mlir:4:10: error: 'memref.alloc' op")


def committed_mlir16_text(path: Path) -> str:
    """The generated part of a committed MLIR 16 input: all after the header."""
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if not line.startswith("//"))
    return "".join(lines[start:]).lstrip("\n")


@pytest.mark.parametrize(
    "source", sorted((MLIR16_DIR / "Inputs").glob("*.mlir")), ids=lambda p: p.stem
)
def test_committed_mlir16_text_imports(source: Path) -> None:
    committed = committed_mlir16_text(MLIR16_DIR / source.name)
    module = imported(parse_foreign_module(committed, name=source.name))
    assert any(isinstance(op, FuncOp) and op.is_kernel for op in module.ops)


@pytest.mark.skipif(shutil.which("mlir-opt-16") is None, reason="needs mlir-opt-16")
@pytest.mark.parametrize(
    "source", sorted((MLIR16_DIR / "Inputs").glob("*.mlir")), ids=lambda p: p.stem
)
def test_committed_mlir16_text_is_current(source: Path) -> None:
    fresh = subprocess.run(
        ["mlir-opt-16", "--mlir-print-op-generic", str(source)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert committed_mlir16_text(MLIR16_DIR / source.name) == fresh


def test_cli_reports_without_traceback_and_writes_nothing(tmp_path: Path) -> None:
    source = tmp_path / "bad.mlir"
    source.write_text(
        "func.func @k(%m: memref<4xf32, affine_map<(d0) -> (d0 * 2)>>) "
        "attributes {gpu.kernel} {\n"
        "  func.return\n}\n"
    )
    output = tmp_path / "out.mlir"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuc.cli.opt",
            "-p",
            "import",
            str(source),
            "-o",
            str(output),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert (
        f"{source}:1:1: error: 'func.func' op @k has a parameter whose layout"
        in run.stderr
    )
    assert not output.exists()


def test_zero_dim_memref_is_a_plain_pointer() -> None:
    module = imported(
        parse_foreign_module("func.func @f(%s: memref<i32, 1>) { func.return }")
    )
    assert signature(module, "f") == (PtrType(i32, AddressSpace.GLOBAL),)


def test_mlir16_text_reaches_xdsl_opt_through_gpuc_opt() -> None:
    """docs/frontends.md: plain xdsl-opt cannot read MLIR 16's text (with or
    without --disable-verify); `gpuc-opt -p import` can, and its output is
    xdsl-opt's to run passes on."""
    source = MLIR16_DIR / "reduction.mlir"
    bin_dir = Path(sys.executable).parent
    plain = subprocess.run(
        [bin_dir / "xdsl-opt", "--disable-verify", "-p", "import", source],
        capture_output=True,
        text=True,
    )
    assert plain.returncode != 0 and "is not registered" in plain.stderr
    imported = subprocess.run(
        [bin_dir / "gpuc-opt", "-p", "import", source],
        capture_output=True,
        text=True,
        check=True,
    )
    onward = subprocess.run(
        [bin_dir / "xdsl-opt", "-p", "resolve-deferred"],
        input=imported.stdout,
        capture_output=True,
        text=True,
    )
    assert onward.returncode == 0, onward.stderr
    assert "gpuc.func @block_sum" in onward.stdout


def test_custom_gpu_module_syntax_says_to_print_generic(tmp_path: Path) -> None:
    """MLIR's custom `gpu.module` syntax, which xDSL cannot parse: a located
    diagnostic pointing to --mlir-print-op-generic, exit 1, no traceback."""
    import gpuc
    from gpuc.diagnostics import SourceParseError

    source = tmp_path / "custom.mlir"
    source.write_text(
        "module attributes {gpu.container_module} {\n"
        "  gpu.module @m {\n"
        "    gpu.func @k(%x: memref<?xf32>) kernel {\n"
        "      gpu.return\n"
        "    }\n"
        "  }\n"
        "}\n"
    )
    bin_dir = Path(sys.executable).parent
    for command in (
        [bin_dir / "gpuc-opt", "-p", "import", source],
        [bin_dir / "gpuc", "compile", "--target", "native", source],
    ):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 1
        assert "Traceback" not in done.stderr
        assert f"{source}:2:14: error: Operation gpu.module" in done.stderr
        assert "`mlir-opt --mlir-print-op-generic` first" in done.stderr
    with pytest.raises(SourceParseError, match="--mlir-print-op-generic` first"):
        gpuc.compile(source, target="native")
