"""The native target's ABI as data (docs/native-abi.md): the kernel-state and
launch-record layouts, the entry-point names and the warp width. The target
(gpuc/targets/native/target.py) builds its IR from these tables, the executor
(gpuc/runtime/native.py) fills records and writes its glue IR from them, and
a test keeps the doc's tables equal to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuc.targets.launch_abi import SHARED_WINDOW_ALIGN

FIELD_BYTES = 8
ENTRY_PREFIX = "__gpuc_launch_"
WARP = 32


def dynamic_shared_start(static_bytes: int) -> int:
    """Where a block's dynamic shared memory starts in its `shared` buffer:
    past the static part, aligned as each of its windows is; a shared
    pointer parameter's argument is its byte offset from there."""
    return -(-static_bytes // SHARED_WINDOW_ALIGN) * SHARED_WINDOW_ALIGN


@dataclass(frozen=True)
class Layout:
    """A C struct of 8-byte fields in order: field name -> how many (3 for an
    x, y, z triple, 1 for a scalar or pointer)."""

    fields: tuple[tuple[str, int], ...]

    def word(self, name: str, dim: int = 0) -> int:
        """Index of field `name` (its component `dim`) in 8-byte words."""
        at = 0
        for field, count in self.fields:
            if field == name:
                if not 0 <= dim < count:
                    raise IndexError(f"field '{name}' has {count} component(s)")
                return at + dim
            at += count
        raise KeyError(f"no field '{name}' in {[f for f, _ in self.fields]}")

    def offset(self, name: str, dim: int = 0) -> int:
        """Byte offset of field `name` (its component `dim`)."""
        return FIELD_BYTES * self.word(name, dim)

    def words(self, name: str) -> slice:
        """The words of field `name`, every component."""
        count = dict(self.fields)[name]
        return slice(self.word(name), self.word(name) + count)

    @property
    def size(self) -> int:
        """Total size in bytes."""
        return FIELD_BYTES * sum(count for _, count in self.fields)

    def then(self, *fields: tuple[str, int]) -> Layout:
        """This layout followed by `fields` (a struct that starts with this one)."""
        return Layout(self.fields + fields)


STATE = Layout(
    (
        ("thread_id", 3),
        ("block_id", 3),
        ("block_dim", 3),
        ("grid_dim", 3),
        ("shared", 1),
        ("context", 1),
        ("error", 1),
        ("launch", 1),
    )
)
"""What every index op and `gpuc.shared_alloc` reads; a work-group function
(a kernel with barriers) also keeps its values live across barriers in
`context` and reports a block whose threads disagree in `error`. `launch` (the
launch record) is there only in a module that reports faults (checked mode,
`cf.assert`): other kernels' states end before it (`state_bytes`)."""

LAUNCH = Layout(
    (
        ("grid_dim", 3),
        ("block_dim", 3),
        ("block_begin", 1),
        ("block_end", 1),
        ("shared", 1),
        ("error", 1),
        ("error_block", 1),
        ("error_kind", 1),
        ("error_thread", 3),
        ("error_index", 1),
        ("error_extent", 1),
        ("extents", 1),
        ("buffers", 1),
        ("buffer_count", 1),
        ("jump", 1),
    )
)
"""The record `__gpuc_launch_<k>(ptr %launch, ...)` reads, and where it
reports an error (a message, and the linear index of the block). A fault
(a failing `cf.assert`, an access out of bounds in checked mode) also says
which thread (`error_kind` FAULT_THREAD) and which index and extent
(FAULT_BOUNDS); `extents` points at the byte size of each kernel argument (0
for a scalar), read in checked mode, and `buffers` the launch's buffers as
(start, bytes) pairs, `buffer_count` of them (every array argument, then this
range's shared memory), where checked helpers look their pointers up; `jump`
is the entry's own (a jmp_buf)."""

FAULT_MESSAGE = 0
"""`error_kind`: only the message (and the block) mean something."""
FAULT_THREAD = 1
"""`error_kind`: `error_thread` names the thread too (a failing assert)."""
FAULT_BOUNDS = 2
"""`error_kind`: thread, `error_index` and `error_extent` (elements)."""
FAULT_RETURNED = 3
"""`error_kind`: as FAULT_THREAD, but the failing thread returned and the
launch ran on (a failing assert in a kernel without barriers: the first
failure in its block range is the one reported)."""
JMP_BUF_BYTES = 512
"""Room for the C library's jmp_buf (200 bytes on x86-64, 312 on AArch64)."""


def state_bytes(reports_faults: bool) -> int:
    """The size of a kernel's state: without `launch` unless it reports faults."""
    return STATE.size if reports_faults else STATE.offset("launch")


def checked_symbol(entry: str) -> str:
    """A constant the native module defines next to launch entry `entry` when
    its kernel was compiled in checked mode: the executor then fills the
    record's `extents`."""
    return entry + ".checked"


def entry_point(kernel: str) -> str:
    """The symbol the executor calls to run kernel `kernel`."""
    return ENTRY_PREFIX + kernel
