"""The persistent compile cache: entries of named blobs under content keys.

A key is a digest of everything that decides an output (`digest`), built by
the callers from the parts here: `toolchain()` (gpuc's version and the
fingerprint of its code, xDSL's and llvmlite's versions and llvmlite's LLVM
library), `host()` (the machine the native target compiles for), and
`code_identity` (a generator or target class, with its `version`). The store
(`Cache`) knows nothing of compilation: `gpuc/caching.py` compiles through it,
the native executor can keep its JIT objects in it (`native_object_key`).

Entries are files written atomically (a temporary file, then `os.replace`), so
several processes can share one directory; an entry that does not read back
whole (truncated, bit-flipped, another format) is a miss and is replaced. The
directory is bounded: after each write the least recently used entries (by
mtime, which a hit refreshes) go until the total fits `max_bytes`.

    GPUC_CACHE=0               no cache (as `cache=False`, `--no-cache`)
    GPUC_CACHE_DIR=D           the directory (default: $XDG_CACHE_HOME/gpuc,
                               else ~/.cache/gpuc)
    GPUC_CACHE_MAX_BYTES=N     the size bound (default 1 GiB)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from gpuc.code_cache import cache_directory

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
    return Path(cache_directory())


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


class Cache:
    """A directory of entries; `hits` and `misses` count this object's lookups."""

    def __init__(
        self, directory: Path | str | None = None, max_bytes: int | None = None
    ):
        self.directory = (
            Path(directory) if directory is not None else default_directory()
        )
        self.max_bytes = max_bytes if max_bytes is not None else default_max_bytes()
        self.hits = 0
        self.misses = 0

    def path(self, kind: str, key: str) -> Path:
        assert kind in KINDS and len(key) > 2, (kind, key)
        return self.directory / kind / key[:2] / key[2:]

    def get(self, kind: str, key: str) -> Entry | None:
        """The entry under `key`, or None (absent or corrupt: a corrupt one is
        removed, so the next write replaces it)."""
        path = self.path(kind, key)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        entry = _decode(data)
        if entry is None:
            _remove(path)
            self.misses += 1
            return None
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        self.hits += 1
        return entry

    def put(self, kind: str, key: str, entry: Entry) -> bool:
        """Store `entry` under `key` atomically; False if the directory cannot
        be written (the cache is an optimization: that is no error)."""
        import tempfile

        path = self.path(kind, key)
        data = _encode(entry)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            _remove(Path(tmp))
            return False
        self.evict()
        return True

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        """The single blob stored by `put_bytes`."""
        entry = self.get(kind, key)
        return None if entry is None else entry.blobs.get("data")

    def put_bytes(self, kind: str, key: str, data: bytes) -> bool:
        return self.put(kind, key, Entry({"data": data}))

    def _files(self) -> Iterator[os.DirEntry[str]]:
        for kind in KINDS:
            try:
                shards = list(os.scandir(self.directory / kind))
            except OSError:
                continue
            for shard in shards:
                if shard.is_dir(follow_symlinks=False):
                    try:
                        yield from os.scandir(shard.path)
                    except OSError:
                        continue

    def evict(self) -> None:
        """Remove the least recently used entries until the total fits
        `max_bytes`, and temporary files that writers left behind."""
        now = time.time()
        entries: list[tuple[float, int, str]] = []
        total = 0
        for f in self._files():
            try:
                st = f.stat(follow_symlinks=False)
            except OSError:
                continue
            if f.name.startswith(".tmp-"):
                if now - st.st_mtime > STALE_TEMP_SECONDS:
                    _remove(Path(f.path))
                continue
            entries.append((st.st_mtime, st.st_size, f.path))
            total += st.st_size
        if total <= self.max_bytes:
            return
        for _mtime, size, path in sorted(entries):
            _remove(Path(path))
            total -= size
            if total <= self.max_bytes:
                break

    def info(self) -> CacheInfo:
        entries = size = 0
        for f in self._files():
            if f.name.startswith(".tmp-"):
                continue
            try:
                size += f.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            entries += 1
        return CacheInfo(self.directory, entries, size, self.max_bytes)

    def clear(self) -> int:
        """Remove every entry, and the start-up code cache (`gpuc.code_cache`,
        not counted); returns how many entries."""
        removed = 0
        for f in list(self._files()):
            if _remove(Path(f.path)):
                removed += 1
        try:
            code = list(os.scandir(self.directory / "code"))
        except OSError:
            code = []
        for f in code:
            _remove(Path(f.path))
        return removed


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


def _remove(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except OSError:
        return False


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
    it has one, and the size and mtime of the file that defines it."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    stat: tuple[int, int] | None = None
    if file:
        try:
            st = os.stat(file)
            stat = (st.st_size, st.st_mtime_ns)
        except OSError:
            pass
    return (cls.__module__, cls.__qualname__, repr(getattr(cls, "version", None)), stat)


def native_object_key(llvm_ir: str, cpu: str, features: str) -> str:
    """The key of a native JIT object: the LLVM IR it was made from, the host
    CPU name and features LLVM compiled for, and the toolchain (llvmlite's
    version and library included). Use with `Cache().get_bytes("native", key)`
    and `put_bytes("native", key, obj)`."""
    return digest("native", FORMAT, toolchain(), cpu, features, llvm_ir)
