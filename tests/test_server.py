"""The compile server (gpuc/cli/server.py, gpuc/cli/client.py): commands through it
write the same bytes and end with the same exit status as in-process; it runs
commands in parallel, one forked child each; a client of another version, a
stale socket and a server killed mid-command fall back to running in-process.

Each test has its own socket directory (GPUC_SERVER_DIR) and stops the servers
it started.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
GPUC = str(BIN / "gpuc")
GPUC_OPT = str(BIN / "gpuc-opt")
SAXPY = str(ROOT / "examples" / "saxpy.mlir")
TINY = "gpuc.func @tiny(%p: !gpuc.ptr<f32, global>) kernel {\n  gpuc.return\n}\n"
BAD = "gpuc.func @bad() kernel {\n  %x = arith.addf %y, %y : f32\n  gpuc.return\n}\n"


@pytest.fixture
def server_dir() -> Iterator[str]:
    """A socket directory (short: socket paths are limited to 107 bytes); the
    servers started in it are stopped afterwards."""
    directory = tempfile.mkdtemp(prefix="gs-")
    yield directory
    for pid in server_pids(directory):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    shutil.rmtree(directory, ignore_errors=True)


def server_pids(directory: str) -> list[int]:
    pids = []
    for pid_file in Path(directory).glob("*.pid"):
        try:
            pids.append(int(pid_file.read_text()))
        except (OSError, ValueError):
            continue
    return pids


def environment(directory: str, on: bool = True) -> dict[str, str]:
    return {
        **os.environ,
        "GPUC_SERVER": "1" if on else "0",
        "GPUC_SERVER_DIR": directory,
        "GPUC_SERVER_IDLE": "60",
        "GPUC_CACHE": "0",
    }


def run(
    argv: list[str], env: dict[str, str], stdin: bytes | None = None, cwd: str = ""
) -> tuple[int, bytes, bytes]:
    done = subprocess.run(
        argv, input=stdin, capture_output=True, env=env, cwd=cwd or ROOT, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


def child_pids(directory: str) -> list[int]:
    """The pids of the children the servers of `directory` forked, in order."""
    pids = []
    for log in sorted(Path(directory).glob("*.log")):
        for line in log.read_text().splitlines():
            if " child " in line:
                pids.append(int(line.split(" child ")[1].split()[0]))
    return pids


def reading_stdin(pid: int) -> bool:
    """Whether process `pid` is blocked reading its fd 0 (Linux's
    /proc/PID/syscall: the read system call, 0 on x86-64, with fd 0)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    return fields[:2] == ["0", "0x0"]


def children(directory: str) -> int:
    """How many commands the servers of `directory` forked a child for."""
    return sum(
        log.read_text().count(" child ") for log in Path(directory).glob("*.log")
    )


def both_ways(
    argv: list[str], directory: str, stdin: bytes | None = None, cwd: str = ""
) -> tuple[int, bytes, bytes]:
    """Run `argv` in-process and through the server; assert both give the same
    bytes and status (and that the server ran it); the result."""
    before = children(directory)
    served = run(argv, environment(directory), stdin, cwd)
    assert children(directory) == before + 1, "the server did not run it"
    alone = run(argv, environment(directory, on=False), stdin, cwd)
    assert served == alone
    return served


def test_output_identical_with_and_without_server(
    server_dir: str, tmp_path: Path
) -> None:
    status, out, err = both_ways(
        [GPUC, "compile", SAXPY, "--target", "ptx"], server_dir
    )
    assert status == 0 and b".entry saxpy" in out and err == b""
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD)
    status, out, err = both_ways([GPUC, "compile", str(bad)], server_dir)
    assert status == 1 and out == b"" and f"{bad}:".encode() in err
    status, out, err = both_ways(
        [GPUC_OPT, "saxpy.mlir", "-p", "inline"], server_dir, cwd=str(ROOT / "examples")
    )
    assert status == 0 and b"gpuc.func @saxpy" in out
    status, out, _ = both_ways([GPUC, "--version"], server_dir)
    assert status == 0 and out.startswith(b"gpuc ")
    status, _, err = both_ways([GPUC, "compile", "--no-such-flag", SAXPY], server_dir)
    assert status == 1 and b"unrecognized arguments" in err
    # An output file: written by the server's child with the client's umask.
    out_file = tmp_path / "saxpy.ptx"
    status, _, _ = both_ways(
        ["sh", "-c", f"umask 077 && {GPUC} compile {SAXPY} -o {out_file}"], server_dir
    )
    assert status == 0 and out_file.stat().st_mode & 0o777 == 0o600
    assert b".entry saxpy" in out_file.read_bytes()


def test_stdin_passed_through(server_dir: str) -> None:
    status, out, _ = both_ways(
        [GPUC, "compile", "-", "--target", "ptx"], server_dir, TINY.encode()
    )
    assert status == 0 and b".entry tiny" in out
    status, out, err = both_ways([GPUC_OPT], server_dir, BAD.encode())
    assert status == 1 and out == b"" and b"<stdin>:" in err


def wait_for(condition: object, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_concurrent_commands(server_dir: str) -> None:
    env = environment(server_dir)
    assert run([GPUC, "--version"], env)[0] == 0  # the server is up
    # Three commands that each wait on their stdin: a server that ran one
    # command at a time would have one child, not three.
    waiting = [
        subprocess.Popen(
            [GPUC, "compile", "-", "--target", "ptx"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(3)
    ]
    wait_for(lambda: children(server_dir) == 4)
    others = [
        subprocess.Popen(
            [GPUC, "compile", SAXPY, "--target", t],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for t in ("ptx", "spirv", "ptx")
    ]
    outputs = [p.communicate(TINY.encode(), timeout=120) for p in waiting]
    assert all(p.returncode == 0 for p in waiting)
    assert all(out == outputs[0][0] and b".entry tiny" in out for out, _ in outputs)
    done = [p.communicate(timeout=120) for p in others]
    assert all(p.returncode == 0 for p in others)
    assert done[0] == done[2] and done[0][0] != done[1][0]
    assert children(server_dir) == 7


def test_version_mismatch_starts_another_server(
    server_dir: str, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    env = {**environment(server_dir), "PYTHONPATH": str(site)}
    expected = run([GPUC, "compile", SAXPY, "--target", "ptx"], env)
    [first] = server_pids(server_dir)
    # Another llvmlite installed (its metadata directory, found first): the
    # server, of the old toolchain, refuses the command and exits; the client
    # starts a new one.
    (site / "llvmlite-0.0.1.dist-info").mkdir()
    assert run([GPUC, "compile", SAXPY, "--target", "ptx"], env) == expected
    [second] = server_pids(server_dir)
    assert second != first
    [log] = Path(server_dir).glob("*.log")
    text = log.read_text()
    assert text.count(" listening ") == 2 and text.count(" child ") == 3, text
    wait_for(lambda: not alive(first), 30)
    # A server asked for a key that is not its own refuses to start; the
    # client runs the command in-process.
    stale = "import gpuc.cli.client as c; c.server_key = lambda: 'f' * 8; c.gpuc_main()"
    argv = [sys.executable, "-c", stale, "compile", SAXPY, "--target", "ptx"]
    assert run(argv, env) == expected
    assert "this installation is" in (Path(server_dir) / "s-ffffffff.log").read_text()


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def key_of(env: dict[str, str]) -> str:
    """The key of the server that clients with environment `env` use."""
    return subprocess.run(
        [sys.executable, "-c", "import gpuc.cli.client as c; print(c.server_key())"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()


def test_stale_socket_is_replaced(server_dir: str) -> None:
    env = environment(server_dir)
    key = key_of(env)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(os.path.join(server_dir, f"s-{key}.sock"))
    stale.close()  # the file stays; nothing listens
    Path(server_dir, f"s-{key}.pid").write_text("999999999\n")
    status, out, err = run([GPUC, "compile", SAXPY, "--target", "ptx"], env)
    assert status == 0 and b".entry saxpy" in out and err == b""
    assert children(server_dir) == 1
    [pid] = server_pids(server_dir)
    assert pid != 999999999
    os.kill(pid, 0)  # alive


def test_server_killed_mid_command(server_dir: str) -> None:
    env = environment(server_dir)
    assert run([GPUC, "--version"], env)[0] == 0
    [server] = server_pids(server_dir)
    client = subprocess.Popen(
        [GPUC, "compile", "-", "--target", "ptx"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    wait_for(lambda: children(server_dir) == 2)
    [child] = child_pids(server_dir)[1:]
    wait_for(lambda: reading_stdin(child))  # the command has started
    os.killpg(server, signal.SIGKILL)  # the server and its spares
    os.killpg(child, signal.SIGKILL)  # the command's process group
    wait_for(lambda: not alive(child))  # before stdin has anything to read
    out, err = client.communicate(TINY.encode(), timeout=120)
    assert client.returncode == 0, err
    assert b".entry tiny" in out
    assert b"the compile server ended before the command finished" in err
    assert b"running the command in this process" in err


def test_idle_server_exits(server_dir: str) -> None:
    env = {**environment(server_dir), "GPUC_SERVER_IDLE": "0.5"}
    assert run([GPUC, "--version"], env)[0] == 0
    [pid] = server_pids(server_dir)
    wait_for(lambda: not list(Path(server_dir).glob("*.sock")), 30)
    wait_for(lambda: not alive(pid), 30)


def test_closed_stdin_and_disabled_run_in_process(server_dir: str) -> None:
    env = environment(server_dir)
    done = subprocess.run(
        f"{GPUC} compile {SAXPY} --target ptx <&-",
        shell=True,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0 and b".entry saxpy" in done.stdout
    assert children(server_dir) == 0  # a closed stream cannot be passed


def test_client_imports_neither_xdsl_nor_llvmlite(server_dir: str) -> None:
    env = environment(server_dir)
    script = (
        "import sys, gpuc.cli.client as c; status = c.forward('gpuc', "
        f"['compile', {SAXPY!r}, '--target', 'ptx', '-o', '/dev/null']); "
        "print(status, sorted({m.split('.')[0] for m in sys.modules} & "
        "{'xdsl', 'llvmlite', 'numpy'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.split() == ["0", "[]"], done.stderr


LIT_SAMPLE = (
    "tests/filecheck/driver/split_input.mlir",
    "tests/filecheck/driver/locations.mlir",
    "tests/filecheck/dialects/syntax_invalid.mlir",
    "tests/filecheck/pipeline/exports.mlir",
    "tests/filecheck/lowering/control_flow.mlir",
    "tests/filecheck/targets/native/abi.mlir",
)


def test_lit_sample_both_ways(server_dir: str) -> None:
    """A sample of the lit suite passes in-process and through the server
    (bench/compile_server.py runs the whole suite both ways)."""
    lit = str(BIN / "lit")
    for on in (False, True):
        done = subprocess.run(
            [lit, "-q", *LIT_SAMPLE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=environment(server_dir, on),
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert children(server_dir) >= len(LIT_SAMPLE)


def process_group(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (/proc/PID/stat's 5th field)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def spares_of(server: int) -> list[int]:
    """The server's children that are servers too (not its SPIR-V emitter)."""
    found = []
    for pid in process_group(server):
        try:
            ppid = int(
                Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
            )
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if ppid == server and b"gpuc.cli.server" in command:
            found.append(pid)
    return found


def test_spares_wait_for_commands_and_leave_with_their_server(server_dir: str) -> None:
    """The server keeps children forked and warmed ahead of the commands
    (gpuc/cli/server.py's SPARES); killed alone, it leaves none behind holding
    its socket."""
    from gpuc.cli.server import SPARES

    env = environment(server_dir)
    assert run([GPUC, "--version"], env)[0] == 0
    [server] = server_pids(server_dir)
    wait_for(lambda: len(spares_of(server)) == SPARES)
    assert run([GPUC, "compile", SAXPY, "--target", "ptx"], env)[0] == 0
    assert children(server_dir) == 2
    wait_for(lambda: len(spares_of(server)) == SPARES)  # replaced
    os.kill(server, signal.SIGKILL)  # the server alone, not its group
    wait_for(lambda: process_group(server) == [], 10)


def test_a_command_gets_its_own_temporary_directory(
    server_dir: str, tmp_path: Path
) -> None:
    """The server was started under a TMPDIR that is gone since (a lit run's,
    deleted as it ends); a later command's ptxas validation writes its
    temporary files in that command's TMPDIR, as in-process."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    status, _, err = run(
        [GPUC, "compile", SAXPY, "--target", "ptx", "-o", str(tmp_path / "a.ptx")],
        {**environment(server_dir), "TMPDIR": str(first)},
    )
    assert status == 0, err
    first.rmdir()
    status, _, err = run(
        [GPUC, "compile", SAXPY, "--target", "ptx", "--validate"]
        + ["-o", str(tmp_path / "b.ptx")],
        {**environment(server_dir), "TMPDIR": str(second)},
    )
    assert status == 0, err
    assert len(child_pids(server_dir)) == 2, "the server did not run both"
