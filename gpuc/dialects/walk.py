"""Finding a module's ops of some classes in one walk: the passes and checks
that look for a few op classes (deferred ops, atomics, loops) ask here
instead of each walking with `Operation.walk` and an `isinstance` per op,
which on a module of thousands of kernels cost more than the work they
guard. Each op class is tested once per walk; `preorder` is the walk."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar, cast

from xdsl.ir import Operation

OpT = TypeVar("OpT", bound=Operation)


def ops_of_classes(
    root: Operation, *classes: tuple[type[Operation], ...]
) -> list[list[Operation]]:
    """The ops of `root` (itself included) that are instances of each of
    `classes` (a tuple of classes each), in `walk`'s order (pre-order)."""
    return of_classes(preorder(root), *classes)


def of_classes(
    ops: Iterable[Operation], *classes: tuple[type[Operation], ...]
) -> list[list[Operation]]:
    """The ops of `ops` that are instances of each of `classes`, in order:
    `ops_of_classes` for a caller that keeps the walk (`preorder`) for more."""
    found: list[list[Operation]] = [[] for _ in classes]
    which: dict[type[Operation], tuple[list[Operation], ...]] = {}
    for op in ops:
        lists = which.get(type(op))
        if lists is None:
            lists = which[type(op)] = tuple(
                into
                for into, kinds in zip(found, classes, strict=True)
                if issubclass(type(op), kinds)
            )
        for into in lists:
            into.append(op)
    return found


def preorder(root: Operation) -> list[Operation]:
    """`list(root.walk())`: `root` and the ops nested in it, in pre-order. It
    follows xDSL's links between blocks and ops itself, without the iterator
    objects `walk` makes for every region and block (most of a walk's cost
    on a module of thousands of kernels)."""
    order: list[Operation] = []
    stack = [root]
    while stack:
        op = stack.pop()
        order.append(op)
        regions = op.regions
        if not regions:
            continue
        # The children go on the stack last one first (read backwards along
        # the links), so they come off in program order.
        for region in reversed(regions):
            block = region._last_block  # noqa: SLF001
            while block is not None:
                child = block._last_op  # noqa: SLF001
                while child is not None:
                    stack.append(child)
                    child = child._prev_op  # noqa: SLF001
                block = block._prev_block  # noqa: SLF001
    return order


def ops_of_class(root: Operation, kind: type[OpT]) -> list[OpT]:
    """The ops of `root` (itself included) that are `kind`s, in walk order."""
    (found,) = ops_of_classes(root, (kind,))
    return cast(list[OpT], found)
