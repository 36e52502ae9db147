"""The compile server against clients that go away and plugins that change
(gpuc/cli/server.py, docs/server.md): a command's process group dies with its
client (killed, ended by SIGTERM or SIGHUP, or hanging up its socket), even
in a native kernel that loops forever; a client that stays silent is
dropped; Ctrl-C never prints a traceback, not even while the first client
waits for the server to start; and an edited target or generator plugin, by
content, makes the server stale, so that a new one runs the new code."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_host_faults import looping
from test_server import (
    GPUC,
    SAXPY,
    alive,
    child_pids,
    children,
    environment,
    key_of,
    process_group,
    run,
    server_dir,  # noqa: F401 - a fixture
    server_pids,
    wait_for,
)


def served(directory: str, tmp_path: Path) -> dict[str, str]:
    """The environment of commands through a server of `directory`, with a
    compile cache of its own (a repeated compile is a hit), once it runs."""
    env = {
        **environment(directory),
        "GPUC_CACHE": "1",
        "GPUC_CACHE_DIR": str(tmp_path / "cache"),
    }
    assert run([GPUC, "--version"], env)[0] == 0
    return env


@pytest.mark.parametrize(
    "leave",
    [
        lambda client: client.send_signal(signal.SIGTERM),
        lambda client: client.send_signal(signal.SIGHUP),
        lambda client: client.kill(),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGKILL"],
)
def test_a_client_that_goes_away_takes_its_command_with_it(
    server_dir: str,  # noqa: F811
    tmp_path: Path,
    leave: Callable[[subprocess.Popen[bytes]], None],
) -> None:
    env = served(server_dir, tmp_path)
    client = looping(tmp_path / "loop.mlir", env)
    child = child_pids(server_dir)[-1]
    assert process_group(child) != [], "the command runs in a group of its own"
    leave(client)
    client.wait(30)
    wait_for(lambda: process_group(child) == [], 30)
    [server] = server_pids(server_dir)
    assert alive(server)  # and serves the next command
    log = next(Path(server_dir).glob("*.log"))
    wait_for(lambda: f"server: {child} ended by SIGKILL" in log.read_text(), 10)
    assert run([GPUC, "compile", SAXPY, "--target", "ptx"], env)[0] == 0


def test_a_hang_up_on_the_socket_ends_the_command(
    server_dir: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A client that sends its command and closes its socket (EOF), without
    dying: the command, waiting on stdin that never comes, is killed."""
    env = served(server_dir, tmp_path)
    script = (
        "import os, socket, sys, gpuc.cli.client as c\n"
        "sock = c.reach(c.server_key())\n"
        "payload = c.request('gpuc', ['compile', '-', '--target', 'ptx'])\n"
        "socket.send_fds(sock, [c.HEADER.pack(c.MAGIC, len(payload))], [0, 1, 2])\n"
        "sock.sendall(payload)\n"
        "print(c.STATUS.unpack(c.receive_exactly(sock, c.STATUS.size))[1])\n"
        "sys.stdout.flush()\n"
        "sock.close()\n"
        "sys.stdin.read()\n"
    )
    client = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert client.stdout is not None
    child = int(client.stdout.readline())
    wait_for(lambda: not alive(child), 30)
    assert client.poll() is None  # the client lives on; its command does not
    client.communicate(b"", timeout=30)


def test_a_silent_client_is_dropped(server_dir: str) -> None:  # noqa: F811
    """A connection that never sends its command (here 0.5 s, the server's
    --request-timeout) ends its child; the server goes on serving."""
    from gpuc.cli.client import server_command

    env = environment(server_dir)
    key = key_of(env)
    path = os.path.join(server_dir, f"s-{key}.sock")
    with open(os.path.join(server_dir, f"s-{key}.log"), "ab") as log:
        subprocess.Popen(
            [*server_command(key, path, 60.0), "--request-timeout", "0.5"],
            stdout=log,
            stderr=log,
            env=env,
            start_new_session=True,
        )
    wait_for(lambda: server_pids(server_dir) != [])
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(path)
    wait_for(lambda: children(server_dir) == 1)
    [child] = child_pids(server_dir)
    started = time.monotonic()
    wait_for(lambda: not alive(child), 30)
    assert time.monotonic() - started < 10
    silent.close()
    assert run([GPUC, "compile", SAXPY, "--target", "ptx"], env)[0] == 0
    assert children(server_dir) == 2


def test_ctrl_c_in_a_native_kernel_through_the_server(
    server_dir: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    env = served(server_dir, tmp_path)
    client = looping(tmp_path / "loop.mlir", env)
    child = child_pids(server_dir)[-1]
    client.send_signal(signal.SIGINT)
    _, err = client.communicate(timeout=30)
    assert client.returncode == 130 and b"Traceback" not in err, err
    wait_for(lambda: process_group(child) == [], 30)


def test_ctrl_c_while_the_first_client_waits_for_the_server(
    server_dir: str,  # noqa: F811
) -> None:
    env = environment(server_dir)
    client = subprocess.Popen(
        [GPUC, "compile", SAXPY, "--target", "ptx"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    # The client made the server's log and waits for its pid file.
    wait_for(lambda: list(Path(server_dir).glob("*.log")) != [], 30)
    assert not list(Path(server_dir).glob("*.pid"))
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=30)
    assert (client.returncode, out, err) == (130, b"", b"")
    wait_for(lambda: server_pids(server_dir) != [], 120)  # for the fixture to stop


def test_ctrl_c_while_the_client_module_loads(
    server_dir: str,  # noqa: F811
) -> None:
    """A SIGINT as the command's console script imports gpuc (simulated: the
    package's handler, installed for the console scripts, runs as a Ctrl-C
    would find it) ends it with status 130 and prints nothing."""
    script = Path(server_dir) / "gpuc"
    script.write_text(
        "import os, signal, sys\n"
        "import gpuc\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "import gpuc.cli.client\n"
        "print('not reached')\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, b"", b"")


PLUGIN = '''\
"""A target plugin: the native target under another name, whose assembly
listing starts with a banner."""

from dataclasses import dataclass
from typing import ClassVar

from gpuc.targets.native.target import NativeTarget


@dataclass(frozen=True)
class BannerTarget(NativeTarget):
    name: ClassVar[str] = "banner"

    def render(self, kind, c):
        artefact = super().render(kind, c)
        return "# BANNER\\n" + artefact if kind == "asm" else artefact
'''


def test_an_edited_plugin_makes_the_server_stale(
    server_dir: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Edited (a new size and mtime, then a same-size edit with the mtime set
    back: only the content tells), the plugin's new code runs, on a new
    server; unchanged, the server stays."""
    site = tmp_path / "site"
    (site / "bannerplugin").mkdir(parents=True)
    code = site / "bannerplugin" / "__init__.py"
    code.write_text(PLUGIN.replace("BANNER", "one"))
    info = site / "bannerplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: bannerplugin\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(
        "[gpuc.targets]\nbanner = bannerplugin:BannerTarget\n"
    )
    # The compile cache is off: what it keys a plugin by is not the server's
    # concern (docs/cache.md).
    env = {**environment(server_dir), "PYTHONPATH": str(site)}
    argv = [GPUC, "compile", SAXPY, "--target", "banner", "--emit", "asm"]

    def banner() -> str:
        status, out, err = run(argv, env)
        assert status == 0, err
        return out.decode().splitlines()[0]

    assert banner() == "# one"
    first = server_pids(server_dir)
    assert banner() == "# one" and server_pids(server_dir) == first
    code.write_text(PLUGIN.replace("BANNER", "three"))
    assert banner() == "# three"
    second = server_pids(server_dir)
    assert second != first
    before = code.stat()
    code.write_text(PLUGIN.replace("BANNER", "three".upper()))
    os.utime(code, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert code.stat().st_size == before.st_size
    assert banner() == "# THREE"
    assert server_pids(server_dir) not in (first, second)
    log = next(Path(server_dir).glob("*.log")).read_text()
    assert log.count(" listening ") == 3, log


def test_the_plugins_are_read_by_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Target and generator plugins alike: an edit of the same size with the
    mtime set back changes the digest (the ctime tells)."""
    from gpuc import plugin_code

    package = tmp_path / "p"
    package.mkdir()
    (package / "__init__.py").write_text("X = 1\n")
    info = tmp_path / "p-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: p\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[gpuc.generators]\ngen = p.sub:Gen\n[gpuc.targets]\ntgt = p:T\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin_code.plugins.cache_clear()
    try:
        check_plugins_by_content(package)
    finally:
        plugin_code.plugins.cache_clear()  # this process's plugins are not the test's


def check_plugins_by_content(package: Path) -> None:
    from gpuc import plugin_code

    first = [
        p for p in plugin_code.plugins() if p[2].split(":")[0].split(".")[0] == "p"
    ]
    assert [(g, n, v) for g, n, v, _, _ in first] == [
        ("gpuc.generators", "gen", "p.sub:Gen"),
        ("gpuc.targets", "tgt", "p:T"),
    ]
    stat = (package / "__init__.py").stat()
    (package / "__init__.py").write_text("X = 2\n")
    os.utime(package / "__init__.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    plugin_code.plugins.cache_clear()
    second = [
        p for p in plugin_code.plugins() if p[2].split(":")[0].split(".")[0] == "p"
    ]
    assert [d for *_, d in second] != [d for *_, d in first]
    assert "not found" not in [d for *_, d in second]
    assert plugin_code.package_digest("no_such_package_here") == "not found"
    assert json.dumps(second)  # plain data
