# mypy: disable-error-code="empty-body"
"""The functions a Python kernel calls: `gpuc.thread_id(0)`, `gpuc.barrier()`,
`gpuc.shared((32, 33), gpuc.f32)`, atomics, subgroup operations.

These are markers: the frontend compiles a call to one (gpuc/python/calls.py
says into what); called from ordinary Python they raise, since they mean
something only on a device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def intrinsic(fn: F) -> F:
    """Mark `fn` as compiled by the frontend; calling it in Python raises."""

    def outside(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"gpuc.{fn.__name__}() means something only inside a @gpuc.kernel "
            "or @gpuc.func"
        )

    outside.__name__ = outside.__qualname__ = fn.__name__
    outside.__doc__ = fn.__doc__
    outside._gpuc_intrinsic = fn.__name__  # type: ignore[attr-defined]
    return outside  # type: ignore[return-value]


@intrinsic
def thread_id(axis: int) -> int:
    """The thread's index in its block along `axis` (0, 1 or 2)."""


@intrinsic
def block_id(axis: int) -> int:
    """The block's index in the grid along `axis`."""


@intrinsic
def block_dim(axis: int) -> int:
    """Threads per block along `axis`."""


@intrinsic
def grid_dim(axis: int) -> int:
    """Blocks in the grid along `axis`."""


@intrinsic
def global_id(axis: int) -> int:
    """block_id(axis) * block_dim(axis) + thread_id(axis)."""


@intrinsic
def lane_id() -> int:
    """The thread's lane in its subgroup."""


@intrinsic
def subgroup_size() -> int:
    """Lanes per subgroup (warp)."""


@intrinsic
def barrier() -> None:
    """Wait until every thread of the block gets here; shared memory written
    before is then visible to the block."""


@intrinsic
def shared(shape: tuple[int, ...], dtype: Any) -> Any:
    """A shared (block-wide) array of a constant shape."""


@intrinsic
def local(shape: tuple[int, ...], dtype: Any) -> Any:
    """A per-thread array of a constant shape."""


@intrinsic
def atomic_add(array: Any, index: Any, value: Any) -> Any:
    """array[index] += value atomically; returns the old value."""


@intrinsic
def atomic_sub(array: Any, index: Any, value: Any) -> Any:
    """array[index] -= value atomically; returns the old value."""


@intrinsic
def atomic_min(array: Any, index: Any, value: Any) -> Any:
    """array[index] = min(array[index], value) atomically; returns the old value."""


@intrinsic
def atomic_max(array: Any, index: Any, value: Any) -> Any:
    """array[index] = max(array[index], value) atomically; returns the old value."""


@intrinsic
def atomic_exchange(array: Any, index: Any, value: Any) -> Any:
    """array[index] = value atomically; returns the old value."""


@intrinsic
def atomic_cas(array: Any, index: Any, expected: Any, desired: Any) -> Any:
    """array[index] = desired if it equals expected, atomically (i32 and i64
    arrays); returns the old value."""


@intrinsic
def shuffle(value: Any, lane: Any) -> Any:
    """The value of `lane` in this subgroup."""


@intrinsic
def shuffle_xor(value: Any, mask: Any) -> Any:
    """The value of lane (this lane ^ mask)."""


@intrinsic
def shuffle_down(value: Any, delta: Any) -> Any:
    """The value of lane (this lane + delta); this lane's own past the end."""


@intrinsic
def shuffle_up(value: Any, delta: Any) -> Any:
    """The value of lane (this lane - delta); this lane's own before lane 0."""


@intrinsic
def subgroup_sum(value: Any) -> Any:
    """The sum of `value` over the subgroup, in every lane."""


@intrinsic
def subgroup_min(value: Any) -> Any:
    """The minimum of `value` over the subgroup, in every lane."""


@intrinsic
def subgroup_max(value: Any) -> Any:
    """The maximum of `value` over the subgroup, in every lane."""


@intrinsic
def vote_any(cond: Any) -> bool:
    """True in every lane if `cond` holds in any lane of the subgroup."""


@intrinsic
def ballot(cond: Any) -> Any:
    """An i32 whose bit k is set if `cond` holds in lane k of the subgroup."""


@intrinsic
def vote_all(cond: Any) -> bool:
    """True in every lane if `cond` holds in all lanes of the subgroup."""


@intrinsic
def deferred(fn: Any, **job: Any) -> Any:
    """`gpuc.deferred(f, inline="never")(a, b)`: call @gpuc.func `f` compiled
    as its own job (`gpuc.deferred_call`); `job` is `#gpuc.job`'s
    configuration: `inline` ("always" | "never"), `generator` (a generator's
    name) and the generator's parameters."""


@intrinsic
def launch(fn: Any, grid: Any, block: Any, *args: Any) -> None:
    """Launch @gpuc.func `fn` as a child kernel on `grid` blocks of `block`
    threads (`gpuc.deferred_launch`; ptx only)."""


@intrinsic
def address(fn: Any, **job: Any) -> Any:
    """The address of @gpuc.func `fn` compiled as its own job
    (`gpuc.deferred_addr`; `job` as gpuc.deferred's); call it as a function.
    Functions of scalars only."""
