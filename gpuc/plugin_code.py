"""The installed plugins and their code, by content: target plugins (the
`gpuc.targets` entry point group) and generator plugins (`gpuc.generators`),
each with the digest of every source file of the top-level package its entry
point names (an editable install's sources included: their version and
metadata do not change when they are edited).

One place for both readers: the compile cache keys every compile with
`plugins()` (gpuc/cache/compiling.py), and the compile server compares `plugins()`
before each command with what it had when it imported the plugins
(gpuc/cli/server.py), so the two never disagree on a plugin's code. A file's
digest is remembered under its stat (device, inode, size, mtime and ctime):
any write changes the ctime, which, unlike the mtime, cannot be set back, so
a process reads a file again only when it may have changed.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from functools import cache

TARGETS_GROUP = "gpuc.targets"
GENERATORS_GROUP = "gpuc.generators"
PLUGIN_GROUPS = (TARGETS_GROUP, GENERATORS_GROUP)

_digests: dict[str, tuple[tuple[int, ...], str]] = {}
"""A file's path -> its stat when read, and the SHA-256 of its bytes."""


@cache
def plugins() -> tuple[tuple[str, str, str, str, str], ...]:
    """Every installed gpuc plugin (registered under `PLUGIN_GROUPS` by any
    distribution on `sys.path`, editable ones included): its group, name,
    `module:attribute`, metadata directory and the digest of its package's
    code (`package_digest`). Another distribution installed, upgraded or
    removed changes nothing here; a plugin's code edited in place does. Read
    from the metadata directories' entry_points.txt without importlib.metadata
    (tens of milliseconds). Memoized: a long-lived process clears it before it
    asks again (`plugins.cache_clear()`)."""
    found: set[tuple[str, str, str, str, str]] = set()
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt")) as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            for group, plugin, value in _entry_points(text):
                if group in PLUGIN_GROUPS:
                    module = value.partition(":")[0].strip()
                    found.add((group, plugin, value, name, package_digest(module)))
    return tuple(sorted(found))


def _entry_points(text: str) -> Iterator[tuple[str, str, str]]:
    """(group, name, value) of an entry_points.txt."""
    group = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
        elif "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            yield group, name.strip(), value.strip()


def package_digest(module: str) -> str:
    """The digest of the code of the top-level package that holds `module`
    (the paths and bytes of its source and extension files; caches of compiled
    bytecode left out), found without importing it; "not found" where it is
    not on the path."""
    from importlib.machinery import all_suffixes
    from importlib.util import find_spec

    top = module.split(".")[0]
    try:
        spec = find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return "not found"
    files: list[str] = []
    if spec.submodule_search_locations:
        suffixes = tuple(all_suffixes())
        for root in sorted(spec.submodule_search_locations):
            for directory, subdirs, names in os.walk(root):
                subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
                files += [
                    os.path.join(directory, n)
                    for n in sorted(names)
                    if n.endswith(suffixes)
                ]
    elif spec.origin:
        files.append(spec.origin)
    h = hashlib.sha256()
    for path in files:
        h.update(f"{path}\0{file_digest(path)}\0".encode())
    return h.hexdigest()


def file_digest(path: str) -> str:
    """The SHA-256 of the file at `path` ("unreadable" where it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return "unreadable"
    signature = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _digests.get(path)
    if known is not None and known[0] == signature:
        return known[1]
    try:
        with open(path, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return "unreadable"
    _digests[path] = (signature, digest)
    return digest
