"""gpuc as an xDSL plugin: plain `xdsl-opt` finds it through the `xdsl.universe`
entry point, parses, verifies and prints gpuc modules, and keeps working for
everyone on the machine when a gpuc factory fails, because loading the plugin
imports none of what the factories name.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import ClassVar

import pytest
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.universe import XDSL_UNIVERSE, Universe

import gpuc.universe as plugin
from gpuc.context import make_context
from gpuc.registry import DIALECTS, PASSES
from gpuc.targets import (
    BUILTIN_TARGETS,
    register_target,
    target_names,
    unregister_target,
)
from gpuc.targets.native.target import NativeTarget
from gpuc.universe import GPUC_UNIVERSE

XDSL_OPT = str(Path(sys.executable).with_name("xdsl-opt"))

SAXPY = """\
builtin.module {
  gpuc.func @saxpy(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %n: i32) kernel {
    %i = gpuc.global_id x
    %ni = arith.index_cast %n : i32 to index
    %in = arith.cmpi ult, %i, %ni : index
    scf.if %in {
      %xv = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
      %yv = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
      %r = gpuc.deferred_call @fma_body(%a, %xv, %yv) #gpuc.job<helper, always_inline> : (f32, f32, f32) -> f32
      gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
    }
    gpuc.return
  }
  gpuc.func private @fma_body(%a: f32, %x: f32, %y: f32) -> f32 helper always_inline {
    %p = arith.mulf %a, %x : f32
    %s = arith.addf %p, %y : f32
    gpuc.return %s : f32
  }
}
"""  # noqa: E501

KERNEL_WITH_RESULT = """\
gpuc.func @k() -> f32 kernel {
  %c = arith.constant 1.0 : f32
  gpuc.return %c : f32
}
"""

PLAIN = """\
builtin.module {
  func.func @f(%a: i32) -> i32 {
    %z = arith.constant 0 : i32
    %s = arith.addi %a, %z : i32
    func.return %s : i32
  }
}
"""


def run_python(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def xdsl_opt(
    source: str, *args: str, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "input.mlir"
    path.write_text(source)
    return subprocess.run(
        [XDSL_OPT, str(path), *args], capture_output=True, text=True, timeout=120
    )


def test_entry_point_names_the_gpuc_universe() -> None:
    (plugin,) = [e for e in entry_points(group="xdsl.universe") if e.name == "gpuc"]
    assert plugin.value == "gpuc.universe:GPUC_UNIVERSE"
    assert plugin.load() is GPUC_UNIVERSE


def test_multiverse_loads_with_gpuc() -> None:
    """xdsl-opt refuses to start when two plugins register the same name."""
    multiverse = Universe.get_multiverse()
    assert "gpuc" in multiverse.all_dialects
    assert multiverse.all_dialects["gpuc"]().name == "gpuc"


def test_gpuc_registers_no_name_xdsl_has() -> None:
    for ours, theirs in [
        (GPUC_UNIVERSE.all_dialects, XDSL_UNIVERSE.all_dialects),
        (GPUC_UNIVERSE.all_passes, XDSL_UNIVERSE.all_passes),
        (GPUC_UNIVERSE.all_targets, XDSL_UNIVERSE.all_targets),
    ]:
        assert not set(ours) & set(theirs)


@dataclass(frozen=True)
class RenamedNative(NativeTarget):
    """A target registered in-process: the native target under another name."""

    name: ClassVar[str] = "renamed-native"


@pytest.fixture
def renamed_native() -> Iterator[None]:
    register_target(RenamedNative)
    yield
    unregister_target(RenamedNative.name)


@pytest.mark.usefixtures("renamed_native")
def test_every_registered_target_is_a_t_output_of_the_multiverse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The `-t` outputs are derived from the target registry, so each
    registered target (built-in, plugin, or registered in this process) is an
    xdsl-opt output of its name, and the multiverse still loads: `llvm` is both
    a gpuc and an xDSL output name, and is left to xDSL."""
    universe = plugin._universe()
    assert set(universe.all_passes) == set(PASSES) - set(XDSL_UNIVERSE.all_passes)
    assert "llvm" in XDSL_UNIVERSE.all_targets and "llvm" not in universe.all_targets
    monkeypatch.setattr(plugin, "GPUC_UNIVERSE", universe)
    multiverse = Universe.get_multiverse()
    assert RenamedNative.name in target_names()
    for name in target_names():
        assert name in multiverse.all_targets
        assert multiverse.all_targets[name]().name == name


def test_registered_passes_are_the_passes_they_name() -> None:
    for name, factory in GPUC_UNIVERSE.all_passes.items():
        cls = factory()
        assert issubclass(cls, ModulePass)
        assert cls.name == name
    assert set(GPUC_UNIVERSE.all_passes) <= set(PASSES)
    assert set(GPUC_UNIVERSE.all_targets) == set(target_names())
    for name, factory in GPUC_UNIVERSE.all_targets.items():
        assert factory().name == name
    assert GPUC_UNIVERSE.all_dialects["gpuc"]() is make_context().get_dialect("gpuc")


def test_xdsl_opt_prints_a_gpuc_module_as_gpuc_does(tmp_path: Path) -> None:
    result = xdsl_opt(SAXPY, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    ours = Parser(make_context(), SAXPY).parse_module()
    ours.verify()
    assert result.stdout == str(ours) + "\n\n"
    assert result.stdout.rstrip("\n") == SAXPY.rstrip("\n")


def test_xdsl_opt_parses_its_own_output(tmp_path: Path) -> None:
    first = xdsl_opt(SAXPY, "-p", "canonicalize", tmp_path=tmp_path)
    assert first.returncode == 0, first.stderr
    second = xdsl_opt(first.stdout, tmp_path=tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "gpuc.deferred_call @fma_body" in second.stdout


def test_xdsl_opt_runs_the_gpuc_verifier(tmp_path: Path) -> None:
    result = xdsl_opt(KERNEL_WITH_RESULT, tmp_path=tmp_path)
    assert result.returncode != 0
    assert "kernel @k returns (f32); kernels return nothing" in result.stderr
    assert result.stdout == ""


def test_importing_the_plugin_imports_nothing_a_factory_names() -> None:
    result = run_python(
        """
        import json, sys
        import gpuc.universe
        print(json.dumps(sorted(sys.modules)))
        """
    )
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout))
    named = {
        path.split(":")[0]
        for table in (DIALECTS, PASSES, BUILTIN_TARGETS)
        for path in table.values()
        if path.startswith("gpuc.")
    }
    assert not loaded & named
    assert "llvmlite" not in loaded
    assert not {m for m in loaded if m.startswith(("gpuc.dialects", "gpuc.lowering"))}


RAISING_FACTORIES = """
    import sys
    import gpuc.universe as plugin

    def exploding():
        raise RuntimeError("gpuc factory exploded")

    universe = plugin.GPUC_UNIVERSE
    for table in (universe.all_dialects, universe.all_passes, universe.all_targets):
        for name in table:
            table[name] = exploding
    universe.all_passes["gpuc-test-broken"] = exploding

    from xdsl.xdsl_opt_main import xDSLOptMain
    xDSLOptMain(args=sys.argv[1:]).run()
"""


def test_xdsl_opt_works_when_every_gpuc_factory_raises(tmp_path: Path) -> None:
    path = tmp_path / "plain.mlir"
    path.write_text(PLAIN)
    result = run_python(RAISING_FACTORIES, str(path), "-p", "canonicalize")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "func.func @f(%a: i32) -> i32" in result.stdout
    assert "arith.addi" not in result.stdout, "canonicalize did not run"

    broken = run_python(RAISING_FACTORIES, str(path), "-p", "gpuc-test-broken")
    assert broken.returncode != 0
    assert "gpuc factory exploded" in broken.stderr
