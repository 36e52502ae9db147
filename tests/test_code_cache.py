"""The start-up code cache (gpuc/code_cache.py): dataclasses made through it
behave as compiled anew, a command stores what it compiled and the next one
compiles nothing, and a bad, foreign or unwritable file only costs time."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpuc import code_cache

ROOT = Path(__file__).resolve().parent.parent
GPUC = str(Path(sys.executable).parent / "gpuc")

CLASSES = textwrap.dedent(
    """
    import dataclasses, sys
    from gpuc import code_cache
    code_cache.install()
    state = code_cache._state

    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 7
        tags: list[str] = dataclasses.field(default_factory=list, compare=False)

    @dataclasses.dataclass(slots=True, kw_only=True)
    class Named:
        name: str
        size: float = 1.5

        def describe(self):
            return f"{self.name}:{self.size}"

    @dataclasses.dataclass
    class Child(Named):
        extra: int = 0

        def __post_init__(self):
            self.extra += 1

    p, q = Point(1), Point(1, 2, ["a"])
    assert p.y == 7 and p.tags == [] and q < p and p == Point(1, 7, ["b"])
    assert repr(q) == "Point(x=1, y=2, tags=['a'])"
    try:
        p.x = 3
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a frozen dataclass took an assignment")
    n = Named(name="n")
    assert n.describe() == "n:1.5" and not hasattr(n, "__dict__")
    c = Child(name="c", extra=4)
    assert c.extra == 5 and hash(p) == hash(Point(1, 7))
    print(len(state.stored), len(state.compiled))
    code_cache.save()
    """
)


def environment(directory: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "GPUC_CACHE_DIR": str(directory), "GPUC_SERVER": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("GPUC_CODE_CACHE", None)
    env.update(extra)
    return env


def run_classes(env: dict[str, str]) -> tuple[int, int]:
    done = subprocess.run(
        [sys.executable, "-c", CLASSES], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    stored, compiled = done.stdout.split()
    return int(stored), int(compiled)


def test_dataclasses_through_the_cache_behave_as_compiled_anew(tmp_path: Path) -> None:
    env = environment(tmp_path)
    stored, compiled = run_classes(env)
    assert stored == 0 and compiled > 10  # __init__, __repr__, __eq__, order, ...
    assert Path(tmp_path, "code").is_dir()
    again_stored, again_compiled = run_classes(env)
    assert again_stored == compiled and again_compiled == 0


def compile_saxpy(env: dict[str, str], out: Path) -> None:
    done = subprocess.run(
        [GPUC, "compile", str(ROOT / "examples" / "saxpy.mlir"), "--target", "ptx"]
        + ["-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_a_command_keeps_its_code_and_the_next_reuses_it(tmp_path: Path) -> None:
    env = environment(tmp_path / "cache", GPUC_CACHE="0")
    compile_saxpy(env, tmp_path / "first.ptx")
    (stored,) = Path(tmp_path, "cache", "code").iterdir()
    entries = code_cache.read(str(stored))
    assert len(entries) > 200  # xDSL's ops and attributes, gpuc's dialect
    before = stored.stat().st_mtime_ns
    compile_saxpy(env, tmp_path / "second.ptx")
    assert stored.stat().st_mtime_ns == before  # nothing new: not rewritten
    off = environment(tmp_path / "none", GPUC_CACHE="0", GPUC_CODE_CACHE="0")
    compile_saxpy(off, tmp_path / "uncached.ptx")
    assert not Path(tmp_path, "none").exists()
    first = Path(tmp_path, "first.ptx").read_text()
    assert first == Path(tmp_path, "second.ptx").read_text()
    assert first == Path(tmp_path, "uncached.ptx").read_text()


@pytest.mark.parametrize(
    "content",
    [
        b"garbage",
        code_cache.FORMAT + sys.version.encode() + b"\n" + b"\xff\x00truncated",
        code_cache.FORMAT + b"3.99.0 (another interpreter)\n" + b"{}",
        code_cache.FORMAT + sys.version.encode() + b"\n" + b"N",  # marshal's None
    ],
    ids=["garbage", "truncated", "another-interpreter", "not-a-table"],
)
def test_a_bad_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    env = environment(tmp_path, GPUC_CACHE="0")
    path = Path(code_cache_file(env))
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    compile_saxpy(env, tmp_path / "out.ptx")
    assert len(code_cache.read(str(path))) > 200


def test_nothing_is_written_without_bytecode_or_where_it_cannot_be(
    tmp_path: Path,
) -> None:
    env = environment(tmp_path / "cache", GPUC_CACHE="0", PYTHONDONTWRITEBYTECODE="1")
    compile_saxpy(env, tmp_path / "a.ptx")
    assert not Path(tmp_path, "cache", "code").exists()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    compile_saxpy(environment(blocked, GPUC_CACHE="0"), tmp_path / "b.ptx")
    assert blocked.read_text() == "not a directory"


def test_cache_clear_removes_the_code_too(tmp_path: Path) -> None:
    env = environment(tmp_path, GPUC_CACHE="0")
    compile_saxpy(env, tmp_path / "out.ptx")
    assert list(Path(tmp_path, "code").iterdir())
    done = subprocess.run(
        [GPUC, "cache", "clear"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not list(Path(tmp_path, "code").iterdir())


def code_cache_file(env: dict[str, str]) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gpuc import code_cache; print(code_cache.cache_file())",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()
