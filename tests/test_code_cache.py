"""The start-up code cache (gpuc/cache/startup.py): dataclasses made through it
behave as compiled anew, a command stores what it compiled and the next one
compiles nothing, and a bad, foreign or unwritable file only costs time."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpuc.cache import directory as cache_dir
from gpuc.cache import startup as code_cache

ROOT = Path(__file__).resolve().parent.parent
GPUC = str(Path(sys.executable).parent / "gpuc")

CLASSES = textwrap.dedent(
    """
    import dataclasses, sys
    from gpuc.cache import startup as code_cache
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
    assert code_dir(tmp_path).is_dir()
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
    (stored,) = code_dir(tmp_path / "cache").iterdir()
    entries = code_cache.decode(stored.read_bytes())
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


def signed(payload: bytes) -> bytes:
    """A file of this interpreter whose checksum holds."""
    digest = hashlib.sha256(payload).hexdigest().encode()
    return code_cache.header() + digest + b"\n" + payload


@pytest.mark.parametrize(
    "content",
    [
        b"garbage",
        code_cache.header() + b"0" * 64 + b"\n" + b"\xff\x00truncated",
        code_cache.FORMAT + b"3.99.0 (another interpreter)\n" + b"{}",
        signed(b"N"),  # marshal's None
        signed(b"\xff\x00 not marshal"),  # the checksum holds, marshal fails
    ],
    ids=["garbage", "bad-checksum", "another-interpreter", "not-a-table", "marshal"],
)
def test_a_bad_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    env = environment(tmp_path, GPUC_CACHE="0")
    path = plant(tmp_path, content)
    compile_saxpy(env, tmp_path / "out.ptx")
    assert len(code_cache.decode(path.read_bytes())) > 200


def plant(directory: Path, content: bytes) -> Path:
    """`content` as this interpreter's file in gpuc's folder of `directory`."""
    os.close(cache_dir.open_namespace(str(directory), create=True))
    code_dir(directory).mkdir(mode=0o700, exist_ok=True)
    path = code_dir(directory) / code_cache.file_name()
    path.write_bytes(content)
    return path


def test_every_flipped_bit_is_a_miss(tmp_path: Path) -> None:
    """A flipped bit anywhere in a good file (the attack that once crashed
    every command): the file reads as empty, never as other code."""
    env = environment(tmp_path, GPUC_CACHE="0")
    compile_saxpy(env, tmp_path / "out.ptx")
    (path,) = code_dir(tmp_path).iterdir()
    good = path.read_bytes()
    assert len(code_cache.decode(good)) > 200
    rng = random.Random(23)
    for _ in range(300):
        bit = rng.randrange(len(good) * 8)
        flipped = bytearray(good)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert code_cache.decode(bytes(flipped)) == {}
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 0x10
    path.write_bytes(bytes(flipped))
    for command in (["--version"], ["cache", "info"]):
        done = subprocess.run([GPUC, *command], env=env, capture_output=True, text=True)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    compile_saxpy(env, tmp_path / "again.ptx")
    assert code_cache.decode(path.read_bytes()).keys() >= code_cache.decode(good).keys()


def test_nothing_is_written_without_bytecode_or_where_it_cannot_be(
    tmp_path: Path,
) -> None:
    env = environment(tmp_path / "cache", GPUC_CACHE="0", PYTHONDONTWRITEBYTECODE="1")
    compile_saxpy(env, tmp_path / "a.ptx")
    assert not code_dir(tmp_path / "cache").exists()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    compile_saxpy(environment(blocked, GPUC_CACHE="0"), tmp_path / "b.ptx")
    assert blocked.read_text() == "not a directory"


def test_cache_clear_removes_the_code_too(tmp_path: Path) -> None:
    env = environment(tmp_path, GPUC_CACHE="0")
    compile_saxpy(env, tmp_path / "out.ptx")
    assert list(code_dir(tmp_path).iterdir())
    done = subprocess.run(
        [GPUC, "cache", "clear"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not list(code_dir(tmp_path).iterdir())


def code_dir(directory: Path) -> Path:
    return directory / cache_dir.folder_name() / "code"
