"""The persistent compile cache: entries of named blobs under content keys.

A key is a digest of everything that decides an output (`digest`), built by
the callers from the parts here: `toolchain()` (gpuc's version and the
fingerprint of its code, xDSL's and llvmlite's versions and llvmlite's LLVM
library), `host()` (the machine the native target compiles for), `plugins()`
(every installed gpuc plugin, by the content of its code) and
`code_identity` (a generator or target class, with its `version`); the files
a compile's link read are recorded with its entry (`read_inputs`,
`inputs_hold`). The store (`Cache`) knows nothing of compilation:
`gpuc/cache/compiling.py` compiles through it, the native executor can keep its JIT
objects in it (`native_object_key`).

Entries live in gpuc's own folder of the cache directory and are read and
written only through gpuc/cache/directory.py: another user's file is never read,
no link is followed, a write is atomic, so several processes can share one
directory. An entry that does not read back whole (truncated, bit-flipped,
another format) is a miss and is replaced. The directory is bounded: once a
running count of what was written passes `max_bytes`, the least recently
used entries (by mtime, which a hit refreshes) go.

    GPUC_CACHE=0               no cache (as `cache=False`, `--no-cache`)
    GPUC_CACHE_DIR=D           the directory (default: $XDG_CACHE_HOME/gpuc,
                               else ~/.cache/gpuc)
    GPUC_CACHE_MAX_BYTES=N     the size bound (default 1 GiB)
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from gpuc.cache import directory as cache_dir
from gpuc.plugin_code import plugins as plugins

FORMAT = 1
"""The entry format and key schema; a change makes every old entry a miss."""
MAGIC = b"gpuc-cache %d\n" % FORMAT
DEFAULT_MAX_BYTES = 1 << 30
KINDS = ("compile", "source", "native", "autotune")
"""The entry kinds, one sub-directory each: compiled modules under their
canonical key, source keys (input bytes and options) naming a canonical key,
native JIT objects, the variants `gpuc.autotune` chose."""
STALE_TEMP_SECONDS = 3600
"""A temporary file this old was left by a writer that died."""


def enabled(option: bool | None = None) -> bool:
    """Whether to use the cache: `option` if given, else GPUC_CACHE (off for 0,
    false, no, off)."""
    if option is not None:
        return option
    return os.environ.get("GPUC_CACHE", "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


def default_directory() -> Path:
    """GPUC_CACHE_DIR, else the user cache directory's `gpuc` (XDG)."""
    return Path(cache_dir.cache_directory())


def default_max_bytes() -> int:
    text = os.environ.get("GPUC_CACHE_MAX_BYTES", "")
    try:
        return int(text) if text else DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


@dataclass
class Entry:
    """What one key holds: named blobs and a small JSON-able description."""

    blobs: dict[str, bytes] = field(default_factory=dict)
    meta: dict[str, object] = field(default_factory=dict)

    def text(self, name: str) -> str | None:
        blob = self.blobs.get(name)
        return None if blob is None else blob.decode("utf-8")


@dataclass(frozen=True)
class CacheInfo:
    directory: Path
    entries: int
    bytes: int
    max_bytes: int
    folder: Path
    """gpuc's own folder in `directory` (gpuc/cache/directory.py)."""


@dataclass
class Cleared:
    """What `Cache.clear()` did."""

    entries: int = 0
    bytes: int = 0
    code_files: int = 0
    failed: list[str] = field(default_factory=list)
    """What could not be removed, and why."""


class Cache:
    """A directory of entries; `hits` and `misses` count this object's lookups.

    Everything lives in gpuc's own folder of the directory
    (`<directory>/gpuc-<layout>-<uid>/`, made 0700 with a marker), opened
    through gpuc/cache/directory.py: an entry that is not the current user's, or
    lies where another user may write, is a miss (its reason is in
    `gpuc.cache.directory.refusals`, which `-v` prints), never read or removed."""

    def __init__(
        self, directory: Path | str | None = None, max_bytes: int | None = None
    ):
        self.directory = (
            Path(directory) if directory is not None else default_directory()
        )
        self.max_bytes = max_bytes if max_bytes is not None else default_max_bytes()
        self.hits = 0
        self.misses = 0

    @property
    def folder(self) -> Path:
        """gpuc's own folder in the directory."""
        return self.directory / cache_dir.folder_name()

    def path(self, kind: str, key: str) -> Path:
        assert kind in KINDS and len(key) > 2, (kind, key)
        return self.folder / kind / key[:2] / key[2:]

    def _open(self, *names: str, create: bool = False) -> AbstractContextManager[int]:
        """The open folder `names` of gpuc's folder (cache_dir.folders)."""
        return cache_dir.folders(str(self.directory), names, create)

    def get(self, kind: str, key: str) -> Entry | None:
        """The entry under `key`, or None (absent, not to be trusted, or
        corrupt: a corrupt one is removed, so the next write replaces it)."""
        assert kind in KINDS and len(key) > 2, (kind, key)
        try:
            with self._open(kind, key[:2]) as folder:
                data = cache_dir.read(
                    folder, key[2:], str(self.path(kind, key)), touch=True
                )
                entry = _decode(data)
                if entry is None:
                    _unlink(folder, key[2:])
        except OSError:
            entry = None
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def put(self, kind: str, key: str, entry: Entry) -> bool:
        """Store `entry` under `key` atomically; False if it was not stored (a
        directory that cannot be written, or one not to be trusted: the cache
        is an optimization, that is no error)."""
        assert kind in KINDS and len(key) > 2, (kind, key)
        data = _encode(entry)
        try:
            with self._open(create=True) as top:
                with _at(top, kind, key[:2], create=True) as folder:
                    cache_dir.write(folder, key[2:], data)
                try:
                    self._account(top, len(data))
                except OSError:
                    pass  # stored; the next write counts again
        except OSError:
            return False
        return True

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        """The single blob stored by `put_bytes`."""
        entry = self.get(kind, key)
        return None if entry is None else entry.blobs.get("data")

    def put_bytes(self, kind: str, key: str, data: bytes) -> bool:
        return self.put(kind, key, Entry({"data": data}))

    def _account(self, folder: int, size: int) -> None:
        """Count a write of `size` bytes, and evict once the count passes the
        bound: a write appends a byte per `GRAIN` bytes to the journal, so the
        estimate (the total at the last scan, plus the journal's length in
        grains) costs a stat, and a scan of every entry comes only after a
        tenth of the bound was written since the last."""
        fd = cache_dir.open_appending(folder, JOURNAL, str(self.folder / JOURNAL))
        try:
            os.write(fd, b"." * -(-size // GRAIN))
            written = os.fstat(fd).st_size * GRAIN
            try:
                counted = int(cache_dir.read(folder, USAGE, USAGE))
            except (OSError, ValueError):
                counted = self.max_bytes + 1  # unknown: count again
            if counted + written > self.max_bytes:
                self._scan(folder, fd)
        finally:
            os.close(fd)

    def _scan(self, folder: int, journal: int) -> None:
        """Evict down to `LOW_WATER` of the bound and start a new count; one
        process at a time (another one scanning now will do)."""
        import fcntl

        try:
            fcntl.flock(journal, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return
        try:
            total = self._evict(folder, int(self.max_bytes * LOW_WATER))
            cache_dir.write(folder, USAGE, b"%d\n" % total)
            os.ftruncate(journal, 0)
        finally:
            fcntl.flock(journal, fcntl.LOCK_UN)

    def evict(self) -> None:
        """Remove the least recently used entries until the total fits
        `max_bytes`, and temporary files that writers left behind (a write
        does this by itself once its count passes the bound)."""
        try:
            with self._open() as folder:
                total = self._evict(folder, self.max_bytes)
                cache_dir.write(folder, USAGE, b"%d\n" % total)
                _unlink(folder, JOURNAL)
        except OSError:
            pass

    def _evict(self, folder: int, bound: int) -> int:
        """Remove least recently used entries of `folder` until their total is
        at most `bound`; the total left."""
        now = time.time()
        entries: list[_File] = []
        total = 0
        for f in _files(folder):
            if f.name.startswith(cache_dir.TEMPORARY):
                if now - f.mtime > STALE_TEMP_SECONDS:
                    _unlink_at(folder, f)
                continue
            entries.append(f)
            total += f.size
        if total <= bound:
            return total
        for f in sorted(entries, key=lambda f: (f.mtime, f.kind, f.shard, f.name)):
            if _unlink_at(folder, f) is None:
                total -= f.size
            if total <= bound:
                break
        return total

    def info(self) -> CacheInfo:
        entries = size = 0
        try:
            with self._open() as folder:
                for f in _files(folder):
                    if not f.name.startswith(cache_dir.TEMPORARY):
                        entries += 1
                        size += f.size
        except OSError:
            pass
        return CacheInfo(self.directory, entries, size, self.max_bytes, self.folder)

    def clear(self) -> Cleared:
        """Remove every entry and the start-up code cache (`gpuc.cache.startup`)
        from gpuc's folder, never anything else: no file outside it, no link
        followed. What could not be removed is in `failed`."""
        done = Cleared()
        try:
            with self._open() as folder:
                _clear(folder, done)
        except FileNotFoundError:
            pass  # no folder, nothing to remove
        except OSError as e:
            done.failed.append(f"{self.folder}: {e.strerror or e}")
        return done


def _clear(folder: int, done: Cleared) -> None:
    for f in _files(folder):
        error = _unlink_at(folder, f)
        if error is not None:
            done.failed.append(f"{f.kind}/{f.shard}/{f.name}: {error}")
        elif not f.name.startswith(cache_dir.TEMPORARY):
            done.entries += 1
            done.bytes += f.size
    for name in (JOURNAL, USAGE):
        try:
            os.unlink(name, dir_fd=folder)
        except FileNotFoundError:
            pass
        except OSError as e:
            done.failed.append(f"{name}: {e.strerror or e}")
    for f in _files(folder, ("code",)):
        error = _unlink_at(folder, f)
        if error is not None:
            done.failed.append(f"code/{f.name}: {error}")
        else:
            done.code_files += 1


JOURNAL = "journal"
"""A byte per `GRAIN` bytes written since the last count (`Cache._account`)."""
USAGE = "usage"
"""The total size of the entries at the last count."""
GRAIN = 256
LOW_WATER = 0.9
"""A write past the bound evicts down to this share of it, so that the next
scan waits for a tenth of the bound to be written."""


@dataclass(frozen=True)
class _File:
    """A file in one of the folders of gpuc's folder (`shard` may be '')."""

    kind: str
    shard: str
    name: str
    size: int
    mtime: float


@contextmanager
def _at(folder: int, *names: str, create: bool = False) -> Iterator[int]:
    """Folder `names` below the open `folder`, checked (cache_dir.open_folder;
    made 0700 where `create` and missing)."""
    fds = [folder]
    try:
        for name in names:
            fds.append(cache_dir.open_folder(fds[-1], name, name, create))
        yield fds[-1]
    finally:
        for fd in fds[1:]:
            os.close(fd)


def _scan_folder(folder: int, kind: str, shard: str) -> list[_File]:
    """The files (no folders, links as themselves) of `kind/shard`; none where
    it is absent or not to be trusted."""
    found: list[_File] = []
    try:
        with _at(folder, *(n for n in (kind, shard) if n)) as at:
            for f in os.scandir(at):
                try:
                    st = f.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    found.append(_File(kind, shard, f.name, st.st_size, st.st_mtime))
    except OSError:
        pass
    return found


def _shards(folder: int, kind: str) -> list[str]:
    try:
        with _at(folder, kind) as at:
            return [f.name for f in os.scandir(at) if f.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _files(folder: int, kinds: tuple[str, ...] = KINDS) -> list[_File]:
    """Every file in the kinds' shard folders of gpuc's open `folder` (the
    `code` kind has no shards); never through a link, never in a folder not to
    be trusted."""
    found: list[_File] = []
    for kind in kinds:
        for shard in _shards(folder, kind) if kind in KINDS else [""]:
            found.extend(_scan_folder(folder, kind, shard))
    return found


def _unlink_at(folder: int, f: _File) -> str | None:
    """Remove `f` (a link is removed, not followed); why not, or None."""
    try:
        with _at(folder, *(n for n in (f.kind, f.shard) if n)) as at:
            os.unlink(f.name, dir_fd=at)
        return None
    except OSError as e:
        return e.strerror or str(e)


def _encode(entry: Entry) -> bytes:
    names = sorted(entry.blobs)
    payload = b"".join(entry.blobs[n] for n in names)
    header = {
        "meta": entry.meta,
        "blobs": [[n, len(entry.blobs[n])] for n in names],
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload


def _decode(data: bytes) -> Entry | None:
    if not data.startswith(MAGIC):
        return None
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        return None
    try:
        header = json.loads(data[len(MAGIC) : end])
        payload = data[end + 1 :]
        if hashlib.sha256(payload).hexdigest() != header["sha256"]:
            return None
        blobs: dict[str, bytes] = {}
        at = 0
        for name, length in header["blobs"]:
            blobs[str(name)] = payload[at : at + int(length)]
            at += int(length)
        meta = header["meta"]
    except (ValueError, KeyError, TypeError):
        return None
    if at != len(payload) or not isinstance(meta, dict):
        return None
    return Entry(blobs, meta)


def _unlink(folder: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=folder)
    except OSError:
        pass


def digest(*parts: object) -> str:
    """A key: the SHA-256 of the parts' reprs, each length-prefixed (so no two
    part lists share a key). Parts are str, bytes, numbers, None and tuples."""
    h = hashlib.sha256()
    for part in parts:
        raw = part if isinstance(part, bytes) else repr(part).encode()
        h.update(b"%d:" % len(raw))
        h.update(raw)
    return h.hexdigest()


def compiler_version() -> str:
    """gpuc's version (a separate function so that tests can change it)."""
    return _dist_version("gpuc")


@cache
def _dist_version(name: str) -> str:
    """Distribution `name`'s version, read from its metadata directory's name
    (`xdsl-0.74.0.dist-info`; importlib.metadata takes tens of milliseconds to
    find it), else from importlib.metadata."""
    prefix = name.lower().replace("-", "_") + "-"
    for found, _mtime in metadata_directories():
        if found.lower().startswith(prefix) and found.endswith(".dist-info"):
            return found[len(prefix) : -len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


@cache
def metadata_directories() -> tuple[tuple[str, int], ...]:
    """Every distribution's metadata directory on `sys.path`: (name, mtime),
    sorted. A name holds its version, and a reinstall makes the directory
    anew, so this decides which distributions, of which versions and entry
    points, are installed; a listing and a few stats, where reading every
    distribution's metadata would take tens of milliseconds."""
    found: set[tuple[str, int]] = set()
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    mtime = os.stat(os.path.join(entry or ".", name)).st_mtime_ns
                except OSError:
                    continue
                found.add((name, mtime))
    return tuple(sorted(found))


def toolchain() -> tuple[object, ...]:
    """What every key includes: the versions of gpuc, xDSL and llvmlite, and
    the fingerprints of gpuc's code and of llvmlite's LLVM library (an
    editable install changes code without changing its version)."""
    return (
        ("gpuc", compiler_version(), _code_fingerprint()),
        ("xdsl", _dist_version("xdsl")),
        ("llvmlite", _dist_version("llvmlite"), _llvm_library()),
    )


@cache
def _code_fingerprint() -> str:
    """The names, sizes and mtimes of gpuc's Python files (every package the
    distribution maps: gpuc, gpuc.dialects, gpuc.transforms, gpuc.lowering)."""
    from importlib.util import find_spec

    roots: set[str] = set()
    for package in ("gpuc", "gpuc.dialects", "gpuc.transforms", "gpuc.lowering"):
        spec = find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            roots.update(spec.submodule_search_locations)
    stats: list[tuple[str, int, int]] = []
    for root in sorted(roots):
        for directory, subdirs, files in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    stats.append(
                        (os.path.relpath(path, root), st.st_size, st.st_mtime_ns)
                    )
    return digest(*stats)


@cache
def _llvm_library() -> tuple[object, ...]:
    """llvmlite's shared library (the LLVM it was built with), by size and mtime,
    found without loading it."""
    from importlib.util import find_spec

    spec = find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return ()
    binding = Path(list(spec.submodule_search_locations)[0]) / "binding"
    found: list[tuple[str, int, int]] = []
    try:
        for f in sorted(os.scandir(binding), key=lambda f: f.name):
            if f.name.startswith("libllvmlite") or f.name.endswith(
                (".so", ".dylib", ".dll")
            ):
                st = f.stat()
                found.append((f.name, st.st_size, st.st_mtime_ns))
    except OSError:
        return ()
    return tuple(found)


@cache
def host() -> str:
    """The machine: its architecture and, on Linux, the CPU model and feature
    flags, which LLVM's host CPU name and features are a function of (the
    native target compiles for them)."""
    import platform

    parts = [platform.machine(), platform.system()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            seen: set[str] = set()
            for line in f:
                name, _, value = line.partition(":")
                name = name.strip()
                if (
                    name in ("model name", "flags", "Features", "CPU part")
                    and name not in seen
                ):
                    seen.add(name)
                    parts.append(f"{name}={value.strip()}")
    except OSError:
        parts.append(platform.processor())
    return digest(*parts)


def code_identity(cls: type) -> tuple[object, ...]:
    """A class as a key part: its module and name, its `version` attribute if
    it has one, and the content of the file that defines it."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    return (
        cls.__module__,
        cls.__qualname__,
        repr(getattr(cls, "version", None)),
        file_digest(file) if file else None,
    )


def file_digest(path: str | os.PathLike[str]) -> str | None:
    """The SHA-256 of a file's content (None if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def read_inputs(functions: Iterator[str] | tuple[str, ...]) -> dict[str, str]:
    """The identities of the files a compile read beyond its module and code
    (`Target.link_inputs`): each function ("module:function") called."""
    from importlib import import_module

    found: dict[str, str] = {}
    for path in functions:
        module, _, name = path.partition(":")
        found[path] = str(getattr(import_module(module), name)())
    return found


def inputs_hold(recorded: object) -> bool:
    """Whether the files an entry recorded (`read_inputs`, in its meta's
    "inputs") are the same now: an entry made with another libdevice is a
    miss. Any failure to tell is a miss."""
    if recorded is None:
        return True
    if not isinstance(recorded, dict):
        return False
    try:
        return read_inputs(tuple(str(k) for k in recorded)) == recorded
    except Exception:
        return False


def native_object_key(llvm_ir: str, cpu: str, features: str) -> str:
    """The key of a native JIT object: the LLVM IR it was made from, the host
    CPU name and features LLVM compiled for, and the toolchain (llvmlite's
    version and library included). Use with `Cache().get_bytes("native", key)`
    and `put_bytes("native", key, obj)`."""
    return digest("native", FORMAT, toolchain(), cpu, features, llvm_ir)
