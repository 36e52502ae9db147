"""The target registry is the one door every stage takes: a target another
distribution installs (an entry point in the `gpuc.targets` group) is a
`gpuc compile --target` with its own flags, an xdsl-opt and a gpuc-opt `-t`
output, and, registered in-process with `register_target`, a target of
`gpuc.compile`. And kernel names the targets spell their own way (`my-kernel`,
a materialized job `scale.kernel`) reach the executors as the symbols their
finalization records name.
"""

from __future__ import annotations

import importlib.util
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gpuc
from gpuc.compiler import compile_module
from gpuc.driver import make_options, run
from gpuc.targets import (
    BUILTIN_TARGETS,
    register_target,
    target_names,
    unregister_target,
)
from gpuc.targets.base import Target

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "examples" / "saxpy.mlir"
sys.path.insert(0, str(ROOT / "examples"))
from cases import EXAMPLES, assert_equal  # noqa: E402
from cases import run as run_case  # noqa: E402

BASE_SEED = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
print(f"test_target_registry: GPUC_TEST_SEED={BASE_SEED}")

PLUGIN = '''\
"""A target from another distribution: the native target, renamed, whose
assembly listing starts with a comment it is configured with."""

from dataclasses import dataclass, field
from typing import ClassVar

from gpuc.targets.native.target import NativeTarget


@dataclass(frozen=True)
class MyTarget(NativeTarget):
    name: ClassVar[str] = "mytarget"

    banner: str = field(
        default="mytarget", metadata={"help": "the comment the listing starts with"}
    )

    def render(self, kind, c):
        artefact = super().render(kind, c)
        return f"# {self.banner}\\n{artefact}" if kind == "asm" else artefact
'''


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that, on PYTHONPATH, is an installed distribution `myplugin`
    with a `gpuc.targets` entry point for `mytarget`."""
    root = tmp_path_factory.mktemp("plugin")
    (root / "myplugin.py").write_text(PLUGIN)
    info = root / "myplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: myplugin\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(
        "[gpuc.targets]\nmytarget = myplugin:MyTarget\n"
    )
    return root


def tool(name: str, *args: str, plugin_dir: Path) -> subprocess.CompletedProcess[bytes]:
    """Run `gpuc`, `xdsl-opt` or `gpuc-opt` with the plugin installed."""
    path = os.pathsep.join(
        filter(None, [str(plugin_dir), os.environ.get("PYTHONPATH")])
    )
    return subprocess.run(
        [str(Path(sys.executable).with_name(name)), *args],
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
    )


@pytest.fixture
def mytarget(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[type[Target]]:
    """The plugin's target, registered in this process (the plugin folder is
    not put on sys.path: its entry point must not leak into other tests)."""
    spec = importlib.util.spec_from_file_location(
        "myplugin", plugin_dir / "myplugin.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "myplugin", module)
    spec.loader.exec_module(module)
    register_target(module.MyTarget)
    yield module.MyTarget
    unregister_target("mytarget")


def listing(banner: str) -> str:
    """What mytarget emits for saxpy with `banner`, compiled in this process."""
    c = run(SAXPY, make_options("mytarget", {"banner": banner}), stop_after="emit")
    text = c.target.render("asm", c)
    assert isinstance(text, str)
    return text


def test_the_plugin_is_not_installed_in_this_process() -> None:
    assert "mytarget" not in target_names()


BUILT_IN_THEN_MYTARGET = ", ".join([*BUILTIN_TARGETS, "mytarget"])


def test_gpuc_compile_takes_the_plugin_target_and_its_flag(
    plugin_dir: Path, mytarget: type[Target]
) -> None:
    help_text = tool("gpuc", "compile", "--help", plugin_dir=plugin_dir)
    assert help_text.returncode == 0, help_text.stderr.decode()
    flat = " ".join(help_text.stdout.decode().split())
    assert f"what to compile for: {BUILT_IN_THEN_MYTARGET}" in flat
    assert "--banner V mytarget: the comment the listing starts with" in flat

    asm = tool(
        "gpuc",
        *("compile", str(SAXPY), "--target", "mytarget", "--emit", "asm"),
        *("--banner", "from the flag"),
        plugin_dir=plugin_dir,
    )
    assert asm.returncode == 0, asm.stderr.decode()
    assert asm.stdout.decode() == listing("from the flag")
    assert asm.stdout.startswith(b"# from the flag\n")

    obj = tool(
        "gpuc", "compile", str(SAXPY), "--target", "mytarget", plugin_dir=plugin_dir
    )
    assert obj.returncode == 0, obj.stderr.decode()
    assert obj.stdout == compile_module(SAXPY, "mytarget").artefact

    ptx = tool(
        "gpuc",
        *("compile", str(SAXPY), "--target", "ptx", "--banner", "x"),
        plugin_dir=plugin_dir,
    )
    assert ptx.returncode == 1 and ptx.stdout == b""
    assert b"--banner applies to --target mytarget only" in ptx.stderr


def test_an_unknown_target_lists_the_registered_ones(plugin_dir: Path) -> None:
    result = tool(
        "gpuc", "compile", str(SAXPY), "--target", "nosuch", plugin_dir=plugin_dir
    )
    assert result.returncode == 1
    assert result.stdout == b""
    assert result.stderr.decode().strip() == (
        "gpuc: error: --target: unknown target 'nosuch'; expected one of: "
        + BUILT_IN_THEN_MYTARGET
    )


@pytest.mark.parametrize("opt", ["xdsl-opt", "gpuc-opt"])
def test_opt_tools_take_the_plugin_target_as_t_output(
    opt: str, plugin_dir: Path, mytarget: type[Target]
) -> None:
    result = tool(
        opt, str(SAXPY), "-t", 'mytarget{banner="from -t"}', plugin_dir=plugin_dir
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode() == listing("from -t")


def test_gpuc_compile_api_takes_a_registered_target(mytarget: type[Target]) -> None:
    mod = gpuc.compile(SAXPY, target="mytarget", banner="in-process")
    assert isinstance(mod.result.target, mytarget)
    assert mod.result.target.banner == "in-process"  # type: ignore[attr-defined]
    assert mod.artefact == compile_module(SAXPY, "native").artefact
    rng = np.random.default_rng(BASE_SEED)
    for config in EXAMPLES["saxpy"].configs:
        run_case(EXAMPLES["saxpy"], config, mod.launch, rng)
    with pytest.raises(gpuc.driver.OptionError, match="accepted: .*banner"):
        gpuc.compile(SAXPY, target="mytarget", bannner="typo")


# Kernel names the targets spell their own way --------------------------------

NAMES = """
gpuc.func @"my-kernel"(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = arith.mulf %v, %v : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
gpuc.func private @wants_scale() helper {
  %k = gpuc.deferred_addr @scale #gpuc.job<kernel> : !gpuc.funcptr<(!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, i32) -> ()>
  gpuc.return
}
gpuc.func private @scale(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %n: i32) helper {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %three = arith.constant 3.0 : f32
    %r = arith.mulf %v, %three : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""  # noqa: E501
"""`my-kernel`, and `scale.kernel`, the kernel job `@wants_scale` asks for (the
helper itself is dead, so the native and spirv targets, which take no
function addresses, never see it)."""
KERNELS = {
    "my-kernel": lambda x: x * x,
    "scale.kernel": lambda x: x * np.float32(3),
}


@pytest.mark.parametrize("target", ["native", "spirv"])
def test_renamed_kernels_launch(target: str) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")
    mod = gpuc.compile(NAMES, target=target)
    assert set(mod.signatures) == set(KERNELS)
    rng = np.random.default_rng([BASE_SEED, len(target)])
    for name, want in KERNELS.items():
        n, block = 1000, 128
        x = rng.standard_normal(n, dtype=np.float32)
        y = np.full(n + 3, np.nan, np.float32)  # poisoned, and past the end
        mod.launch(name, grid=(-(-n // block),), block=(block,), args=(x, y, n))
        seed = f"{name} on {target} (GPUC_TEST_SEED={BASE_SEED})"
        assert_equal(y[:n], want(x), seed)
        assert np.isnan(y[n:]).all(), f"{seed}: wrote past n"


def ptx_entries(ptx: str) -> list[str]:
    return re.findall(r"^\.visible \.entry (\S+?)\(", ptx, re.M)


def test_ptx_entries_are_the_recorded_symbols() -> None:
    result = compile_module(NAMES, "ptx", validate=True)
    symbols = {name: info.symbol for name, info in result.kernels.items()}
    assert symbols == {"my-kernel": "my_$2d_kernel", "scale.kernel": "scale_$_kernel"}
    assert isinstance(result.artefact, str)
    assert sorted(ptx_entries(result.artefact)) == sorted(symbols.values())


def square_or_scale(factor: float | None) -> Any:
    """A fake-driver kernel (x, y, n) computing y = x*x, or y = x*factor."""
    import ctypes

    import fake_cuda_driver as f

    def kernel(
        grid: tuple[int, int, int], block: tuple[int, int, int], args: list[int]
    ) -> Any:
        n = f.read(args[2], ctypes.c_int32)
        x = f.device_array(f.read(args[0], ctypes.c_uint64), np.float32, n)
        y = f.device_array(f.read(args[1], ctypes.c_uint64), np.float32, n)
        y[:] = x * x if factor is None else x * np.float32(factor)
        return f.OK

    kernel.arity = 3  # type: ignore[attr-defined]
    return kernel


def test_cuda_executor_looks_up_the_recorded_symbols(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On tests/fake_cuda_driver.py: the symbol passed to cuModuleGetFunction
    is the kernel's `KernelInfo.symbol`, the PTX `.entry`, for each launch."""
    pytest.importorskip("cuda.bindings")
    import fake_cuda_core
    import fake_cuda_driver as f

    driver = f.FakeDriver(
        {"my_$2d_kernel": square_or_scale(None), "scale_$_kernel": square_or_scale(3)}
    )
    asked: list[bytes] = []
    get_function = driver.cuModuleGetFunction

    def recording(module: Any, name: bytes) -> Any:
        asked.append(name)
        return get_function(module, name)

    driver.cuModuleGetFunction = recording  # type: ignore[method-assign]
    fake_cuda_core.install(monkeypatch, driver)
    mod = gpuc.compile(NAMES, target="ptx")
    rng = np.random.default_rng([BASE_SEED, 3])
    for name, want in KERNELS.items():
        x = rng.standard_normal(300, dtype=np.float32)
        y = np.full(300, np.nan, np.float32)
        mod.launch(name, grid=(3,), block=(100,), args=(x, y, 300))
        assert_equal(y, want(x), f"{name} (GPUC_TEST_SEED={BASE_SEED})")
    symbols = [info.symbol for info in mod.result.kernels.values()]
    assert asked == [s.encode() for s in symbols]
    assert sorted(symbols) == sorted(ptx_entries(str(mod.artefact)))
    assert driver.memory == {}


def test_a_broken_plugin_breaks_only_its_own_target(tmp_path: Path) -> None:
    """A plugin whose module does not import leaves every other target (and
    `--help`) working; choosing it is a diagnostic naming it."""
    info = tmp_path / "broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[gpuc.targets]\nbroken = nosuchmodule:T\n")
    ptx = tool("gpuc", "compile", str(SAXPY), "--target", "ptx", plugin_dir=tmp_path)
    assert ptx.returncode == 0, ptx.stderr.decode()
    assert b".visible .entry saxpy(" in ptx.stdout
    assert tool("gpuc", "compile", "--help", plugin_dir=tmp_path).returncode == 0
    chosen = tool(
        "gpuc", "compile", str(SAXPY), "--target", "broken", plugin_dir=tmp_path
    )
    assert chosen.returncode == 1 and chosen.stdout == b""
    assert chosen.stderr.decode().strip() == (
        "gpuc: error: --target: target 'broken' (nosuchmodule:T) cannot be "
        "loaded: ModuleNotFoundError: No module named 'nosuchmodule'"
    )


def test_a_target_option_named_like_a_shared_option_is_refused() -> None:
    from dataclasses import dataclass
    from typing import ClassVar

    from gpuc.driver import GENERAL_OPTIONS
    from gpuc.targets import RESERVED_OPTIONS, BrokenTarget, target_class
    from gpuc.targets.native.target import NativeTarget

    assert set(GENERAL_OPTIONS) <= RESERVED_OPTIONS

    @dataclass(frozen=True)
    class Clashing(NativeTarget):
        name: ClassVar[str] = "clashing"
        validate: bool = False

    register_target(Clashing)
    try:
        with pytest.raises(BrokenTarget, match="has option.s. validate, which every"):
            target_class("clashing")
    finally:
        unregister_target("clashing")


def test_every_gpuc_compile_flag_is_a_reserved_option_name() -> None:
    """A target option named like a compile flag would collide with it."""
    from gpuc.cli.main import arg_parser
    from gpuc.targets import RESERVED_OPTIONS

    compile_parser = arg_parser()._subparsers._group_actions[0].choices["compile"]  # type: ignore[union-attr]
    dests = {a.dest for a in compile_parser._actions}
    own = {d for d in dests if not d.startswith("target_option_")}
    assert own <= RESERVED_OPTIONS | {"opt_level"}
