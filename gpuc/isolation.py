"""Code generation in a fresh process, for LLVM back-ends whose process-wide
state leaks from one module into the next.

LLVM 22's SPIR-V back-end keeps its module analysis in a static
(llvm/llvm-project#160613) whose block-id table is never cleared: once the
memory of an earlier module is reused, ids collide and the output changes
(or is invalid). So each module is emitted by a process that never emitted
one before, and a fatal LLVM error ends that process, not the caller.

The process is started with `subprocess` (fork and exec at once, which is
safe while other threads run, unlike `os.fork`, which Python 3.12+ warns
about and which copies locks other threads hold), running this file as a
script: it imports llvmlite alone, initializes LLVM's targets, then waits
for one job on stdin. One such process is started ahead (`_Spares`), so a
compile does not wait for its start-up; each is used once.

The job is the module's LLVM IR text and how to rebuild its target machine
(`MachineSpec`), which `rebuildable` records when a target creates one.
"""

from __future__ import annotations

import atexit
import json
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


class _Spares:
    """One started emitter process kept ready; taking it starts the next."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: subprocess.Popen[bytes] | None = None
        self._retired: list[subprocess.Popen[bytes]] = []
        atexit.register(self.close)

    def take(self) -> subprocess.Popen[bytes]:
        with self._lock:
            self._retired = [p for p in self._retired if p.poll() is None]
            proc = self._ready if self._ready is not None else self._start()
            if proc.poll() is not None:  # died while waiting (killed?)
                proc = self._start()
            self._ready = self._start()
            return proc

    def retire(self, proc: subprocess.Popen[bytes]) -> None:
        """`proc` answered and is exiting: reaped later, not waited for (an
        LLVM process takes tens of milliseconds to exit)."""
        with self._lock:
            self._retired.append(proc)

    @staticmethod
    def _start() -> subprocess.Popen[bytes]:
        # stderr is inherited: LLVM's own message about a fatal error shows.
        return subprocess.Popen(
            [sys.executable, "-P", __file__],  # -P: not gpuc/ first on sys.path
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
        )

    def close(self) -> None:
        with self._lock:
            ready, self._ready = self._ready, None
            procs, self._retired = self._retired, []
        if ready is not None:
            assert ready.stdin is not None
            ready.stdin.close()  # the emitter exits on end of input
            procs.append(ready)
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


_spares = _Spares()


def emit_object(module: llvm.ModuleRef, tm: llvm.TargetMachine, what: str) -> bytes:
    """`tm.emit_object(module)`, computed in a fresh process (`tm` must come
    from `rebuildable`). A failure there is a LoweringError naming `what`."""
    from gpuc.lowering.diagnostics import LoweringError

    spec = _SPECS.get(tm)
    if spec is None:
        raise LoweringError(
            f"internal error: {what} got a target machine that cannot be "
            "recreated in another process (make it with gpuc.isolation.rebuildable)"
        )
    header = json.dumps(asdict(spec)).encode()
    ir = str(module).encode()
    proc = _spares.take()
    assert proc.stdin is not None and proc.stdout is not None
    data = b""
    try:
        proc.stdin.write(struct.pack("<QQ", len(header), len(ir)) + header + ir)
        proc.stdin.close()
        sizes = proc.stdout.read(8)
        if len(sizes) == 8:
            (size,) = struct.unpack("<Q", sizes)
            data = proc.stdout.read(size)
            if len(data) == size:
                proc.stdout.close()
                _spares.retire(proc)
                return data
    except BrokenPipeError:
        pass
    status = proc.wait()
    raise LoweringError(
        f"{what} failed in LLVM (exit status {status}; its message, if any, "
        "is above); this is a bug in gpuc's verify-target or in LLVM: "
        "please report it with the input"
    )


def _serve(inp: IO[bytes], out: IO[bytes]) -> int:
    """The emitter: LLVM up first, then one job from `inp`, answered on `out`."""
    from llvmlite import binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    sizes = inp.read(16)
    if len(sizes) < 16:
        return 0  # closed unused: the caller is exiting
    header_size, ir_size = struct.unpack("<QQ", sizes)
    spec = MachineSpec(**json.loads(inp.read(header_size)))
    ir = inp.read(ir_size).decode()
    for option in spec.llvm_options:
        llvm.set_option("gpuc", option)
    target = llvm.Target.from_triple(spec.triple)
    tm = target.create_target_machine(
        cpu=spec.cpu, features=spec.features, opt=spec.opt_level
    )
    module = llvm.parse_assembly(ir)
    data = bytes(tm.emit_object(module))
    out.write(struct.pack("<Q", len(data)) + data)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.stdin.buffer, sys.stdout.buffer))
