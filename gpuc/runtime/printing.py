"""What kernels print, brought to the user (docs/runtime.md, "Printing").

The native executor defines `__gpuc_print(block, text, length)`, which its
kernels call for each `gpuc.printf` (gpuc/targets/printf.py): the text is
kept per block, and when the launch ends (normally or with an error) the
blocks' texts are written to `sys.stdout` in block order, each block's in the
order its threads printed. A block runs in one OS thread, its threads in
order (between barriers, region by region), so the output is the same from
run to run however many OS threads the launch used. Launches of kernels that
print are serialized in the process (one collector at a time).

The spirv and ptx executors' runtimes print with the C library's stdio (or
the CUDA driver's buffer, written at a synchronization); `flush_c_stdout`
makes that text reach the process's standard output before the launch
returns, so that it comes out in order with Python's.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_blocks: dict[int, list[bytes]] | None = None


def _print(block: int, text: int | None, length: int) -> None:
    if _blocks is not None and text:
        _blocks.setdefault(block, []).append(ctypes.string_at(text, length))


_HOOK = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)(_print)
HOOK_ADDRESS: int = ctypes.cast(_HOOK, ctypes.c_void_p).value or 0
"""The address of `__gpuc_print` (for the JIT's symbol table)."""


@contextmanager
def block_output() -> Iterator[None]:
    """Collect what a native launch prints; write it out, blocks in order."""
    global _blocks
    with _lock:
        _blocks = {}
        try:
            yield
        finally:
            blocks, _blocks = _blocks, None
            text = b"".join(b"".join(blocks[k]) for k in sorted(blocks))
            if text:
                sys.stdout.write(text.decode(errors="replace"))
                sys.stdout.flush()


def flush_c_stdout() -> None:
    """Flush Python's and the C library's standard output (what an OpenCL
    runtime's printf wrote is in the latter's buffer)."""
    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    libc.fflush(None)
