"""Outputs `-o` must not replace: stand-ins for `/dev/null` (a FIFO, which like
a device must be written in place) and a symbolic link (which must keep
naming its file). Tests never write to the real /dev/null."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path


def check_special_outputs(tmp_path: Path, write_to: Callable[[str], int]) -> bytes:
    """Run `write_to(path)` (a command's `-o path`, returning its exit status)
    into a symlink and into a FIFO; check both stay what they were and got the
    same bytes, and that no temporary file is left; return those bytes."""
    real = tmp_path / "real.out"
    real.write_text("old\n")
    link = tmp_path / "link.out"
    link.symlink_to(real)
    assert write_to(str(link)) == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    written = real.read_bytes()
    assert written != b"old\n"

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    # A daemon reader: a regression (the FIFO replaced) fails, never hangs.
    reader = threading.Thread(
        target=lambda: received.append(fifo.read_bytes()), daemon=True
    )
    reader.start()
    assert write_to(str(fifo)) == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert received == [written]
    left = {p.name for p in tmp_path.iterdir()} - {"input.mlir"}
    assert left == {"link.out", "pipe", "real.out"}, "no temporary file left behind"
    return written
