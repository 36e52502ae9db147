"""The smaller things real frontends hand gpuc (tests/fixtures/rough_edges/):
MLIR 16's `arith.maxf`/`minf`, `memref<...xindex>` kernel parameters, f16
`math.exp`, `vector.from_elements`, host code with `!llvm.ptr` parameters
and `llvm.linkage`, and host code `gpuc run` executes (`scf.parallel` on the
host, a mapped loop nested in an unmapped one, `memref.subview`). Kernels
run on native and spirv against numpy on fresh inputs, and compile for ptx
(ptxas), spirv (spirv-val) and amdgpu.
"""

from __future__ import annotations

import io
import os
import secrets
from pathlib import Path

import numpy as np
import pytest
from kernel_modules import compiled, seeded

import gpuc
from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError, SourceParseError

SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_frontend_rough_edges: GPUC_TEST_SEED={SEED}")
FIXTURES = Path(__file__).parent / "fixtures" / "rough_edges"
TARGETS = ["native", "spirv"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("printed", ["kernels.mlir", "kernels.mlir16.mlir"])
def test_maxf_index_memrefs_and_half_math(printed: str, target: str) -> None:
    r = seeded(SEED, printed, target)
    x = r.standard_normal(8).astype(np.float32)
    x[int(r.integers(0, 8))] = np.nan
    ix = r.integers(-(2**40), 2**40, 8)
    h = r.uniform(-3, 3, 8).astype(np.float16)
    want_x = np.minimum(np.maximum(x, x), x)  # NaN stays NaN, as maximumf
    want_ix = ix + np.arange(8)
    want_h = np.exp(h.astype(np.float32)).astype(np.float16)
    compiled(FIXTURES / printed, target)["k"][1, 8](x, ix, h)
    np.testing.assert_array_equal(x, want_x)
    np.testing.assert_array_equal(ix, want_ix)
    # The f32 function rounded once to f16 (the runtimes' exp may differ by an ulp).
    np.testing.assert_allclose(h, want_h, rtol=2e-3)


@pytest.mark.parametrize("target", TARGETS)
def test_from_elements(target: str) -> None:
    x = seeded(SEED, "from_elements", target).standard_normal(16).astype(np.float32)
    before = x.copy()
    compiled(FIXTURES / "from_elements.mlir", target)["k"][1, 4](x)
    a, b = before[0], before[4]
    np.testing.assert_array_equal(x[8:12], np.array([a, b, b, a], np.float32) + b)
    np.testing.assert_array_equal(x[:8], before[:8])


def test_llvm_types_in_host_code() -> None:
    """Host code with !llvm.ptr and llvm.linkage parses and is dropped; the
    same type in device code is a located diagnostic."""
    for name in ("llvm_host.mlir16.mlir",):
        mod = gpuc.compile(FIXTURES / name, target="native")
        m = np.arange(8, dtype=np.float32)
        mod["k"][1, 8](m)
        np.testing.assert_array_equal(m, 2 * np.arange(8, dtype=np.float32))
    device = (
        "func.func @h(%p: !llvm.ptr) {\n  return\n}\n"
        "func.func @k() attributes {gpu.kernel} {\n  return\n}\n"
    )
    with pytest.raises(OpError, match=r"!llvm.ptr is an llvm dialect type"):
        compile_module(device, "native")


def test_gpuc_run_host_parallel_loops_and_subviews() -> None:
    out = io.StringIO()
    gpuc.run_host(FIXTURES / "host.mlir16.mlir", "native", stdout=out)
    text = out.getvalue()
    m = np.arange(32, dtype=np.float32).reshape(4, 8)
    m[:2, :4] *= 2  # the mapped loop, launched once per host iteration
    rows = ["[" + ",   ".join(f"{v:g}" for v in row) + "]" for row in m[1:4:2, 2:5]]
    assert "sizes = [2, 3]" in text
    assert rows[0] in text and rows[1] in text, text


@pytest.mark.parametrize(
    "name",
    [
        "kernels.mlir16.mlir",
        "from_elements.mlir",
        "llvm_host.mlir16.mlir",
        "reshapes.mlir16.mlir",
    ],
)
def test_compiles_for_every_target(name: str) -> None:
    source = (FIXTURES / name).read_text()
    assert compile_module(source, "ptx", validate=True).artefact
    assert compile_module(source, "spirv", validate=True).artefact
    assert compile_module(source, "amdgpu").artefact


def test_host_only_module_and_custom_gpu_syntax() -> None:
    """A module without kernels is said to be host code (gpuc run runs it);
    MLIR's custom gpu syntax, which xDSL lacks, gets what to do."""
    source = FIXTURES / "host_only.mlir16.mlir"
    with pytest.raises(
        OpError, match="The module has no kernel .* run it with `gpuc run`"
    ):
        compile_module(source.read_text(), "native")
    out = io.StringIO()
    gpuc.run_host(source, "native", stdout=out)
    assert "[1,  2,  3,  4]" in out.getvalue()
    with pytest.raises(SourceParseError, match="--mlir-print-op-generic` first"):
        gpuc.compile(FIXTURES / "llvm_host.mlir", target="native")


@pytest.mark.parametrize("target", TARGETS)
def test_collapse_and_expand_shape(target: str) -> None:
    r = seeded(SEED, "reshapes", target)
    a = r.standard_normal((4, 6)).astype(np.float32)
    b = r.standard_normal((3, 8)).astype(np.float32)
    o = np.full((2, 24), np.nan, np.float32)
    compiled(FIXTURES / "reshapes.mlir16.mlir", target)["k"][1, 24](a, b, o)
    np.testing.assert_array_equal(o[0], a.reshape(-1))
    np.testing.assert_array_equal(o[1], b.reshape(3, 2, 4).reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_gpuc_run_passes_a_host_subview_to_an_mlir_outlined_kernel(target: str) -> None:
    """mlir-opt-22's kernel takes the strided view; gpuc run makes it a numpy
    view of the host array and launches on it (host affine.apply expanded)."""
    out = io.StringIO()
    gpuc.run_host(FIXTURES / "host_subview_launch.mlir22.mlir", target, stdout=out)
    a = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    for row in 2 * a[2:10, 4:20:2]:
        assert "[" + ",   ".join(f"{v:g}" for v in row) + "]" in out.getvalue()
