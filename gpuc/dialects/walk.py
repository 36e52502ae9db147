"""Finding a module's ops of some classes in one walk: the passes and checks
that look for a few op classes (deferred ops, atomics, loops) ask here
instead of each walking with `Operation.walk` and an `isinstance` per op,
which on a module of thousands of kernels cost more than the work they
guard. Each op class is tested once per walk."""

from __future__ import annotations

from typing import TypeVar, cast

from xdsl.ir import Operation

OpT = TypeVar("OpT", bound=Operation)


def ops_of_classes(
    root: Operation, *classes: tuple[type[Operation], ...]
) -> list[list[Operation]]:
    """The ops of `root` (itself included) that are instances of each of
    `classes` (a tuple of classes each), in `walk`'s order (pre-order)."""
    found: list[list[Operation]] = [[] for _ in classes]
    which: dict[type[Operation], tuple[list[Operation], ...]] = {}

    def visit(op: Operation) -> None:
        lists = which.get(type(op))
        if lists is None:
            lists = which[type(op)] = tuple(
                into
                for into, kinds in zip(found, classes, strict=True)
                if issubclass(type(op), kinds)
            )
        for into in lists:
            into.append(op)
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    visit(child)

    visit(root)
    return found


def ops_of_class(root: Operation, kind: type[OpT]) -> list[OpT]:
    """The ops of `root` (itself included) that are `kind`s, in walk order."""
    (found,) = ops_of_classes(root, (kind,))
    return cast(list[OpT], found)
