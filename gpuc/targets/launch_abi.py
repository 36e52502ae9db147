"""What compiled code and the executors agree on besides the kernel's own
parameters, as data both sides import (this module imports nothing, so a
compile does not load the runtime and numpy with it):

- the error record of a kernel with asserts on ptx, spirv and amdgpu
  (docs/runtime.md, "Asserts"): a hidden first parameter of `WORDS` 32-bit
  words, zeroed before the launch; the first failing thread writes the
  assert's id at `ID`, its block at `BLOCK` (x, y, z) and its thread at
  `THREAD` (x, y, z);
- the native print hook (`NATIVE_PRINT`), which native kernels call with
  their block's linear index and the text;
- dynamic shared memory on ptx and native: one window per block, in which
  each `gpuc.SharedMemory` argument's part starts at a multiple of
  `SHARED_WINDOW_ALIGN` bytes, in parameter order; a shared pointer
  parameter receives its part's byte offset (ptx: from `DYNAMIC_SHARED`).
"""

from __future__ import annotations

WORDS = 8
"""id, block x, y, z, thread x, y, z, and one unused (32 bytes)."""
ID, BLOCK, THREAD = 0, 1, 4

NATIVE_PRINT = "__gpuc_print"
"""`void __gpuc_print(i64 block, ptr text, i64 length)`: what native kernels
call to print; `block` is the linear index of the printing thread's block."""

SHARED_WINDOW_ALIGN = 16
"""Each `SharedMemory` argument's part of the dynamic shared window starts at
a multiple of this (the widest access, a 16-byte vector)."""
DYNAMIC_SHARED = "__gpuc_dynamic_shared"
"""ptx: the `.extern .shared` array (of no size) at the start of a launch's
dynamic shared memory."""
