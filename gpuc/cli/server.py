"""The compile server (docs/server.md): a resident process that has imported
the compiler, and forks a fresh child for each `gpuc` or `gpuc-opt` command a
client (gpuc/cli/client.py) hands it.

The child takes the client's standard streams (received over the socket),
working directory, environment, umask and arguments, runs the command's
`main` as the client would have, and sends back the exit status. The server
itself never runs a command, so no state passes from one command to the next,
and commands run in parallel, one child each. It listens on a Unix socket in
a directory only its user can open, and exits after `--idle` seconds without
a command (and once no child is left).

    python -m gpuc.cli.server --key KEY --socket PATH [--idle SECONDS]
        [--request-timeout SECONDS]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable

from gpuc.cli.client import HEADER, MAGIC, STATUS, identity, server_key

MAX_REQUEST = 64 << 20
REQUEST_SECONDS = 10.0
"""How long a child waits for its client's request once it accepted the
connection (a client sends it at once); a silent client is dropped."""
INSTALLED: tuple[object, ...] = ()
"""What the server imported (`installed()`, read before it imported it)."""


def installed() -> tuple[object, ...]:
    """What a command's output depends on that can change on disk, read
    afresh (a child's memos are its own): the toolchain (gpuc's version and
    code, xDSL's and llvmlite's versions and llvmlite's library), which
    distributions are installed (their metadata directories: a plugin comes
    or goes with one) and the code of every target and generator plugin, by
    content (gpuc/plugin_code.py)."""
    from gpuc import plugin_code
    from gpuc.cache import store as cache

    for memo in (
        cache.metadata_directories,
        cache._dist_version,
        cache._code_fingerprint,
        cache._llvm_library,
        plugin_code.plugins,
    ):
        memo.cache_clear()
    return (cache.toolchain(), cache.metadata_directories(), plugin_code.plugins())


def preload() -> None:
    """Import what commands need: both commands' modules, every target,
    dialect and pass of gpuc's, and xDSL's passes (each import a child would
    otherwise repeat)."""
    import importlib

    import gpuc.cli.main
    import gpuc.cli.opt
    import gpuc.driver
    from gpuc.registry import DIALECTS, PASSES
    from gpuc.targets import target_class, target_names

    for name in target_names():
        try:
            target_class(name)
        except Exception:
            continue  # a target that does not load: its command says so
    for path in (*DIALECTS.values(), *PASSES.values()):
        module = path.partition(":")[0]
        try:
            importlib.import_module(module)
        except Exception:
            continue
    gpuc.cli.main.arg_parser()
    from xdsl.transforms import get_all_passes

    for factory in get_all_passes().values():
        try:
            factory()
        except Exception:
            continue
    for module in ("gpuc.cache.compiling", "gpuc.cli.explain", "gpuc.dumps"):
        importlib.import_module(module)
    warm_up(target_names())


WARM_UP = """
gpuc.func @warm_up(%a: f32, %x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = arith.mulf %a, %xi : f32
    gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""


def warm_up(targets: list[str]) -> None:
    """Compile a small kernel for each target, without the cache: what every
    compile does first (LLVM's targets initialized, lazily built tables) is
    then done once, in the server, for every child alike. What depends on the
    environment (the tools found on PATH) is forgotten again."""
    compile_warm_up(targets)
    import gc

    # What is loaded now stays for the server's life: the collector leaves it
    # alone, in the server and in every child (whose pages it would copy).
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def compile_warm_up(targets: list[str]) -> None:
    """`WARM_UP` compiled for each of `targets` without the cache; then what
    depends on the environment (the tools found on PATH) is forgotten."""
    from gpuc.compiler import compile_module

    for target in targets:
        try:
            compile_module(WARM_UP, target, cache=False)
        except Exception:
            continue
    import gpuc.tools

    for value in vars(gpuc.tools).values():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()


def standard_streams(settings: list[list[object]]) -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, encoded as the client's were."""
    streams = []
    for fd, (encoding, errors, line_buffering, write_through) in enumerate(settings):
        raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
        buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        streams.append(
            io.TextIOWrapper(
                buffered,
                encoding=str(encoding),
                errors=str(errors),
                newline="\n",
                line_buffering=bool(line_buffering),
                write_through=bool(write_through),
            )
        )
    sys.stdin, sys.stdout, sys.stderr = streams


def command_main(prog: str) -> Callable[[list[str]], int]:
    if prog == "gpuc-opt":
        from gpuc.cli.opt import main as opt_main

        return opt_main
    from gpuc.cli.main import main

    return main


def run_command(request: dict[str, object]) -> int:
    """Run the request's command in this (forked) process; its exit status."""
    os.chdir(str(request["cwd"]))
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    # tempfile keeps the directory it first chose (the server's TMPDIR, which
    # a lit run that started the server deletes as it ends): the client's.
    import tempfile

    tempfile.tempdir = None
    umask = request["umask"]
    assert isinstance(umask, int)
    os.umask(umask)
    argv = [str(a) for a in request["argv"]]  # type: ignore[attr-defined]
    sys.argv = [str(request["argv0"]), *argv]
    streams = request["streams"]
    assert isinstance(streams, list)
    standard_streams(streams)
    try:
        status = command_main(str(request["prog"]))(argv)
    except SystemExit as e:  # --help, --version
        if e.code is None or isinstance(e.code, int):
            status = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            status = 1
    except KeyboardInterrupt:  # before or after the command's own handling
        status = 130
    except BaseException:
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 1
    return status


def serve_one(connection: socket.socket) -> None:
    """In the forked child: receive one command, run it, reply its status.

    The command runs in a process group of its own (this child, and what it
    starts: ptxas, the SPIR-V emitter, a native kernel's threads), which is
    killed as a whole once the client is gone (`watch_client`). A client that
    sends no request within `REQUEST_SECONDS` is dropped."""
    deadline = time.monotonic() + REQUEST_SECONDS
    connection.settimeout(REQUEST_SECONDS)
    try:
        message, fds, _flags, _address = socket.recv_fds(connection, HEADER.size, 3)
        if len(message) != HEADER.size or len(fds) != 3:
            return
        magic, size = HEADER.unpack(message)
        if magic != MAGIC or size > MAX_REQUEST:
            return
        request = json.loads(receive_before(connection, size, deadline))
    except (OSError, ValueError):  # a timeout, a hang-up, or not our protocol
        return
    connection.settimeout(None)
    if request.get("identity") != identity() or installed() != INSTALLED:
        connection.sendall(STATUS.pack(b"M", 0))
        os.kill(os.getppid(), signal.SIGTERM)  # stale: the server exits
        return
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.setpgid(0, 0)
    done = watch_client(connection)
    connection.sendall(STATUS.pack(b"P", os.getpid()))  # whom Ctrl-C interrupts
    status = run_command(request)
    done.set()
    connection.sendall(STATUS.pack(b"S", status))


def receive_before(connection: socket.socket, size: int, deadline: float) -> bytes:
    """`size` bytes, all received before `deadline` (else TimeoutError)."""
    data = b""
    while len(data) < size:
        connection.settimeout(max(deadline - time.monotonic(), 0.001))
        chunk = connection.recv(min(size - len(data), 1 << 20))
        if not chunk:
            raise ConnectionResetError("the client hung up mid-request")
        data += chunk
    return data


def watch_client(connection: socket.socket) -> threading.Event:
    """Watch the connection from a thread: once the client is gone (killed,
    or ended by SIGTERM or SIGHUP: the socket hangs up) or sends anything
    more, the command's process group is killed, this child included, unless
    the returned event says the command is done. A thread, because the
    command may be in native code that never returns to the interpreter (a
    looping kernel), where no signal handler of Python's would run."""
    done = threading.Event()

    def watch() -> None:
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN | select.POLLRDHUP)
        while not poller.poll():
            pass
        if not done.is_set():
            os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="gpuc-client-watch", daemon=True).start()
    return done


def fork_child(listener: socket.socket, connection: socket.socket) -> int:
    pid = os.fork()
    if pid:
        return pid
    status = 0
    try:
        listener.close()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        serve_one(connection)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def serve(socket_path: str, idle: float) -> None:
    """Listen on `socket_path` until `idle` seconds pass without a command."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    os.umask(0o077)
    listener.bind(socket_path)
    listener.listen(64)
    listener.setblocking(False)  # spares race to accept (take_connection)
    inode = os.stat(socket_path).st_ino
    pid_path = socket_path.removesuffix(".sock") + ".pid"
    with open(pid_path + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(pid_path + ".tmp", pid_path)  # the clients' sign that it listens
    print(f"gpuc server {os.getpid()} listening on {socket_path}", flush=True)
    children: set[int] = set()
    spares: dict[int, int] = {}  # a spare's taken-pipe -> its pid
    last = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            children = {pid for pid in children if not reaped(pid)}
            for fd, pid in list(spares.items()):
                if os.waitpid(pid, os.WNOHANG)[0]:  # died before taking one
                    os.close(fd)
                    del spares[fd]
            if children:
                last = time.monotonic()
            wait = max(0.0, last + idle - time.monotonic())
            if not children and wait == 0.0:
                break
            while len(spares) < SPARES:
                fd, pid = spare(listener)
                spares[fd] = pid
            ready, _, _ = select.select(list(spares), [], [], min(wait, 1.0))
            for fd in ready:
                pid = spares.pop(fd)
                os.close(fd)
                children.add(pid)
                print(f"gpuc server: child {pid} runs a command", flush=True)
                last = time.monotonic()
    finally:
        for fd, pid in spares.items():  # not yet serving: stopped, not waited on
            os.close(fd)
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        mine = read_pid(pid_path) == os.getpid() and own(socket_path, inode)
        for path in (socket_path, pid_path) if mine else ():
            try:
                os.unlink(path)
            except OSError:
                pass
        # Clients that connected before the unlink are still served.
        listener.setblocking(False)
        while True:
            try:
                children.add(accept(listener))
            except OSError:
                break
        listener.close()
        for pid in children:
            os.waitpid(pid, 0)
        print(f"gpuc server {os.getpid()} exits", flush=True)


def reaped(child: int) -> bool:
    """Whether `child` has ended (then reaped, and logged if a signal ended
    it: a client that went away, `watch_client`)."""
    pid, status = os.waitpid(child, os.WNOHANG)
    if pid and os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        print(f"gpuc server: {child} ended by {name}", flush=True)
    return bool(pid)


SPARES = 2
"""Children forked ahead of the commands, each warmed up on its own
(`parse_warm_up`), waiting to accept the next connection (lit's two workers
find one each). A child forked only at the command first copies, page by
page, all the server's memory the command writes to, while the client waits."""


def parse_warm_up() -> None:
    """Parse `WARM_UP` (nothing more): a spare's own copies of the pages every
    command touches, made before a client waits. Measured in children forked
    from a warm server, saxpy to PTX took 26.5 ms after no warm-up, 20.7 ms
    after this one (7 ms of CPU) and 15.2 ms after a whole compile (19 ms):
    parsing is the warm-up that costs a command about what it saves it, so
    lit's throughput stays; a whole compile would add 8 ms of CPU a command."""
    from gpuc.driver import make_options, run
    from gpuc.targets import DEFAULT_TARGET

    try:
        run(WARM_UP, make_options(DEFAULT_TARGET, {}), stop_after="parse")
    except Exception:
        pass


def spare(listener: socket.socket) -> tuple[int, int]:
    """Fork a spare child: it warms up (`parse_warm_up`), then accepts one
    connection, says so with a byte on a pipe, and serves it. The pipe's
    read end and the child's pid."""
    taken, tell = os.pipe()
    server = os.getpid()
    pid = os.fork()
    if pid:
        os.close(tell)
        return taken, pid
    status = 0
    try:
        os.close(taken)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        parse_warm_up()
        connection = take_connection(listener, server)
        os.write(tell, b"t")
        os.close(tell)
        listener.close()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with connection:
            connection.setblocking(True)
            serve_one(connection)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def take_connection(listener: socket.socket, server: int) -> socket.socket:
    """The next connection, once this spare wins it (the listener does not
    block: the spares race for each one); the spare exits if its server is
    gone (killed alone, it must not leave spares holding the socket)."""
    while True:
        ready, _, _ = select.select([listener], [], [], 1.0)
        if os.getppid() != server:
            os._exit(0)
        if not ready:
            continue
        try:
            connection, _address = listener.accept()
        except (BlockingIOError, InterruptedError):
            continue
        return connection


def accept(listener: socket.socket) -> int:
    """Accept one connection and fork its child; the child's pid."""
    connection, _address = listener.accept()
    with connection:
        connection.setblocking(True)
        pid = fork_child(listener, connection)
    print(f"gpuc server: child {pid} runs a command", flush=True)
    return pid


def own(path: str, inode: int) -> bool:
    """Whether `path` is still the socket this server bound (not a newer
    server's, started after a client retired this one)."""
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def read_pid(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def main() -> None:
    global INSTALLED, REQUEST_SECONDS
    parser = argparse.ArgumentParser(prog="python -m gpuc.cli.server")
    parser.add_argument("--key", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--idle", type=float, default=900.0)
    parser.add_argument("--request-timeout", type=float, default=REQUEST_SECONDS)
    args = parser.parse_args()
    REQUEST_SECONDS = args.request_timeout
    from gpuc.cache import startup as code_cache

    code_cache.install()
    # Read before the imports: a plugin edited meanwhile makes the first
    # command find the server stale, rather than run code older than this.
    INSTALLED = installed()
    preload()
    code_cache.save()
    own = server_key()
    if args.key != own:
        sys.exit(f"gpuc server: asked for {args.key}, but this installation is {own}")
    serve(args.socket, args.idle)


if __name__ == "__main__":
    main()
