"""The client half of the compile server (docs/server.md): `gpuc` and
`gpuc-opt` hand their command to a resident server (gpuc/cli/server.py) when it is
enabled, and run it in-process when it is not or cannot be reached.

What is handed over is the whole command: the arguments, the working
directory, the environment, the umask and the standard streams themselves
(their file descriptors, passed over the Unix socket with SCM_RIGHTS), so the
server's forked child reads the client's stdin and writes to its stdout and
stderr as the client would have. This module imports neither xDSL nor
llvmlite: a forwarded command costs the interpreter's start, this file and a
fork in the server.

    GPUC_SERVER=1              hand commands to the server (0: never)
    GPUC_SERVER_IDLE=S         a server started now exits after S idle seconds
                               (default 900)
    GPUC_SERVER_DIR=D          where the sockets live (default
                               $XDG_RUNTIME_DIR/gpuc, else /tmp/gpuc-<uid>)

`$XDG_CONFIG_HOME/gpuc/config.toml` (else `~/.config/gpuc/config.toml`) may
say `server = true` and `server_idle_seconds = N` where the environment does
not.
"""

from __future__ import annotations

import os
import signal
import struct
import sys
from collections.abc import Callable, Sequence

from gpuc.cache import startup as code_cache

TYPE_CHECKING = False  # typing itself costs a command's start 2 ms
if TYPE_CHECKING:
    import socket

DEFAULT_IDLE_SECONDS = 900.0
START_SECONDS = 20.0
"""How long a client waits for a server it started to listen."""
HEADER = struct.Struct("!4sI")
"""A request's first bytes, sent with the descriptors: magic, payload length."""
MAGIC = b"gpc1"
STATUS = struct.Struct("!ci")
"""A reply: b"P" and the pid of the child running the command, then b"S" and
its exit status; or b"M": the server is of another toolchain (and exits)."""


class Unreachable(Exception):
    """The server cannot take this command; it runs in-process instead."""


def enabled() -> bool:
    """GPUC_SERVER if set (on for 1, true, yes, on), else the config file's
    `server`."""
    value = os.environ.get("GPUC_SERVER")
    if value is not None:
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(config().get("server", False))


def config() -> dict[str, object]:
    """The config file's settings ({} where there is none or it does not read)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(
        os.path.expanduser("~"), ".config"
    )
    path = os.path.join(base, "gpuc", "config.toml")
    if not os.path.isfile(path):
        return {}
    import tomllib

    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError):
        return {}


def idle_seconds() -> float:
    text = os.environ.get("GPUC_SERVER_IDLE")
    value: object = text if text else config().get("server_idle_seconds")
    try:
        return float(value) if value is not None else DEFAULT_IDLE_SECONDS  # type: ignore[arg-type]
    except ValueError:
        return DEFAULT_IDLE_SECONDS


def server_directory() -> str:
    """The directory of the sockets: created 0700; an existing one must be
    this user's and closed to others (else Unreachable)."""
    base = os.environ.get("GPUC_SERVER_DIR")
    if not base:
        runtime = os.environ.get("XDG_RUNTIME_DIR")
        if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
            base = os.path.join(runtime, "gpuc")
        else:  # as tempfile.gettempdir(), without importing it (and random)
            tmp = os.environ.get("TMPDIR") or "/tmp"
            base = os.path.join(tmp, f"gpuc-{os.getuid()}")
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        st = os.lstat(base)
    except OSError as e:
        raise Unreachable(f"cannot make {base}: {e}") from None
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or not os.path.isdir(base):
        raise Unreachable(f"{base} is not a directory only this user can open")
    return base


def identity() -> str:
    """Which installation this is: the interpreter and its module search path
    (less the script's directory, which differs between `gpuc` and `python
    -m`). The server checks the rest (gpuc's version and code, xDSL's and
    llvmlite's) before each command: it has them imported, the client has
    not."""
    # The interpreter's real path: a console script's `python3` and the
    # venv's `python` are the same interpreter (the venv is in sys.prefix).
    executable = os.path.realpath(sys.executable)
    return repr((executable, sys.prefix, sys.version, sys.path[1:]))


def server_key() -> str:
    """The short name of this installation's server (its socket's name)."""
    import zlib

    return f"{zlib.crc32(identity().encode()):08x}"


def paths(key: str) -> dict[str, str]:
    """The server's files: its socket, start lock, pid and log."""
    base = os.path.join(server_directory(), f"s-{key}")
    return {kind: f"{base}.{kind}" for kind in ("sock", "lock", "pid", "log")}


def server_command(key: str, socket_path: str, idle: float) -> list[str]:
    """How a client starts a server (the server checks `key` is its own)."""
    return [
        sys.executable,
        "-m",
        "gpuc.cli.server",
        "--key",
        key,
        "--socket",
        socket_path,
        "--idle",
        repr(idle),
    ]


def connect(path: str) -> socket.socket:
    import socket  # only once the server is enabled (a cold start skips it)

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return sock


def reach(key: str) -> socket.socket:
    """A connection to the server for `key`, started if none listens (one
    client starts it, under the lock; a stale socket is removed first)."""
    files = paths(key)
    try:
        return connect(files["sock"])
    except OSError:
        pass
    import fcntl

    try:
        lock = os.open(files["lock"], os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise Unreachable(f"cannot open {files['lock']}: {e}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return connect(files["sock"])  # another client started it meanwhile
        except OSError:
            pass
        start(key, files)
        return connect(files["sock"])
    except OSError as e:
        raise Unreachable(f"cannot start or reach the server: {e}") from None
    finally:
        os.close(lock)


def start(key: str, files: dict[str, str]) -> None:
    """Start a server for `key` and wait until it listens (it says so by
    writing its pid file, after binding)."""
    import subprocess
    import time

    for stale in (files["sock"], files["pid"]):
        try:
            os.unlink(stale)
        except FileNotFoundError:
            pass
    with open(os.open(files["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
              "ab") as log:  # fmt: skip
        process = subprocess.Popen(
            server_command(key, files["sock"], idle_seconds()),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd="/",
        )
    deadline = time.monotonic() + START_SECONDS
    while not os.path.exists(files["pid"]):
        if process.poll() is not None:
            raise Unreachable(f"the server exited at start (see {files['log']})")
        if time.monotonic() > deadline:
            process.kill()
            raise Unreachable(f"the server did not start in {START_SECONDS:.0f} s")
        time.sleep(0.01)


def stream_settings() -> list[tuple[str, str, bool, bool]]:
    """How this process's stdin, stdout and stderr encode text (the server's
    child makes its own the same)."""
    settings = []
    for stream, default_errors in (
        (sys.stdin, "strict"),
        (sys.stdout, "strict"),
        (sys.stderr, "backslashreplace"),
    ):
        settings.append(
            (
                getattr(stream, "encoding", None) or "utf-8",
                getattr(stream, "errors", None) or default_errors,
                bool(getattr(stream, "line_buffering", False)),
                bool(getattr(stream, "write_through", False)),
            )
        )
    return settings


def request(prog: str, argv: Sequence[str]) -> bytes:
    import json

    umask = os.umask(0)
    os.umask(umask)
    return json.dumps(
        {
            "identity": identity(),
            "prog": prog,
            "argv0": sys.argv[0] if sys.argv else prog,
            "argv": list(argv),
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "umask": umask,
            "streams": stream_settings(),
        }
    ).encode()


def receive_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def run_on_server(prog: str, argv: Sequence[str]) -> int:
    """The exit status of `prog argv` run by the server; Unreachable if it
    could not take the command, ServerDied if it ended without a status. A
    server of an older toolchain (gpuc, xDSL or llvmlite changed since it
    started) says so and exits; a new one is started in its place."""
    key = server_key()
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)  # a closed standard stream cannot be passed
    except OSError:
        raise Unreachable("a standard stream is closed") from None
    import socket

    payload = request(prog, argv)
    for _attempt in range(3):
        sock = reach(key)
        with sock:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
                socket.send_fds(sock, [HEADER.pack(MAGIC, len(payload))], [0, 1, 2])
                sock.sendall(payload)
            except OSError as e:
                raise Unreachable(f"cannot send the command: {e}") from None
            try:
                return wait_for_status(sock, key)
            except Stale:
                retire(key)
    raise Unreachable("the servers started were all of another toolchain")


def retire(key: str) -> None:
    """Forget a server that said it is stale (it exits by itself): its socket
    goes, so that the next `reach` starts a new one."""
    try:
        os.unlink(paths(key)["sock"])
    except OSError:
        pass


class Stale(Exception):
    """The server is of another toolchain than the one installed now."""


def wait_for_status(sock: socket.socket, key: str) -> int:
    """The command's exit status from the server's child (Ctrl-C here
    interrupts the child, which then ends with 130 as in-process)."""
    child = 0
    while True:
        try:
            reply = receive_exactly(sock, STATUS.size)
        except KeyboardInterrupt:
            if child:
                os.kill(child, signal.SIGINT)
                continue
            return 130
        except OSError:
            reply = b""
        if len(reply) != STATUS.size:
            if not child:  # the command never started: nothing was written
                raise Unreachable("the server closed the connection")
            raise ServerDied(paths(key)["log"])
        kind, value = STATUS.unpack(reply)
        if kind == b"M":
            raise Stale()
        if kind == b"S":
            return int(value)
        child = int(value)  # b"P": the child running the command


class ServerDied(Exception):
    """The server (or its child running the command) ended without an exit
    status: the command may have written part of its output."""


def forward(prog: str, argv: Sequence[str]) -> int | None:
    """Run the command on the server if it is enabled; its exit status, or
    None where it must run in-process (disabled, unreachable, or the server
    died mid-command, which is reported on stderr)."""
    if not enabled():
        return None
    if any(arg.endswith(".py") for arg in argv):
        # Python kernels run their file: in a resident server its imports
        # would be the modules it loaded for an earlier command.
        return None
    try:
        return run_on_server(prog, argv)
    except Unreachable:
        return None
    except ServerDied as e:
        print(
            f"{prog}: note: the compile server ended before the command finished "
            f"(its log: {e}); running the command in this process",
            file=sys.stderr,
            flush=True,
        )
        return None
    except OSError:
        return None


def exit_now(status: int) -> None:
    """End the process with `status` without the interpreter's teardown (which
    costs more than a small compile): stdout and stderr are flushed first, and
    every output file is already written and closed (`write_output`). The
    code compiled at start-up is kept for the next command (`gpuc.cache.startup`)."""
    code_cache.save()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        status = status or 1
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)


def fewer_collections() -> None:
    """A short-lived command allocates far more than it frees: importing xDSL
    makes a few hundred classes, and every object it makes lives to the end
    (5-7% of a cold `gpuc compile` went to collections that found nothing).
    So the cycle collector is off; a compile pauses it anyway
    (`gpuc.driver.run`), and the process ends without a teardown
    (`exit_now`). Where it is turned back on (`gpuc.cli.main`'s several inputs,
    one after another in one process), it collects the youngest generation
    every 10,000 allocations rather than 700."""
    import gc

    gc.disable()
    gc.set_threshold(10_000, 10, 10)


def opt_main() -> None:
    """The `gpuc-opt` command: through the server where enabled, else
    gpuc.cli.opt (which imports xDSL, so only once it is needed)."""

    def in_process(argv: list[str]) -> int:
        code_cache.install()
        from gpuc.cli.opt import main

        return main(argv)

    command("gpuc-opt", in_process)


def gpuc_main() -> None:
    """The `gpuc` command: through the server where enabled, else gpuc.cli.main."""

    def in_process(argv: list[str]) -> int:
        code_cache.install()
        from gpuc.cli.main import main

        return main(argv)

    command("gpuc", in_process)


def command(prog: str, in_process: Callable[[list[str]], int]) -> None:
    """Run `prog` with this process's arguments, through the server where
    enabled, else with `in_process`, and exit with its status. Ctrl-C at any
    moment (while a server starts, or while a command's modules are imported)
    ends it with status 130 and no traceback, as in the command itself."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        fewer_collections()
        status = forward(prog, sys.argv[1:])
        if status is None:
            status = in_process(sys.argv[1:])
    except KeyboardInterrupt:
        status = 130
    # From here on, Ctrl-C (a first one, or another) ends the process at once.
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    exit_now(status)
