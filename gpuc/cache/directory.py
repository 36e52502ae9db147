"""gpuc's own folder in the cache directory, and the only way gpuc reads and
writes files there (docs/cache.md, "Who may write the cache").

The cache directory (GPUC_CACHE_DIR, else the user's cache directory) may be
shared: a team folder, one under /tmp. gpuc keeps everything in one folder of
its own inside it, `gpuc-<LAYOUT>-<uid>`, which it creates 0700 with a marker
file (`CACHEDIR.TAG`) already inside, and it trusts a file there only when
the folder, every folder below it on the way and the file itself belong to
the current user and no one else may write them. Every step opens the next
one relative to the folder above it (`dir_fd`) and never follows a symbolic
link, so nothing renamed or linked in on the way is read, written or removed.
Anything else is `Untrusted`: the caller treats it as a miss (and says so
under `-v`), never as an error.

A file is written under a fresh name created with O_EXCL | O_NOFOLLOW and
renamed over the old one, so readers see a whole file or none.

This module imports only `os` and `sys`: the start-up code cache
(gpuc/cache/startup.py) reads through it before anything else is imported.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

LAYOUT = 2
"""The folder's layout; a new layout is a new folder (the old one is left
alone: `gpuc cache clear` of the older gpuc removes it)."""
MARKER = "CACHEDIR.TAG"
MARKER_TEXT = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# gpuc's compile cache: gpuc creates, evicts and clears only the files\n"
    b"# in this folder (https://bford.info/cachedir/ for the signature).\n"
)
TEMPORARY = ".tmp-"
"""The prefix of a file being written."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_S_IFMT, _S_IFDIR, _S_IFREG = 0o170000, 0o040000, 0o100000

refusals: list[str] = []
"""Why something in the cache was not trusted, in this process (`-v` prints
them)."""


class Untrusted(OSError):
    """A folder or file of the cache that gpuc must not read or write."""


def supported() -> bool:
    """Whether this platform has what the checks need (POSIX: owners,
    `dir_fd`, O_NOFOLLOW); elsewhere the cache is off."""
    return os.name == "posix" and bool(_NOFOLLOW) and hasattr(os, "geteuid")


def cache_directory() -> str:
    """GPUC_CACHE_DIR, else the user cache directory's `gpuc` (XDG)."""
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


def folder_name() -> str:
    """gpuc's folder in the cache directory: one per layout and user, so
    another user's folder is never in the way."""
    uid = os.geteuid() if hasattr(os, "geteuid") else 0
    return f"gpuc-{LAYOUT}-{uid}"


def refuse(reason: str) -> Untrusted:
    """Record `reason` for `-v` and make the exception that says it."""
    if reason not in refusals:
        refusals.append(reason)
    return Untrusted(reason)


def check(fd: int, what: str, directory: bool) -> None:
    """Raise Untrusted unless `fd` is a folder (`directory`) or a regular file
    that belongs to the current user and that no one else may write."""
    st = os.fstat(fd)
    kind = st.st_mode & _S_IFMT
    if kind != (_S_IFDIR if directory else _S_IFREG):
        raise refuse(f"{what} is not a {'folder' if directory else 'file'}")
    uid = os.geteuid()
    if st.st_uid != uid:
        raise refuse(f"{what} belongs to uid {st.st_uid}, not to you (uid {uid})")
    if st.st_mode & 0o022:
        raise refuse(
            f"{what} may be written by other users (mode {st.st_mode & 0o777:o})"
        )


def checked(fd: int, what: str, directory: bool) -> int:
    """`fd` once `check` passed; closed where it did not."""
    try:
        check(fd, what, directory)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_folder(parent: int | None, name: str, what: str, create: bool) -> int:
    """Open folder `name` (relative to the open folder `parent`; a path when
    None), made 0700 where `create` and it is missing, and check it."""
    if create:
        try:
            os.mkdir(name, 0o700, dir_fd=parent)
        except FileExistsError:
            pass
    fd = _open(name, os.O_RDONLY | _DIRECTORY, what, parent)
    return checked(fd, what, directory=True)


def _open(name: str, flags: int, what: str, folder: int | None) -> int:
    """`os.open` that never follows a link: a link (or a file where a folder
    should be) is Untrusted, said under `-v`."""
    try:
        return os.open(name, flags | _NOFOLLOW | _CLOEXEC, dir_fd=folder)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise refuse(f"{what} is a symbolic link or not a folder") from None
        raise


def open_namespace(root: str, create: bool) -> int:
    """Open gpuc's folder in the cache directory `root` (made with its marker
    where `create` and it is missing): FileNotFoundError if absent, Untrusted
    where it is not the current user's marked folder."""
    if not supported():
        raise FileNotFoundError("the cache needs a POSIX system")
    name = folder_name()
    what = os.path.join(root, name)
    if create:
        _make_folders(root)
        _make_namespace(root, name)
    fd = open_folder(None, what, what, create=False)
    try:
        if read(fd, MARKER, f"{what}/{MARKER}") != MARKER_TEXT:
            raise refuse(f"{what} has no gpuc marker ({MARKER})")
    except FileNotFoundError:
        os.close(fd)
        raise refuse(f"{what} has no gpuc marker ({MARKER})") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _make_folders(path: str) -> None:
    """`os.makedirs(path)`, every folder it makes 0700 (makedirs gives the
    ones on the way the umask's mode)."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(os.path.abspath(path))
    if parent != path:
        _make_folders(parent)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass


def _make_namespace(root: str, name: str) -> None:
    """Create `root/name` with its marker inside, in one rename: no process
    ever sees the folder without it."""
    if os.path.lexists(os.path.join(root, name)):
        return
    fresh = os.path.join(root, f"{TEMPORARY}{name}-{os.getpid()}-{os.urandom(4).hex()}")
    os.mkdir(fresh, 0o700)
    try:
        fd = open_folder(None, fresh, fresh, create=False)
        try:
            write(fd, MARKER, MARKER_TEXT)
        finally:
            os.close(fd)
        os.rename(fresh, os.path.join(root, name))
    except OSError:
        # Another process made it first (the rename finds a full folder), or
        # the directory cannot be written: leave nothing behind.
        try:
            os.unlink(os.path.join(fresh, MARKER))
        except OSError:
            pass
        try:
            os.rmdir(fresh)
        except OSError:
            pass


@contextmanager
def folders(root: str, names: tuple[str, ...], create: bool) -> Iterator[int]:
    """The open folder `names[0]/names[1]/...` of gpuc's folder in the cache
    directory `root`, each checked on the way."""
    fds = [open_namespace(root, create)]
    try:
        what = os.path.join(root, folder_name())
        for name in names:
            what = os.path.join(what, name)
            fds.append(open_folder(fds[-1], name, what, create))
        yield fds[-1]
    finally:
        for fd in reversed(fds):
            os.close(fd)


def read(folder: int, name: str, what: str, touch: bool = False) -> bytes:
    """The bytes of file `name` in `folder`, once it is checked; `touch` marks
    it used now (its mtime, which eviction reads)."""
    fd = _open(name, os.O_RDONLY, what, folder)
    try:
        check(fd, what, directory=False)
        size = os.fstat(fd).st_size
        chunks = []
        while size > 0:
            chunk = os.read(fd, size)
            if not chunk:
                break
            chunks.append(chunk)
            size -= len(chunk)
        if touch:
            try:
                os.utime(fd)
            except OSError:
                pass
        return b"".join(chunks)
    finally:
        os.close(fd)


def _create(folder: int, name: str, flags: int) -> int:
    """Open file `name` in `folder` to write, made 0600 where missing, never
    through a link."""
    mode = os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _CLOEXEC | flags
    return os.open(name, mode, 0o600, dir_fd=folder)


def open_appending(folder: int, name: str, what: str) -> int:
    """File `name` in `folder` opened to append (made 0600 where missing),
    once it is checked."""
    return checked(_create(folder, name, os.O_APPEND), what, directory=False)


def write(folder: int, name: str, data: bytes) -> None:
    """Replace file `name` in `folder` by `data` atomically: a fresh temporary
    file (O_EXCL | O_NOFOLLOW, 0600), renamed over it."""
    temporary = f"{TEMPORARY}{os.getpid()}-{os.urandom(6).hex()}"
    fd = _create(folder, temporary, os.O_EXCL)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        raise


def publish_folder(folder: int, name: str, files: dict[str, bytes]) -> None:
    """Make folder `name` in the open `folder` hold exactly `files` (a folder
    whose name is a digest of its content: it is made once, whole, by a
    rename, and used as it is after). Untrusted where the one there is not
    the current user's or holds other content."""
    try:
        fd = open_folder(folder, name, name, create=False)
    except FileNotFoundError:
        staging = f"{TEMPORARY}{name}-{os.getpid()}-{os.urandom(4).hex()}"
        fd = open_folder(folder, staging, staging, create=True)
        try:
            for file, data in files.items():
                write(fd, file, data)
            os.rename(staging, name, src_dir_fd=folder, dst_dir_fd=folder)
            return
        except OSError:
            for file in files:  # another process published it first
                try:
                    os.unlink(file, dir_fd=fd)
                except OSError:
                    pass
            os.rmdir(staging, dir_fd=folder)
        finally:
            os.close(fd)
        fd = open_folder(folder, name, name, create=False)
    try:
        if sorted(os.listdir(fd)) != sorted(files) or any(
            read(fd, file, f"{name}/{file}") != data for file, data in files.items()
        ):
            raise refuse(f"{name} does not hold what gpuc would write there")
    finally:
        os.close(fd)


def private_path(path: str) -> bool:
    """Whether no other user can rename, replace or write anything on the way
    to `path` (for a consumer that opens it by name later, as an ICD loader
    does): every folder from the root down to it belongs to root or the
    current user, and is writable by others only where it is sticky (/tmp)."""
    if not supported():
        return False
    uid = os.geteuid()
    current = os.path.realpath(path)
    while True:
        try:
            st = os.lstat(current)
        except OSError:
            return False
        sticky = st.st_mode & 0o1000
        if st.st_uid not in (0, uid) or (st.st_mode & 0o022 and not sticky):
            return False
        parent = os.path.dirname(current)
        if parent == current:
            return True
        current = parent
