"""A cache of the code that `dataclasses` compiles while gpuc's commands start.

Python keeps the bytecode of every imported module in `__pycache__`, but a
dataclass's `__init__`, `__eq__`, `__repr__`, ... are made at import time from
generated source text, compiled anew by each process. xDSL declares its ops
and attributes as dataclasses: about 290 classes, 770 compiled functions,
which were 75 of the 200 ms a cold `gpuc compile` spends importing.

`install()` (called by the `gpuc` and `gpuc-opt` commands before they import
anything else, `gpuc/cli/client.py`) makes `dataclasses` compile through this
cache: a text seen before runs its stored code object, which is what
compiling the same text again would give. `save()` (called once the command's
output is written) stores the code objects compiled this time, so the next
command starts faster.

The cache is one file in gpuc's folder of the cache directory (`code/`, next
to the compile cache's entries; gpuc/cache/directory.py decides whether it may be
read at all: only the current user's), keyed by the text itself and tied to
the exact interpreter (its `sys.version`), its payload checked against the
SHA-256 in its header before `marshal` reads it: a file of another
interpreter, or one that does not read back whole, is ignored and replaced.
Like Python's own bytecode cache, it is not written under
`PYTHONDONTWRITEBYTECODE` (or `python -B`), and `GPUC_CODE_CACHE=0` turns it
off entirely. The compile cache's switch, `GPUC_CACHE=0`, does not: this
cache holds no output, only what the Python interpreter would compile the
same.

This module imports only `os`, `sys`, `marshal` and gpuc/cache/directory.py at
import time (`hashlib` when it reads): it runs before everything else in a
cold start.
"""

from __future__ import annotations

import marshal
import os
import sys
from types import CodeType

from gpuc.cache.directory import cache_directory, folder_name, folders
from gpuc.cache.directory import read as read_trusted
from gpuc.cache.directory import write as write_trusted

FORMAT = b"gpuc-code 2\n"
"""The file's first line; a change of layout makes old files unreadable."""
MAX_ENTRIES = 8192
"""Past this many stored texts, a save keeps only those this process used (the
texts of older xDSL or gpuc versions go)."""

_state: _CodeCache | None = None


CODE = "code"
"""The sub-folder of gpuc's folder in the cache directory (gpuc/cache/directory.py)."""


def file_name() -> str:
    """The file of this interpreter (its implementation's cache tag and exact
    version, so that two interpreters sharing a cache directory keep a file
    each; the file's header names the build)."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return f"{tag}-{sys.hexversion:x}.marshal"


def cache_file() -> str:
    """Where this interpreter's file is (for messages and tests)."""
    return os.path.join(cache_directory(), folder_name(), CODE, file_name())


def enabled() -> bool:
    return os.environ.get("GPUC_CODE_CACHE", "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


class _CodeCache:
    """The stored code objects by source text, and those compiled since."""

    def __init__(self) -> None:
        self.stored = read()
        self.compiled: dict[str, CodeType] = {}
        self.used: set[str] = set()

    def exec(
        self,
        source: str | bytes | CodeType,
        globals: dict[str, object] | None = None,
        locals: dict[str, object] | None = None,
        /,
    ) -> None:
        """`exec` as `dataclasses` calls it: source text, globals, namespace."""
        if not isinstance(source, str):
            exec(source, globals, locals)  # noqa: S102 - code given, nothing to keep
            return
        self.used.add(source)
        code = self.stored.get(source)
        if code is not None:
            try:
                exec(code, globals, locals)  # noqa: S102 - as compiled from source
                return
            except Exception:
                del self.stored[source]  # any failure is a miss: compile it
        code = compile(source, "<string>", "exec")
        self.compiled[source] = code
        exec(code, globals, locals)  # noqa: S102 - what dataclasses runs itself

    def save(self) -> None:
        if not self.compiled or sys.dont_write_bytecode:
            return
        entries = {**self.stored, **self.compiled}
        if len(entries) > MAX_ENTRIES:
            entries = {text: entries[text] for text in self.used}
        write(entries)
        self.stored, self.compiled = entries, {}


def read() -> dict[str, CodeType]:
    """The entries of this interpreter's file; none where it is missing, not
    to be trusted (gpuc/cache/directory.py says why under `-v`), or does not read
    back whole."""
    try:
        with folders(cache_directory(), (CODE,), create=False) as folder:
            data = read_trusted(folder, file_name(), cache_file())
    except OSError:
        return {}
    return decode(data)


def header() -> bytes:
    return FORMAT + sys.version.encode() + b"\n"


def decode(data: bytes) -> dict[str, CodeType]:
    """The entries of a file's bytes: none unless its header names this
    interpreter and its payload has the SHA-256 the header gives. Corrupted
    bytecode is never run: a flipped bit fails the checksum, and anything
    `marshal` raises on what passes it (of any type) is a miss too."""
    head = header()
    if not data.startswith(head):
        return {}
    end = data.find(b"\n", len(head))
    if end < 0:
        return {}
    payload = memoryview(data)[end + 1 :]
    import hashlib

    if data[len(head) : end] != hashlib.sha256(payload).hexdigest().encode():
        return {}
    try:
        entries = marshal.loads(payload)
    except Exception:
        return {}
    if not isinstance(entries, dict):
        return {}
    return {
        text: code
        for text, code in entries.items()
        if isinstance(text, str) and isinstance(code, CodeType)
    }


def encode(entries: dict[str, CodeType]) -> bytes:
    import hashlib

    payload = marshal.dumps(entries)
    return header() + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


def write(entries: dict[str, CodeType]) -> None:
    """Replace this interpreter's file atomically (a failure leaves it as it
    was; a folder not to be trusted is left alone)."""
    try:
        with folders(cache_directory(), (CODE,), create=True) as folder:
            write_trusted(folder, file_name(), encode(entries))
    except OSError:
        pass


def install() -> None:
    """Make `dataclasses` compile through the cache (once per process; nothing
    where GPUC_CODE_CACHE=0)."""
    global _state
    if _state is not None or not enabled():
        return
    import dataclasses

    _state = _CodeCache()
    # dataclasses calls the name `exec`: a module global shadows the builtin.
    setattr(dataclasses, "exec", _state.exec)  # noqa: B010 - not a declared attribute


def save() -> None:
    """Store what was compiled since `install()` (errors are ignored: the cache
    only saves time)."""
    if _state is not None:
        _state.save()


def discard() -> None:
    """Save nothing from this process (`gpuc cache clear` empties the cache)."""
    global _state
    _state = None
