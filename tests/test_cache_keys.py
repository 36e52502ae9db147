"""Keys that are complete (issue 23): the command line's source key never
serves an output that quotes another file's name, another libdevice's code
or another version of a plugin's code; and what changes no output (a
distribution that is no gpuc plugin, installed beside gpuc) leaves every key
as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cache import CALLS_LIB, LIB

import gpuc
import gpuc.cache.store
import gpuc.tools
from gpuc.cache.store import plugins
from gpuc.cli import cache as cache_cli
from gpuc.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
SAXPY = (ROOT / "examples" / "saxpy.mlir").read_text()
GPUC = str(Path(sys.executable).parent / "gpuc")

MATH = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = math.sin %v : f32
  gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(directory))
    monkeypatch.delenv("GPUC_DUMP_DIR", raising=False)
    return directory


def compiled(*args: str) -> bytes:
    out = Path(args[args.index("-o") + 1])
    assert main(["compile", *args]) == 0
    return out.read_bytes()


@pytest.mark.parametrize(
    "flags",
    [["-g"], ["--target", "native", "--checked", "--emit", "llvm"]],
    ids=["line-info", "checked"],
)
def test_the_same_text_under_another_name_quotes_its_own_name(
    cache_dir: Path,
    tmp_path: Path,
    flags: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Attack 3: the second file's output names the second file."""
    first, second = tmp_path / "first.mlir", tmp_path / "second.mlir"
    first.write_text(SAXPY)
    second.write_text(SAXPY)
    out = str(tmp_path / "out")
    a = compiled(str(first), *flags, "-o", out)
    b = compiled(str(second), *flags, "-o", out)
    assert b"first.mlir" in a and b"second.mlir" not in a
    assert b"second.mlir" in b and b"first.mlir" not in b
    assert b == compiled(str(second), *flags, "-o", out, "--no-cache")
    capsys.readouterr()


def test_a_library_under_another_name_quotes_its_own_name(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "k.mlir"
    src.write_text(CALLS_LIB)
    out = str(tmp_path / "out.ptx")
    outputs = []
    for name in ("lib_one.mlir", "lib_two.mlir"):
        (tmp_path / name).write_text(LIB)
        outputs.append(
            compiled(str(src), "-g", "--library", str(tmp_path / name), "-o", out)
        )
    assert b"lib_one.mlir" in outputs[0] and b"lib_two.mlir" in outputs[1]
    capsys.readouterr()


def test_another_libdevice_is_another_output(
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Attack 4: a kernel that links libdevice records it with its entry; with
    another libdevice (CUDA_HOME switched) neither key serves it. A kernel
    that links nothing keeps its hits."""
    try:
        real = gpuc.tools.libdevice()
    except gpuc.tools.ToolError:
        pytest.skip("no libdevice (pip install nvidia-cuda-nvcc)")
    src = tmp_path / "math.mlir"
    src.write_text(MATH)
    out = str(tmp_path / "out.ptx")
    assert gpuc.compile(MATH, "ptx").cache == "miss"
    assert gpuc.compile(MATH, "ptx").cache == "hit"
    assert gpuc.compile(SAXPY, "ptx").cache == "miss"
    compiled(str(src), "-o", out, "-v")
    capsys.readouterr()
    compiled(str(src), "-o", out, "-v")
    assert "cache hit (source key" in capsys.readouterr().err
    other = tmp_path / "cuda" / "libdevice.10.bc"
    other.parent.mkdir()
    shutil.copyfile(real, other)
    with open(other, "ab") as f:
        f.write(b"\0" * 4)  # another build (the linker reads its bitcode only)
    monkeypatch.setattr(gpuc.tools, "libdevice", lambda: other)
    assert gpuc.compile(MATH, "ptx").cache == "miss"
    assert gpuc.compile(MATH, "ptx").cache == "hit"
    assert gpuc.compile(SAXPY, "ptx").cache == "hit"
    compiled(str(src), "-o", out, "-v")
    assert "cache miss" in capsys.readouterr().err  # its entry had the first
    compiled(str(src), "-o", out, "-v")
    assert "cache hit (source key" in capsys.readouterr().err


PLUGIN = """\
from dataclasses import dataclass, field
from typing import ClassVar

from gpuc.targets.ptx.target import PTXTarget


@dataclass(frozen=True)
class PluginPTX(PTXTarget):
    name: ClassVar[str] = "pluginptx"

    sm: int = field(default=SM, metadata={"help": "compute capability"})
"""


@pytest.fixture
def plugin_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder that, on PYTHONPATH, is an editable-style distribution with a
    `gpuc.targets` entry point whose code lives in the folder."""
    root = tmp_path / "plugin"
    root.mkdir()
    (root / "pluginptx.py").write_text(PLUGIN.replace("SM", "75"))
    info = root / "pluginptx-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: pluginptx\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(
        "[gpuc.targets]\npluginptx = pluginptx:PluginPTX\n"
    )
    yield root


def gpuc_cli(
    plugin_dir: Path, cache: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(plugin_dir), os.environ.get("PYTHONPATH")])
        ),
        "GPUC_CACHE": "1",
        "GPUC_CACHE_DIR": str(cache),
        "GPUC_SERVER": "0",
    }
    return subprocess.run(
        [GPUC, *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_an_edited_plugin_target_is_never_served_its_old_output(
    plugin_dir: Path, tmp_path: Path
) -> None:
    """Attack 3: a plugin target's code edited in place (as in an editable
    install: its metadata does not change) compiles anew; a distribution
    that is no gpuc plugin, installed beside it, keeps the hits."""
    src = tmp_path / "saxpy.mlir"
    src.write_text(SAXPY)
    out = tmp_path / "out.ptx"
    args = ("compile", str(src), "--target", "pluginptx", "-o", str(out), "-v")
    first = gpuc_cli(plugin_dir, tmp_path / "cache", *args)
    assert first.returncode == 0 and "cache miss" in first.stderr, first.stderr
    assert ".target sm_75" in out.read_text()
    unrelated = plugin_dir / "unrelated-2.0.dist-info"
    unrelated.mkdir()
    (unrelated / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: unrelated\nVersion: 2.0\n"
    )
    (unrelated / "entry_points.txt").write_text("[console_scripts]\nunrelated = x:y\n")
    again = gpuc_cli(plugin_dir, tmp_path / "cache", *args)
    assert "cache hit (source key" in again.stderr, again.stderr
    # Another size too: Python's own bytecode cache would take an edit of the
    # same size within the second of the first compile for the old code.
    (plugin_dir / "pluginptx.py").write_text(PLUGIN.replace("SM", "86") + "# ed\n")
    edited = gpuc_cli(plugin_dir, tmp_path / "cache", *args)
    assert edited.returncode == 0 and "cache miss" in edited.stderr, edited.stderr
    assert ".target sm_86" in out.read_text()


def test_plugins_are_keyed_by_their_code(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(plugin_dir))
    plugins.cache_clear()
    try:
        found = plugins()
        assert [p[:4] for p in found] == [
            (
                "gpuc.targets",
                "pluginptx",
                "pluginptx:PluginPTX",
                "pluginptx-0.1.dist-info",
            )
        ]
        (plugin_dir / "other-1.0.dist-info").mkdir()
        plugins.cache_clear()
        assert plugins() == found
        (plugin_dir / "pluginptx.py").write_text(PLUGIN.replace("SM", "80"))
        plugins.cache_clear()
        assert plugins() != found
    finally:
        plugins.cache_clear()


def test_an_input_saved_during_the_compile_is_not_remembered(
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The source key is stored only where the files it keyed did not change
    while the full path compiled: an editor's save in the middle of a compile
    is never served the output of the bytes it replaced."""
    src = tmp_path / "k.mlir"
    src.write_text(SAXPY)
    edited = SAXPY.replace("arith.mulf", "arith.addf")
    assert edited != SAXPY
    real = cache_cli.compile_through_cache

    def saved_meanwhile(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        src.write_text(edited)
        return result

    out = str(tmp_path / "out.ptx")
    with monkeypatch.context() as m:
        m.setattr(cache_cli, "compile_through_cache", saved_meanwhile)
        compiled(str(src), "-o", out)
    served = compiled(str(src), "-o", out, "-v")
    assert "cache hit (source key" not in capsys.readouterr().err
    assert served == compiled(str(src), "-o", out, "--no-cache")
