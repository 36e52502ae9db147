"""Code generation in a fresh process, for LLVM back-ends whose process-wide
state leaks from one module into the next.

LLVM 22's SPIR-V back-end keeps its module analysis in a static
(llvm/llvm-project#160613) whose block-id table is never cleared: once the
memory of an earlier module is reused, ids collide and the output changes
(or is invalid). So each module is emitted by a process that never emitted
one before, and a fatal LLVM error ends that process, not the caller.

The caller never forks: `os.fork` in a process whose other threads run
copies locks they hold (an earlier bug hung compiles that way), and Python
3.12+ warns about it. Instead, an *emitter server* is started once with
`subprocess` (fork and exec at once, safe with threads), running this file
as a script: it imports llvmlite alone, initializes LLVM's targets, and for
each job forks a child from that pristine, single-threaded state; the child
emits and exits. (Without `os.fork`, the server does one job and exits, and
the next job starts another.) Jobs go one at a time, under a lock.

A job is the module's LLVM IR text and how to rebuild its target machine
(`MachineSpec`), which `rebuildable` records when a target creates one.
"""

from __future__ import annotations

import atexit
import json
import os
import struct
import subprocess
import sys
import threading
import weakref
from dataclasses import asdict, dataclass
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from llvmlite import binding as llvm


@dataclass(frozen=True)
class MachineSpec:
    """What recreates a target machine in another process."""

    triple: str
    opt_level: int
    llvm_options: tuple[str, ...] = ()
    cpu: str = ""
    features: str = ""


_SPECS: weakref.WeakKeyDictionary[llvm.TargetMachine, MachineSpec] = (
    weakref.WeakKeyDictionary()
)


def rebuildable(tm: llvm.TargetMachine, spec: MachineSpec) -> llvm.TargetMachine:
    """`tm`, which `emit_object` can recreate from `spec` in a fresh process."""
    _SPECS[tm] = spec
    return tm


class _Server:
    """The emitter server, started on first use (again if it went away)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._inherited: subprocess.Popen[bytes] | None = None
        """A forked copy's server of its parent: never waited for here, but
        referenced, so that it is not reported as left running."""
        self._pid = os.getpid()
        atexit.register(self.close)

    def run(self, request: bytes) -> tuple[int, bytes]:
        """Send one job; its child's exit status and output."""
        with self._lock:
            if self._pid != os.getpid():  # a forked copy: the server is the parent's
                self._inherited, self._proc = self._proc, None
                self._pid = os.getpid()
                _close_pipes(self._inherited)
            for attempt in (1, 2):
                if self._proc is not None and self._proc.poll() is not None:
                    self._stop()  # it went away: its pipes are closed here
                if self._proc is None:
                    self._proc = self._start()
                answer = self._ask(self._proc, request)
                if answer is not None:
                    return answer
                self._stop()
                if attempt == 2:
                    return -1, b""
        raise AssertionError("unreachable")

    @staticmethod
    def _ask(proc: subprocess.Popen[bytes], request: bytes) -> tuple[int, bytes] | None:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(request)
            proc.stdin.flush()
            head = proc.stdout.read(16)
            if len(head) < 16:
                return None
            status, size = struct.unpack("<qQ", head)
            data = proc.stdout.read(size)
            return (status, data) if len(data) == size else None
        except (BrokenPipeError, OSError):
            return None

    @staticmethod
    def _start() -> subprocess.Popen[bytes]:
        # -P: not gpuc/ first on sys.path. stderr is inherited, so LLVM's own
        # message about a fatal error shows.
        return subprocess.Popen(
            [sys.executable, "-P", __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
        )

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            try:
                proc.stdin.close()  # the server exits at the end of its input
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        _close_pipes(proc)

    def close(self) -> None:
        if self._pid == os.getpid():
            with self._lock:
                self._stop()


def _close_pipes(proc: subprocess.Popen[bytes] | None) -> None:
    """Close this process's ends of `proc`'s pipes (left open, Python reports
    them with a ResourceWarning, an error under `-W error`)."""
    if proc is None:
        return
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass


_server = _Server()


def server_pid() -> int | None:
    """The process id of the running emitter server (None where none runs):
    the jobs are its children, so their CPU time is its children's, which a
    caller that measures CPU time (bench/scale.py) reads there."""
    proc = _server._proc
    return None if proc is None or proc.poll() is not None else proc.pid


def emit_object(module: llvm.ModuleRef, tm: llvm.TargetMachine, what: str) -> bytes:
    """`tm.emit_object(module)`, computed in a fresh process (`tm` must come
    from `rebuildable`). A failure there is a LoweringError naming `what`."""
    from gpuc.lowering.diagnostics import LoweringError

    spec = _SPECS.get(tm)
    if spec is None:
        raise LoweringError(
            f"internal error: {what} got a target machine that cannot be "
            "recreated in another process (make it with "
            "gpuc.targets.spirv.isolation.rebuildable)"
        )
    header = json.dumps(asdict(spec)).encode()
    ir = str(module).encode()
    request = struct.pack("<QQ", len(header), len(ir)) + header + ir
    status, data = _server.run(request)
    if status != 0:
        raise LoweringError(
            f"{what} failed in LLVM (exit status {status}; its message, if any, "
            "is above); this is a bug in gpuc's verify-target or in LLVM: "
            "please report it with the input"
        )
    return data


def _read(inp: IO[bytes], size: int) -> bytes | None:
    data = inp.read(size)
    return data if len(data) == size else None


def _emit(header: bytes, ir: bytes) -> bytes:
    from llvmlite import binding as llvm

    spec = MachineSpec(**json.loads(header))
    for option in spec.llvm_options:
        llvm.set_option("gpuc", option)
    target = llvm.Target.from_triple(spec.triple)
    tm = target.create_target_machine(
        cpu=spec.cpu, features=spec.features, opt=spec.opt_level
    )
    return bytes(tm.emit_object(llvm.parse_assembly(ir.decode())))


def _job(header: bytes, ir: bytes) -> tuple[int, bytes]:
    """Emit in a forked child; its exit status and output."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: emit, write, exit; never return
        status = 1
        try:
            os.close(read_end)
            data = _emit(header, ir)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, wait_status = os.waitpid(pid, 0)
    status = os.waitstatus_to_exitcode(wait_status)
    return status, data if status == 0 else b""


def _serve(inp: IO[bytes], out: IO[bytes]) -> int:
    """The emitter server: LLVM up first, then jobs from `inp` until its end."""
    from llvmlite import binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    while (sizes := _read(inp, 16)) is not None:
        header_size, ir_size = struct.unpack("<QQ", sizes)
        header, ir = _read(inp, header_size), _read(inp, ir_size)
        if header is None or ir is None:
            return 1
        if hasattr(os, "fork"):
            status, data = _job(header, ir)
        else:  # one job per server: the next one starts afresh
            status, data = 0, _emit(header, ir)
        out.write(struct.pack("<qQ", status, len(data)) + data)
        out.flush()
        if not hasattr(os, "fork"):
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.stdin.buffer, sys.stdout.buffer))
