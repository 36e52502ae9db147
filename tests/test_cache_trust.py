"""Who may write the cache (docs/cache.md, issue 23): gpuc reads, loads and
runs only what the current user wrote in gpuc's own marked folder, never
follows a link there, never touches a file outside it, and says what it
could not do.

The attacks that plant files as another local user run where the tests run
as root (as CI does): a forked child drops to uid 65534 and plants them in a
directory every user may write, as a team cache or one under /tmp would be."""

from __future__ import annotations

import errno
import hashlib
import marshal
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuc.cache import directory as cache_dir
from gpuc.cache import startup as code_cache
from gpuc.cache.store import Cache, Entry, _decode, _encode
from gpuc.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
SAXPY = ROOT / "examples" / "saxpy.mlir"
GPUC = str(Path(sys.executable).parent / "gpuc")
OTHER = 65534
"""The other local user (nobody)."""

as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="planting files as another user needs root (CI runs the tests as root)",
)


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory every user may write (mode 0777, no sticky bit), as a team
    cache would be; the cache directory of this test."""
    directory = Path(tempfile.mkdtemp(prefix="gpuc-shared-"))
    directory.chmod(0o777)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def env(shared: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(shared))
    monkeypatch.setenv("GPUC_SERVER", "0")
    monkeypatch.delenv("GPUC_DUMP_DIR", raising=False)
    environ = {**os.environ}
    environ.pop("PYTHONDONTWRITEBYTECODE", None)
    environ.pop("GPUC_CODE_CACHE", None)
    return environ


def as_other_user(plant: Callable[[], None]) -> None:
    """Run `plant` in a child that is uid and gid 65534, umask 0."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgroups([])
            os.setgid(OTHER)
            os.setuid(OTHER)
            os.umask(0)
            plant()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the other user's plant failed"


def tree(directory: Path) -> dict[str, bytes]:
    """Every file below `directory` (links as their targets' names)."""
    found: dict[str, bytes] = {}
    for path in sorted(directory.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(directory))] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path.relative_to(directory))] = path.read_bytes()
    return found


def compile_saxpy(
    capsys: pytest.CaptureFixture[str], out: Path, *flags: str
) -> tuple[int, str]:
    code = main(["compile", str(SAXPY), "-o", str(out), "-v", *flags])
    return code, capsys.readouterr().err


def fresh_ptx(tmp_path: Path) -> bytes:
    out = tmp_path / "fresh.ptx"
    assert main(["compile", str(SAXPY), "-o", str(out), "--no-cache"]) == 0
    return out.read_bytes()


def poisoned(entries: dict[str, bytes]) -> dict[str, bytes]:
    """The compile cache's entries with every blob replaced by the attacker's
    (valid encodings: the checksum is no defence, only the owner is)."""
    out = {}
    for name, data in entries.items():
        entry = _decode(data)
        if entry is None:
            out[name] = data
            continue
        for blob in entry.blobs:
            if blob.startswith(("emit:", "artefact")):
                entry.blobs[blob] = b"// ATTACKER'S CODE\n" + entry.blobs[blob]
        out[name] = _encode(entry)
    return out


def plant_tree(root: Path, files: dict[str, bytes], mode: int = 0o777) -> None:
    """Create `files` under `root`, every folder `mode`, every file 0666."""
    for name, data in files.items():
        folder = root
        for part in ["", *name.split("/")[:-1]]:
            folder = folder / part if part else folder
            folder.mkdir(exist_ok=True)
            folder.chmod(mode)
        (root / name).write_bytes(data)
        (root / name).chmod(0o666)


def victim_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, bytes]:
    """What the victim's own cache holds after compiling saxpy (what the
    attacker computes with the same gpuc), relative to gpuc's folder."""
    private = tmp_path / "private"
    with monkeypatch.context() as m:
        m.setenv("GPUC_CACHE_DIR", str(private))
        assert compile_saxpy(capsys, tmp_path / "private.ptx")[0] == 0
    found = tree(private / cache_dir.folder_name())
    return {k: v for k, v in found.items() if k.startswith(("compile/", "source/"))}


@pytest.fixture(autouse=True)
def no_refusals_yet() -> None:
    """What earlier tests refused is not this test's (`-v` prints them all)."""
    cache_dir.refusals.clear()


@as_root
def test_a_folder_another_user_made_is_never_read(
    shared: Path,
    env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Attack 1b: the attacker makes the victim's folder first (0777, with
    the marker) and plants entries naming its own code; the victim compiles
    as if there were no cache, says why under -v, and `gpuc cache clear`
    exits 1 rather than touch it."""
    planted = poisoned(victim_entries(tmp_path, capsys, monkeypatch))
    folder = shared / cache_dir.folder_name()

    def plant() -> None:
        plant_tree(folder, {cache_dir.MARKER: cache_dir.MARKER_TEXT, **planted})

    as_other_user(plant)
    out = tmp_path / "out.ptx"
    code, err = compile_saxpy(capsys, out)
    assert code == 0, err
    assert out.read_bytes() == fresh_ptx(tmp_path)
    assert b"ATTACKER" not in out.read_bytes()
    assert f"belongs to uid {OTHER}, not to you" in err
    assert "cache miss" in err and "not stored" in err
    assert main(["cache", "clear"]) == 1
    assert "could not remove" in capsys.readouterr().err
    assert tree(folder) == {cache_dir.MARKER: cache_dir.MARKER_TEXT, **planted}


@as_root
def test_a_file_another_user_put_in_the_users_folder_is_refused(
    shared: Path,
    env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The victim's own folder, one sub-folder of which others may write (a
    chmod by mistake): another user's entry there is never read, nor is the
    victim's own once others may write where it lies."""
    assert compile_saxpy(capsys, tmp_path / "first.ptx")[0] == 0
    folder = shared / cache_dir.folder_name()
    mine = {
        k: v for k, v in tree(folder).items() if k.startswith(("compile/", "source/"))
    }
    planted = poisoned(mine)
    for name in planted:
        (folder / name).parent.parent.chmod(0o755)  # others may enter
        (folder / name).parent.chmod(0o777)  # and write here
    folder.chmod(0o755)

    def plant() -> None:
        for name, data in planted.items():
            path = folder / name
            os.rename(path, path.with_name(".old"))  # the folder is 0777
            path.write_bytes(data)

    as_other_user(plant)
    out = tmp_path / "out.ptx"
    code, err = compile_saxpy(capsys, out)
    assert code == 0 and out.read_bytes() == fresh_ptx(tmp_path), err
    assert "may be written by other users" in err


@as_root
def test_a_planted_code_cache_is_never_run(
    shared: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Attack 1a: the attacker's `code/*.marshal`, made for this very
    interpreter and checksummed, whose code would leave a file behind: every
    gpuc command runs without it, even with GPUC_CACHE=0."""
    witness = shared / "ran"
    payload = compile(f"open({str(witness)!r}, 'w').close()", "<x>", "exec")
    good = subprocess.run(
        [GPUC, "compile", str(SAXPY), "-o", str(tmp_path / "out.ptx")],
        env={**env, "GPUC_CACHE_DIR": str(tmp_path / "mine"), "GPUC_CACHE": "0"},
        capture_output=True,
    )
    assert good.returncode == 0, good.stderr
    (mine,) = (tmp_path / "mine" / cache_dir.folder_name() / "code").iterdir()
    texts = code_cache.decode(mine.read_bytes())
    assert texts
    evil = code_cache.encode(dict.fromkeys(texts, payload))
    assert code_cache.decode(evil)  # it would run, were it trusted
    folder = shared / cache_dir.folder_name()

    def plant() -> None:
        plant_tree(
            folder,
            {
                cache_dir.MARKER: cache_dir.MARKER_TEXT,
                f"code/{code_cache.file_name()}": evil,
            },
        )

    as_other_user(plant)
    for command in (["--version"], ["cache", "info"]):
        done = subprocess.run(
            [GPUC, *command],
            env={**env, "GPUC_CACHE": "0"},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert not witness.exists()
    done = subprocess.run(
        [GPUC, "cache", "info"], env=env, capture_output=True, text=True
    )
    assert f"belongs to uid {OTHER}" in done.stdout


def test_a_temporary_file_never_follows_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack 1c: a link planted under the name of the next temporary file;
    the write fails (and the start-up code cache goes without), the link's
    target is untouched."""
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "cache"))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    with cache_dir.folders(str(tmp_path / "cache"), ("code",), create=True) as fd:
        monkeypatch.setattr(os, "urandom", lambda n: b"\x01" * n)
        name = f"{cache_dir.TEMPORARY}{os.getpid()}-{'01' * 6}"
        os.symlink(victim, name, dir_fd=fd)
        with pytest.raises(FileExistsError):
            cache_dir.write(fd, "entry", b"overwritten")
    code_cache.write({})
    assert victim.read_text() == "precious"


def test_the_cache_keeps_to_its_own_folder(tmp_path: Path) -> None:
    """Item 8: a cache directory that holds the user's own `compile/`,
    `source/`, `native/` and `code/` folders, and links by those names:
    eviction and `clear` remove only gpuc's entries."""
    directory = tmp_path / "cache"
    elsewhere = tmp_path / "elsewhere"
    for name in ("compile/ab", "native/cd", "code"):
        (directory / name).mkdir(parents=True)
        (directory / name / "notes.txt").write_text("the user's")
    elsewhere.mkdir()
    (elsewhere / "thesis.tex").write_text("the user's")
    (directory / "source").symlink_to(elsewhere)
    before_dir, before_else = tree(directory), tree(elsewhere)
    cache = Cache(directory, max_bytes=10_000)
    for i in range(40):
        assert cache.put("compile", f"{i:02x}" * 32, Entry({"data": bytes(1000)}))
    assert 0 < cache.info().bytes <= 10_000
    folder = cache.folder
    (folder / "code").mkdir()
    os.symlink(elsewhere, folder / "native")  # a link inside gpuc's folder
    cleared = cache.clear()
    assert cleared.entries > 0 and not cleared.failed
    assert cache.info().entries == 0
    assert {
        k: v for k, v in tree(directory).items() if not k.startswith("gpuc-")
    } == before_dir
    assert tree(elsewhere) == before_else


def test_clear_says_what_it_could_not_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read-only cache: `gpuc cache clear` names what stayed and exits 1."""
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path))
    cache = Cache()
    assert cache.put("compile", "ab" * 32, Entry({"data": b"x"}))

    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    with monkeypatch.context() as m:
        m.setattr(os, "unlink", read_only)
        assert main(["cache", "clear"]) == 1
    captured = capsys.readouterr()
    assert "removed 0 entries" in captured.out
    assert "could not remove" in captured.err
    assert "Read-only file system" in captured.err
    assert main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out


def test_verbose_says_not_stored_when_the_write_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(blocker / "cache"))
    code, err = compile_saxpy(capsys, tmp_path / "out.ptx")
    assert code == 0 and "cache miss" in err and "not stored" in err, err


def test_folders_are_the_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every folder gpuc makes is 0700, every file 0600, whatever the umask."""
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "new" / "cache"))
    old = os.umask(0)
    try:
        assert compile_saxpy(capsys, tmp_path / "out.ptx")[0] == 0
    finally:
        os.umask(old)
    made = [tmp_path / "new", *sorted((tmp_path / "new").rglob("*"))]
    for path in made:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
    assert len(made) > 6


def test_marshal_failures_of_any_type_are_a_miss() -> None:
    """Whatever `marshal` raises on a file whose checksum holds is a miss."""
    for payload in (b"\xff", b"N", marshal.dumps([1, 2]), marshal.dumps({1: 2})):
        checksum = hashlib.sha256(payload).hexdigest().encode()
        data = code_cache.header() + checksum + b"\n" + payload
        assert code_cache.decode(data) == {}


@as_root
def test_a_native_object_another_user_planted_is_never_loaded(
    shared: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Attack 1b on the native executor's JIT objects: the attacker plants
    the object the victim's saxpy would look up (here, garbage that would
    crash the victim were it loaded); the victim compiles it anew."""
    from test_native_jit_cache import native_entries, run_fresh

    private = tmp_path / "private"
    assert run_fresh(private)["jit_cache"] == "miss"
    folder = private / cache_dir.folder_name()
    planted = {
        str(path.relative_to(folder)): _encode(
            Entry({"data": b"\x7fELF" + b"\xcc" * 4096})
        )
        for path in native_entries(private)
    }
    assert planted
    victims = shared / cache_dir.folder_name()

    def plant() -> None:
        plant_tree(victims, {cache_dir.MARKER: cache_dir.MARKER_TEXT, **planted})

    as_other_user(plant)
    assert run_fresh(shared)["jit_cache"] == "miss"  # and saxpy's output is right


def test_the_opencl_vendors_folder_is_the_users_alone(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ICD loader loads every library a vendors file names: gpuc's vendors
    folder lives in its own folder of a private cache directory, shared by
    processes; where others could swap anything on the way to it (a shared
    cache directory), each process gets a private temporary one instead."""
    from gpuc.runtime.opencl import _vendors_dir

    entries = {"gpuc-intel-cpu": "/opt/intel/libintelocl.so"}
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "cache"))
    first = _vendors_dir(entries)
    assert first.parent == Cache().folder and _vendors_dir(entries) == first
    assert (first / "gpuc-intel-cpu.icd").read_text() == entries[
        "gpuc-intel-cpu"
    ] + "\n"
    monkeypatch.setenv("GPUC_CACHE_DIR", str(shared))
    private = _vendors_dir(entries)
    assert not private.is_relative_to(shared)
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert sorted(p.name for p in private.iterdir()) == ["gpuc-intel-cpu.icd"]


@as_root
def test_a_vendors_folder_another_user_planted_is_never_used(
    shared: Path, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attacker plants the vendors folder gpuc would make (its name is a
    digest of what gpuc writes) naming their own library."""
    from gpuc.runtime.opencl import _vendors_dir

    entries = {"gpuc-intel-cpu": "/opt/intel/libintelocl.so"}
    with monkeypatch.context() as m:
        m.setenv("GPUC_CACHE_DIR", str(tmp_path / "probe"))
        name = _vendors_dir(entries).name
    victims = shared / cache_dir.folder_name()

    def plant() -> None:
        plant_tree(
            victims,
            {
                cache_dir.MARKER: cache_dir.MARKER_TEXT,
                f"{name}/gpuc-intel-cpu.icd": b"/tmp/attacker/libevil.so\n",
            },
        )

    as_other_user(plant)
    used = _vendors_dir(entries)
    assert not used.is_relative_to(shared)
    assert (used / "gpuc-intel-cpu.icd").read_text() == entries["gpuc-intel-cpu"] + "\n"


def test_without_posix_owners_the_cache_is_off_not_broken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the checks cannot run (no owners, O_NOFOLLOW or dir_fd: Windows),
    nothing is read or written, and compiling works as without a cache."""
    import gpuc

    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache_dir, "supported", lambda: False)
    source = SAXPY.read_text()
    assert [gpuc.compile(source, "ptx").cache for _ in range(2)] == ["miss", "miss"]
    code_cache.write({})
    assert not (tmp_path / "cache").exists()
