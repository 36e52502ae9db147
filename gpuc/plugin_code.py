"""The installed plugins and their code, by content: target plugins (the
`gpuc.targets` entry point group) and generator plugins (`gpuc.generators`),
each with the digest of every file of the top-level package its entry point
names (an editable install's sources included: their version and metadata do
not change when they are edited).

The compile server compares it before each command with what it had when it
imported the plugins (gpuc/server.py). A file's digest is remembered under
its stat (device, inode, size, mtime and ctime): any write changes the ctime,
which, unlike the mtime, cannot be set back, so a process reads a file again
only when it may have changed; the server's children inherit what it read.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache

TARGETS_GROUP = "gpuc.targets"
GENERATORS_GROUP = "gpuc.generators"

_digests: dict[str, tuple[tuple[int, ...], str]] = {}
"""A file's path -> its stat when read, and the SHA-256 of its bytes."""


@cache
def plugin_entry_points() -> tuple[tuple[str, str, str], ...]:
    """(group, name, `module:attribute`) of every installed plugin, sorted.
    Which are installed follows the distributions' metadata
    (`gpuc.cache.metadata_directories`): compare that first."""
    from importlib.metadata import entry_points

    return tuple(
        sorted(
            (group, ep.name, ep.value)
            for group in (TARGETS_GROUP, GENERATORS_GROUP)
            for ep in entry_points(group=group)
        )
    )


@cache
def plugin_code() -> tuple[tuple[str, str, str, str], ...]:
    """(group, name, value, digest of its package's files) of every plugin."""
    return tuple(
        (group, name, value, package_digest(value.partition(":")[0]))
        for group, name, value in plugin_entry_points()
    )


def package_digest(module: str) -> str:
    """The digest of the files of `module`'s top-level package (its paths
    and bytes; caches of compiled bytecode left out), found without
    importing it; "not found" where it is not on the path."""
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
        for root in sorted(spec.submodule_search_locations):
            for directory, subdirs, names in os.walk(root):
                subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
                files.extend(os.path.join(directory, n) for n in sorted(names))
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
