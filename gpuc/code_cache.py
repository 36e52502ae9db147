"""A cache of the code that `dataclasses` compiles while gpuc's commands start.

Python keeps the bytecode of every imported module in `__pycache__`, but a
dataclass's `__init__`, `__eq__`, `__repr__`, ... are made at import time from
generated source text, compiled anew by each process. xDSL declares its ops
and attributes as dataclasses: about 290 classes, 770 compiled functions,
which were 75 of the 200 ms a cold `gpuc compile` spends importing.

`install()` (called by the `gpuc` and `gpuc-opt` commands before they import
anything else, `gpuc/client.py`) makes `dataclasses` compile through this
cache: a text seen before runs its stored code object, which is what
compiling the same text again would give. `save()` (called once the command's
output is written) stores the code objects compiled this time, so the next
command starts faster.

The cache is one file under the cache directory (`code/`, next to the compile
cache's entries), keyed by the text itself and tied to the exact interpreter
(its `sys.version`): a file of another interpreter, or one that does not
read back, is ignored and replaced. Like Python's own bytecode cache, it is
not written under `PYTHONDONTWRITEBYTECODE` (or `python -B`), and
`GPUC_CODE_CACHE=0` turns it off entirely. The compile cache's switch,
`GPUC_CACHE=0`, does not: this cache holds no output, only what the Python
interpreter would compile the same.

This module imports only `os`, `sys` and `marshal` at import time: it runs
before everything else in a cold start.
"""

from __future__ import annotations

import marshal
import os
import sys
from types import CodeType

FORMAT = b"gpuc-code 1\n"
"""The file's first line; a change of layout makes old files unreadable."""
MAX_ENTRIES = 8192
"""Past this many stored texts, a save keeps only those this process used (the
texts of older xDSL or gpuc versions go)."""

_state: _CodeCache | None = None


def cache_directory() -> str:
    """GPUC_CACHE_DIR, else the user cache directory's `gpuc` (XDG); the
    compile cache (`gpuc.cache`) lives there too."""
    moved = os.environ.get("GPUC_CACHE_DIR")
    if moved:
        return moved
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "gpuc")
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "gpuc")
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return os.path.join(os.environ["LOCALAPPDATA"], "gpuc", "Cache")
    return os.path.join(home, ".cache", "gpuc")


def cache_file() -> str:
    """The file of this interpreter (its implementation's cache tag and exact
    version, so that two interpreters sharing a cache directory keep a file
    each; the file's header names the build)."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return os.path.join(cache_directory(), "code", f"{tag}-{sys.hexversion:x}.marshal")


def enabled() -> bool:
    return os.environ.get("GPUC_CODE_CACHE", "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


class _CodeCache:
    """The stored code objects by source text, and those compiled since."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.stored = read(path)
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
        code = self.stored.get(source)
        if not isinstance(code, CodeType):
            code = compile(source, "<string>", "exec")
            self.compiled[source] = code
        self.used.add(source)
        exec(code, globals, locals)  # noqa: S102 - what dataclasses runs itself

    def save(self) -> None:
        if not self.compiled or sys.dont_write_bytecode:
            return
        entries = {**self.stored, **self.compiled}
        if len(entries) > MAX_ENTRIES:
            entries = {text: entries[text] for text in self.used}
        write(self.path, entries)
        self.stored, self.compiled = entries, {}


def read(path: str) -> dict[str, CodeType]:
    """The entries of the file at `path`; none where it is missing, of another
    interpreter or does not read back whole."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    header = FORMAT + sys.version.encode() + b"\n"
    if not data.startswith(header):
        return {}
    try:
        entries = marshal.loads(memoryview(data)[len(header) :])
    except (EOFError, ValueError, TypeError):
        return {}
    return entries if isinstance(entries, dict) else {}


def write(path: str, entries: dict[str, CodeType]) -> None:
    """Replace the file at `path` atomically (a failure leaves it as it was)."""
    directory = os.path.dirname(path)
    temporary = os.path.join(directory, f".tmp-{os.getpid()}")
    data = FORMAT + sys.version.encode() + b"\n" + marshal.dumps(entries)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def install() -> None:
    """Make `dataclasses` compile through the cache (once per process; nothing
    where GPUC_CODE_CACHE=0)."""
    global _state
    if _state is not None or not enabled():
        return
    import dataclasses

    _state = _CodeCache(cache_file())
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
