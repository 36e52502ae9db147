"""The dialect-level pipeline from Python (`GpucPipeline(...).passes()` run by
`run_passes`)
and the gpuc-pipeline pass: job sources in order (module, libraries,
generators), generators given in Python or found through the
`gpuc.generators` entry point group, and the diagnostics of bad generators."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import AddfOp, ConstantOp
from xdsl.dialects.builtin import (
    FloatAttr,
    FunctionType,
    IntegerType,
    ModuleOp,
    f32,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import DiagnosticException

from gpuc.context import make_context
from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import ENTRYPOINTS_ATTR, TARGET_ATTR, Role
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.generators import Generator, GeneratorRequest, Generators
from gpuc.libraries import LibrarySource
from gpuc.registry import PASSES, lazy
from gpuc.transforms.attach_target import AttachTarget
from gpuc.transforms.gpuc_pipeline import AfterPass, GpucPipeline, run_passes

SAXPY = """
gpuc.func @saxpy(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                 %n: i32) kernel {
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %xv = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %yv = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
    %r = gpuc.deferred_call @fma_body(%a, %xv, %yv) #gpuc.job<helper, always_inline>
         : (f32, f32, f32) -> f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

gpuc.func private @fma_body(%a: f32, %x: f32, %y: f32) -> f32 helper {
  %p = arith.mulf %a, %x : f32
  %s = arith.addf %p, %y : f32
  gpuc.return %s : f32
}
"""

CALLS_CONST = """
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %v = gpuc.deferred_call @const(%p) #gpuc.job<helper> : (!gpuc.ptr<f32, global>) -> f32
  gpuc.store %v, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def run_dialect_pipeline(
    module: ModuleOp,
    *,
    target: str = "",
    exports: Sequence[str] = (),
    libraries: Sequence[LibrarySource] = (),
    generators: Mapping[str, Generator] | None = None,
    after_pass: AfterPass | None = None,
    opt_level: int | None = None,
) -> ModuleOp:
    """GpucPipeline's passes on `module`, as the driver runs them; returns it.
    An `opt_level` is set on the module first, where the pipeline reads it
    (at O0 `inline` keeps the helpers called once)."""
    if opt_level is not None:
        run_passes(make_context(), module, [AttachTarget(target, opt_level)])
    pipeline = GpucPipeline(
        target, tuple(exports), tuple(libraries), tuple((generators or {}).items())
    )
    run_passes(make_context(), module, pipeline.passes(module), after_pass)
    return module


def func_names(module: ModuleOp) -> list[str]:
    return [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]


def constant_function(signature: FunctionType, value: float) -> FuncOp:
    body = Block(arg_types=signature.inputs.data)
    const = ConstantOp(FloatAttr(value, f32))
    body.add_ops([const, ReturnOp(const)])
    return FuncOp("made", signature, Role.HELPER, Region(body))


class ConstGenerator(Generator):
    """Makes any `(...) -> f32` source return 42; counts its calls."""

    name: ClassVar[str] = "const"
    calls: ClassVar[list[str]] = []

    def generate(self, request: GeneratorRequest) -> FuncOp | None:
        self.calls.append(request.source)
        if request.signature.outputs.data != (f32,):
            return None
        return constant_function(request.signature, 42.0)


@pytest.fixture(autouse=True)
def reset_calls() -> None:
    ConstGenerator.calls.clear()


def test_saxpy_through_the_pipeline() -> None:
    module = run_dialect_pipeline(parse(SAXPY), target="ptx")
    assert func_names(module) == ["saxpy"]
    assert str(module.attributes[TARGET_ATTR]) == "#gpuc.target<ptx, sm = 90>"
    assert str(module.attributes[ENTRYPOINTS_ATTR]) == "[@saxpy]"
    text = str(module)
    assert "arith.mulf" in text and "gpuc.call" not in text and "deferred" not in text


def test_output_is_deterministic() -> None:
    first = str(
        run_dialect_pipeline(
            parse(SAXPY + CALLS_CONST), generators={"const": ConstGenerator()}
        )
    )
    second = str(
        run_dialect_pipeline(
            parse(SAXPY + CALLS_CONST), generators={"const": ConstGenerator()}
        )
    )
    assert first == second


def test_generators_come_after_the_module_and_libraries(tmp_path: Path) -> None:
    generators = {"const": ConstGenerator()}
    module = run_dialect_pipeline(parse(CALLS_CONST), generators=generators)
    assert ConstGenerator.calls == ["const"], "the const generator made @const"
    assert "arith.constant 4.200000e+01" in str(module)

    library = tmp_path / "lib.mlir"
    library.write_text(
        "gpuc.func @const(%p: !gpuc.ptr<f32, global>) -> f32 helper {\n"
        "  %c = arith.constant 7.0 : f32\n  gpuc.return %c : f32\n}\n"
    )
    ConstGenerator.calls.clear()
    from_file = run_dialect_pipeline(
        parse(CALLS_CONST), libraries=[library], generators=generators
    )
    assert ConstGenerator.calls == [], "a library definition comes before generators"
    assert "7.000000e+00" in str(from_file)

    in_module = parse(CALLS_CONST + library.read_text().replace("7.0", "3.0"))
    lib_module = parse(library.read_text())
    result = run_dialect_pipeline(
        in_module, libraries=[lib_module], generators=generators
    )
    assert ConstGenerator.calls == []
    assert "3.000000e+00" in str(result), "the module's own definition comes first"


class Broken(Generator):
    name: ClassVar[str] = "broken"

    def __init__(self, result: object = None, error: Exception | None = None):
        self.result = result
        self.error = error

    def generate(self, request: GeneratorRequest) -> FuncOp | None:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


def _bad_body(signature: FunctionType) -> FuncOp:
    """A function of `signature` whose gpuc.return returns an i32."""
    body = Block(arg_types=signature.inputs.data)
    const = ConstantOp.from_int_and_width(1, i32)
    body.add_ops([const, ReturnOp(const)])
    return FuncOp("bad", signature, Role.HELPER, Region(body))


SIG = FunctionType.from_lists([], [f32])
CALLS_SRC = """
gpuc.func @k() kernel {
  %v = gpuc.deferred_call @src() #gpuc.job<helper, generator = "broken"> : () -> f32
  gpuc.return
}
"""


@pytest.mark.parametrize(
    ("generator", "message"),
    [
        (
            Broken(error=RuntimeError("out of tape")),
            "generator 'broken' failed on job @src .*RuntimeError: out of tape",
        ),
        (
            Broken(result="not an op"),
            "returned an ill-formed function .*: a str, not a gpuc.func",
        ),
        (
            Broken(
                result=constant_function(FunctionType.from_lists([f32], [f32]), 1.0)
            ),
            "its type \\(f32\\) -> f32 differs from the requested \\(\\) -> f32",
        ),
        (
            Broken(result=FuncOp.declaration("d", [], [f32])),
            "a declaration without a body",
        ),
        (Broken(result=None), "generator 'broken' declined job @src"),
    ],
)
def test_bad_generators_are_diagnostics(generator: Generator, message: str) -> None:
    with pytest.raises(DiagnosticException, match=message):
        run_dialect_pipeline(parse(CALLS_SRC), generators={"broken": generator})


def test_a_generated_body_that_does_not_verify_is_a_diagnostic() -> None:
    generator = Broken(result=_bad_body(SIG))
    with pytest.raises(
        DiagnosticException,
        match="generator 'broken' returned an ill-formed function for job @src .*: "
        "returns \\(i32\\) but @src.helper.broken declares results \\(f32\\)",
    ):
        run_dialect_pipeline(parse(CALLS_SRC), generators={"broken": generator})


PLUGIN = '''
from typing import ClassVar
from gpuc.generators import Generator, GeneratorRequest
from gpuc.dialects.functions import FuncOp
from gpuc.generators.mock_autodiff import MockAutodiff


class Renamed(MockAutodiff):
    """A third-party generator: mock_autodiff under another name."""

    name: ClassVar[str] = "third_party"
'''


def test_plugins_are_found_through_the_entry_point_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gpuc_test_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "gpuc_test_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gpuc-test-plugin\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        textwrap.dedent(
            """\
            [gpuc.generators]
            third_party = gpuc_test_plugin:Renamed
            mock_autodiff = gpuc_test_plugin:Renamed
            missing = gpuc_test_plugin_gone:Nothing
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    generators = Generators()
    assert {"third_party", "mock_autodiff", "missing"} <= set(generators.names())
    assert type(generators.get("third_party")).__name__ == "Renamed"
    assert type(generators.get("mock_autodiff")).__name__ == "MockAutodiff", (
        "shipped wins"
    )
    with pytest.raises(
        DiagnosticException,
        match="generator plugin 'missing' failed to load: ModuleNotFoundError",
    ):
        generators.get("missing")

    module = parse(
        """gpuc.func @k(%x: f32) kernel {
             %r = gpuc.deferred_call @f(%x)
                  #gpuc.job<helper, generator = "third_party"> : (f32) -> f32
             gpuc.return
           }
           gpuc.func @f(%x: f32) -> f32 helper {
             gpuc.return %x : f32
           }"""
    )
    run_dialect_pipeline(module, opt_level=0)
    assert func_names(module) == ["k", "f.helper.third_party", "f.helper"]
    sys.modules.pop("gpuc_test_plugin", None)


def test_pass_options_parse_from_a_pipeline_spec() -> None:
    available = {name: lazy(path) for name, path in PASSES.items() if name != "import"}
    spec = (
        'gpuc-pipeline{target=spirv exports=a,"@b" libraries="lib/x.mlir","y.mlir"},'
        'resolve-deferred{libraries="z.mlir"},classify-entrypoints{exports=c},'
        'symbol-privatize{exclude=main},attach-target{target="ptx{sm=80}"},'
        "finalize-kernels,verify-target"
    )
    passes = PassPipeline.parse_spec(available, spec).passes
    options = [
        {k: v for k, v in vars(p).items() if not k.startswith("_")} for p in passes
    ]
    assert options == [
        {
            "target": "spirv",
            "exports": ("a", "@b"),
            "libraries": ("lib/x.mlir", "y.mlir"),
            "generators": (),
            "upgrade_foreign": True,
            "gpu_module": "",
            "configured": None,
        },
        {
            "libraries": ("z.mlir",),
            "generators": (),
            "move_sources": False,
            "exports": (),
        },
        {"exports": ("c",)},
        {"exclude": ("main",)},
        {
            "target": "ptx{sm=80}",
            "opt_level": None,
            "fp_contract": None,
            "line_info": None,
            "checked": None,
            "configured": None,
        },
        {},
        {},
    ]


LIBRARY = """
builtin.module attributes {gpuc.target = #gpuc.target<spirv>} {
  gpuc.func @lib(%x: f32) -> f32 helper {
    %y = gpuc.call @dep(%x) : (f32) -> f32
    gpuc.return %y : f32
  }
  gpuc.func @dep(%x: f32) -> f32 helper {
    gpuc.return %x : f32
  }
}
"""

USES_LIB = """
gpuc.func @k(%x: f32) kernel {
  %r = gpuc.deferred_call @lib(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
"""


def test_a_library_for_another_target_is_a_diagnostic() -> None:
    with pytest.raises(
        DiagnosticException,
        match="made for target 'spirv', but this module is for 'ptx'",
    ):
        run_dialect_pipeline(parse(USES_LIB), target="ptx", libraries=[parse(LIBRARY)])
    module = run_dialect_pipeline(
        parse(USES_LIB), target="spirv", libraries=[parse(LIBRARY)], opt_level=0
    )
    assert func_names(module) == ["k", "lib.helper", "dep"]


def _binary_file(tmp: Path) -> Path:
    path = tmp / "lib.bin"
    path.write_bytes(b"\xff")
    return path


@pytest.mark.parametrize(
    ("make_path", "message"),
    [
        (lambda tmp: "", "a library path is empty; name a library file"),
        (lambda tmp: str(tmp), "cannot read library '.*': Is a directory$"),
        (
            lambda tmp: str(tmp / "nope.mlir"),
            "cannot read library '.*nope.mlir': No such file or directory$",
        ),
        (
            _binary_file,
            "cannot read library '.*lib.bin': byte 0xff at line 1, column 1 is not",
        ),
    ],
    ids=["empty", "directory", "missing", "binary"],
)
def test_an_unreadable_library_is_a_diagnostic(
    tmp_path: Path, make_path: Callable[[Path], str | Path], message: str
) -> None:
    with pytest.raises(DiagnosticException, match=message):
        run_dialect_pipeline(parse(USES_LIB), libraries=[make_path(tmp_path)])


def test_a_declaration_that_disagrees_with_the_library_is_a_diagnostic() -> None:
    module = parse(USES_LIB + "gpuc.func private @dep(i32) -> i32 helper\n")
    with pytest.raises(
        DiagnosticException,
        match="@dep is declared in the module as \\(i32\\) -> i32 but library "
        ".* defines it as \\(f32\\) -> f32",
    ):
        run_dialect_pipeline(module, target="spirv", libraries=[parse(LIBRARY)])


def test_the_pipeline_on_its_own_output_changes_nothing() -> None:
    module = parse(SAXPY + "gpuc.func @keep() helper {\n  gpuc.return\n}\n")
    once = str(run_dialect_pipeline(module, exports=["keep"]))
    assert once == str(run_dialect_pipeline(module))
    assert "gpuc.func @keep()" in once


DIALECT_PASSES = [
    "attach-target",
    "resolve-deferred",
    "classify-entrypoints",
    "privatize",
    "inline",
    "symbol-dce",
    "lift-cf",
    "finalize-kernels",
    "verify-target",
]
"""The passes of GpucPipeline, in order (docs/architecture.md's pipeline), for
a module with nothing to import."""

IMPORT_PASSES = [
    "upgrade-foreign",
    "expand-affine",
    "convert-parallel-loops-to-gpu",
    "gpu-kernel-outlining",
    "unroll-vectors",
    "convert-foreign-to-gpuc",
]
"""The import's passes, in order, for a module that has foreign ops."""

IMPORT_PASSES_MLIR = (
    Path(__file__).parent / "filecheck" / "import" / "import_passes.mlir"
)
"""Host code: a mapped loop nest with an affine.apply, over memrefs."""


def test_the_import_is_its_passes_in_the_list() -> None:
    """A foreign module gets each import pass in the pipeline's own list, so
    the after-pass callback (--print-ir-after-all, dumps, explain) sees the
    IR after each: the launch outlined, then converted."""
    from gpuc.reader.text import parse_foreign_module

    module = parse_foreign_module(
        IMPORT_PASSES_MLIR.read_text(), make_context(), str(IMPORT_PASSES_MLIR)
    )
    seen: list[tuple[str, str]] = []
    run_dialect_pipeline(module, after_pass=lambda name, m: seen.append((name, str(m))))
    names = [name for name, _ in seen]
    assert names == ["attach-target", *IMPORT_PASSES, *DIALECT_PASSES[1:]]
    ir = dict(seen)
    assert "affine.apply" in ir["upgrade-foreign"]
    assert "affine.apply" not in ir["expand-affine"]
    assert "scf.parallel" in ir["expand-affine"]
    assert '"gpu.launch"' in ir["convert-parallel-loops-to-gpu"]
    assert "gpu.launch_func" in ir["gpu-kernel-outlining"]
    assert "gpu.func" in ir["unroll-vectors"]
    assert "gpu.func" not in ir["convert-foreign-to-gpuc"]
    assert "gpuc.func" in ir["convert-foreign-to-gpuc"]


def test_a_named_gpu_module_is_one_pass_of_the_import() -> None:
    """`gpu_module` is select-gpu-module in the list, after outlining; one
    the module lacks is a diagnostic, even for a module with no foreign ops."""
    pipeline = GpucPipeline(gpu_module="b")
    names = [p.name for p in pipeline.passes(parse(SAXPY))]
    assert names.index("select-gpu-module") == names.index("gpu-kernel-outlining") + 1
    with pytest.raises(DiagnosticException, match="has no gpu.module @b"):
        run_passes(make_context(), parse(SAXPY), pipeline.passes(parse(SAXPY)))


def test_after_pass_sees_each_pass_in_order() -> None:
    """The callback (as xDSL's PassPipeline one) gets every pass's name and
    the module as that pass left it (@fma_body, which only its job
    references, is moved into the job; @unused is left to symbol-dce)."""
    unused = "gpuc.func private @unused() helper {\n  gpuc.return\n}\n"
    module = Parser(make_context(), SAXPY + unused).parse_module()
    seen: list[tuple[str, str]] = []
    run_dialect_pipeline(module, after_pass=lambda name, m: seen.append((name, str(m))))
    assert [name for name, _ in seen] == DIALECT_PASSES
    ir = dict(seen)
    assert "gpuc.deferred_call" in ir["attach-target"]
    assert "gpuc.deferred_call" not in ir["resolve-deferred"]
    assert ENTRYPOINTS_ATTR not in ir["resolve-deferred"]
    assert ENTRYPOINTS_ATTR in ir["classify-entrypoints"]
    assert "gpuc.call" in ir["privatize"] and "gpuc.call" not in ir["inline"]
    assert "@fma_body(" in ir["attach-target"]
    assert "@fma_body(" not in ir["resolve-deferred"]
    assert "@unused" in ir["inline"] and "helper" not in ir["symbol-dce"]
    assert ir["verify-target"] == str(module)


def test_a_source_moved_into_its_job_changes_no_result() -> None:
    """The pipeline moves a private source that only its job references into
    the job (resolve-deferred's `move_sources`) instead of copying it: the
    module comes out as it does from copies, and an exported source stays."""
    from dataclasses import replace

    from gpuc.transforms.resolve_deferred import ResolveDeferred

    text = SAXPY + SAXPY.replace("@saxpy", "@saxpy2").replace("@fma_body", "@fma2")
    pipeline = GpucPipeline("ptx")
    copying = [
        replace(p, move_sources=False) if isinstance(p, ResolveDeferred) else p
        for p in pipeline.passes()
    ]
    assert copying != list(pipeline.passes())
    moved: list[str] = []

    def after(name: str, module: ModuleOp) -> None:
        if name == "resolve-deferred":
            moved.extend(n for n in ("fma_body", "fma2") if n not in func_names(module))

    module = run_dialect_pipeline(parse(text), target="ptx", after_pass=after)
    assert moved == ["fma_body", "fma2"]
    copied = parse(text)
    run_passes(make_context(), copied, copying)
    assert str(module) == str(copied)

    exported = run_dialect_pipeline(parse(text), target="ptx", exports=["fma2"])
    assert func_names(exported) == ["saxpy", "saxpy2", "fma2"]


@dataclass(frozen=True)
class LeavesInvalidIR(ModulePass):
    """Breaks the module: uses the first kernel's constant in the second
    kernel (`isolation`), or gives it a result type its value does not have."""

    name = "leaves-invalid-ir"

    how: str = "isolation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        first, second = (f for f in op.ops if isinstance(f, FuncOp) and f.is_kernel)
        constant = next(c for c in first.walk() if isinstance(c, ConstantOp))
        if self.how == "type":
            constant.results[0]._type = IntegerType(32)  # pyright: ignore
            return
        entry = second.body.blocks[0]
        assert entry.last_op is not None
        entry.insert_op_before(AddfOp(constant, constant), entry.last_op)


@pytest.mark.parametrize("how", ["isolation", "type"])
def test_a_pass_that_leaves_invalid_ir_is_caught(how: str) -> None:
    """The pipeline verifies its result: IR a pass (here one slipped in after
    finalize-kernels) leaves invalid is a located diagnostic, not a module
    handed to the lowering."""
    kernel = SAXPY.replace(
        "%i = gpuc.global_id x",
        "%i = gpuc.global_id x\n  %c = arith.constant 1.0 : f32",
    )
    module = parse(kernel + kernel.replace("@saxpy", "@second"))
    passes = list(GpucPipeline("ptx").passes(module))
    passes.insert(
        [p.name for p in passes].index("finalize-kernels") + 1, LeavesInvalidIR(how)
    )
    with pytest.raises(OpError, match="arith"):
        run_passes(make_context(), module, passes)
