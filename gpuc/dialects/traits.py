"""Traits of gpuc ops that the dialect-level analysis reads.

`ReadsKernelState` marks an op that reads the running kernel's state: its
thread, block and grid indices and sizes, its shared memory or its barrier.
Targets with hardware registers for them (ptx, spirv) read those; the native
target passes the state as a hidden parameter to every function that holds
such an op or calls one that does (gpuc/dialects/analysis.py), so an op of a new
dialect that reads the state declares this trait, and nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.traits import OpTrait


@dataclass(frozen=True)
class ReadsKernelState(OpTrait):
    """The op reads the kernel state (indices, sizes, shared memory, barrier)."""
