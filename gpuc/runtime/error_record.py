"""The error record of a ptx or spirv kernel with asserts (docs/runtime.md,
"Asserts"): a hidden first kernel parameter, a global buffer of `WORDS`
32-bit words that the executor zeroes before the launch and reads after it.
The first thread whose assert fails writes, with one compare-exchange on
word 0, the assert's id (gpuc/asserts.py), then its block and thread index,
and returns; every later failure leaves the record as it is.

The spirv executor reads the record itself (gpuc/runtime/opencl.py); the
CUDA and HIP executors through `RecordingExecutor`. This module needs numpy
only, as the executors do.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any

import numpy as np

from gpuc.runtime.args import LaunchError, find_kernel
from gpuc.runtime.device import DeviceExecutor
from gpuc.runtime.printing import flush_c_stdout
from gpuc.targets.launch_abi import BLOCK, ID, THREAD, WORDS


def fresh() -> np.ndarray[Any, np.dtype[np.uint32]]:
    """A zeroed record, as the launch starts with."""
    return np.zeros(WORDS, np.uint32)


def check(
    name: str, asserts: tuple[tuple[int, str], ...], record: np.ndarray[Any, Any]
) -> None:
    """Raise the LaunchError the record reports, if it reports one; `asserts`
    are the kernel's (id, message) pairs (`KernelSignature.asserts`)."""
    failed = int(record[ID])
    if not failed:
        return
    message = dict(asserts).get(failed)
    if message is None:
        raise LaunchError(
            f"kernel '{name}': its error record names assert {failed}, which the "
            f"kernel cannot report (its asserts: {sorted(dict(asserts))}): the "
            "record was overwritten"
        )
    block = tuple(int(v) for v in record[BLOCK : BLOCK + 3])
    thread = tuple(int(v) for v in record[THREAD : THREAD + 3])
    raise LaunchError(
        f"kernel '{name}': block {block}, thread {thread}: {message}; "
        "the failing thread returned there (the first failure is reported)"
    )


class RecordingExecutor(DeviceExecutor):
    """A GPU executor (CUDA, HIP) whose kernels may take an error record or
    print: their launches are waited for."""

    def launch_raw(
        self,
        name: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        values: Sequence[Any],
        stream: Any = None,
        shared: int = 0,
    ) -> None:
        """A kernel with asserts takes a zeroed error record first
        (gpuc/runtime/error_record.py); it and a kernel that prints are
        waited for, then the record is read (a failed assert raises) and
        what the kernel printed is flushed to standard output."""
        sig = find_kernel(self.kernels, name)
        if not sig.asserts and not sig.prints:
            super().launch_raw(name, grid, block, values, stream, shared)
            return
        words = fresh()
        record = self.alloc(words.nbytes) if sig.asserts else 0
        try:
            if record:
                self._copy_to_device(
                    record, words.ctypes.data, words.nbytes, "zeroing the error record"
                )
                values = [record, *values]
            super().launch_raw(name, grid, block, values, stream, shared)
            what = f"running kernel '{name}'"
            try:
                if stream is None:
                    self._synchronize(what)
                else:
                    self._stream_synchronize(stream, what)
            except LaunchError as error:
                raise LaunchError(f"{error} ({self.fault_note})") from None
            if sig.prints:
                flush_c_stdout()
            if record:
                self._copy_from_device(
                    words.ctypes.data, record, words.nbytes, "reading the error record"
                )
                check(name, sig.asserts, words)
        finally:
            if record:
                with suppress(LaunchError):
                    self.free(record)
