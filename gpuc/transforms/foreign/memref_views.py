"""memref views as the `import` pass sees them: a base pointer with sizes,
strides and an offset in elements (`MemrefView`), and the index arithmetic
that addresses an element through one, folded where the values are known.
memref.subview, reinterpret_cast and memory_space_cast (memref_ops.py) make
new views of the same base; loads, stores and atomics use `element_index`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, MemRefType
from xdsl.ir import Attribute, Operation, SSAValue

from gpuc.transforms.foreign.bare_pointers import dynamic_dims


def index_constant(value: int, before: Operation) -> SSAValue:
    const = arith.ConstantOp(IntegerAttr(value, IndexType()))
    before.parent_block().insert_op_before(const, before)  # type: ignore[union-attr]
    return const.result


Size = int | SSAValue
"""A size, stride or offset: an int when known statically, else its SSA value."""


@dataclass(frozen=True)
class MemrefView:
    """A memref as gpuc sees it: the pointer to its base, its sizes and, for a
    strided view, its strides and offset in elements (None: the identity
    layout, row-major strides from the sizes, offset 0)."""

    ptr: SSAValue
    sizes: tuple[Size, ...]
    strides: tuple[Size, ...] | None = None
    offset: Size = 0
    base_offset: Size = 0
    """How many elements past the buffer's base `ptr` is: a strided memref
    parameter's pointer is to its view's first element, the buffer's element
    at the layout's offset (bare_pointers.py). memref.reinterpret_cast, which
    starts from the base, needs it."""

    def size(self, dim: int, before: Operation) -> SSAValue:
        return materialize(self.sizes[dim], before)

    def dynamic_sizes(self, t: MemRefType, before: Operation) -> list[SSAValue]:
        """The size values passed for `t`'s dynamic dimensions."""
        return [self.size(d, before) for d in dynamic_dims(t)]

    def all_strides(self, before: Operation) -> tuple[Size, ...]:
        """The stride of each dimension (row-major ones for the identity)."""
        if self.strides is not None:
            return self.strides
        strides: list[Size] = [1]
        for size in reversed(self.sizes[1:]):
            strides.append(multiply(strides[-1], size, before))
        return tuple(reversed(strides))

    def with_sizes(self, sizes: tuple[Size, ...]) -> MemrefView:
        return replace(self, sizes=sizes)

    def element_index(
        self, indices: Sequence[SSAValue], before: Operation
    ) -> SSAValue | None:
        """The linear element index of `indices` from the base (row-major for
        the identity layout); None for a 0-d memref at offset 0."""
        if self.strides is None:
            return self._row_major_index(indices, before)
        linear: Size = self.offset
        for index, stride in zip(indices, self.strides, strict=True):
            linear = add(linear, multiply(index, stride, before), before)
        if _known(linear) == 0 and not indices:
            return None
        return materialize(linear, before)

    def _row_major_index(
        self, indices: Sequence[SSAValue], before: Operation
    ) -> SSAValue | None:
        if not indices:
            return None
        block = before.parent_block()
        assert block is not None
        linear = indices[0]
        for dim, index in enumerate(indices[1:], start=1):
            scaled = arith.MuliOp(linear, self.size(dim, before))
            offset = arith.AddiOp(scaled.result, index)
            block.insert_ops_before([scaled, offset], before)
            linear = offset.result
        return linear


def materialize(value: Size, before: Operation) -> SSAValue:
    return index_constant(value, before) if isinstance(value, int) else value


def _known(value: Size) -> int | None:
    return value if isinstance(value, int) else None


def multiply(a: Size, b: Size, before: Operation) -> Size:
    """`a * b`, folded where either is a constant 0 or 1 or both are ints."""
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if 0 in (_known(a), _known(b)):
        return 0
    if _known(a) == 1:
        return b
    if _known(b) == 1:
        return a
    op = arith.MuliOp(materialize(a, before), materialize(b, before))
    before.parent_block().insert_op_before(op, before)  # type: ignore[union-attr]
    return op.result


def add(a: Size, b: Size, before: Operation) -> Size:
    """`a + b`, folded where either is a constant 0 or both are ints."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if _known(a) == 0:
        return b
    if _known(b) == 0:
        return a
    op = arith.AddiOp(materialize(a, before), materialize(b, before))
    before.parent_block().insert_op_before(op, before)  # type: ignore[union-attr]
    return op.result


def subtract(a: Size, b: Size, before: Operation) -> Size:
    """`a - b`, folded where `b` is a constant 0 or both are ints."""
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    if _known(b) == 0:
        return a
    op = arith.SubiOp(materialize(a, before), materialize(b, before))
    before.parent_block().insert_op_before(op, before)  # type: ignore[union-attr]
    return op.result


def kept_dims(sizes: Sequence[int], result: Sequence[int]) -> list[int] | None:
    """Which dimensions of a view with static `sizes` (DYNAMIC_INDEX where
    dynamic) the `result` shape keeps: a rank-reducing subview drops unit
    dimensions. None when `result` is not `sizes` less some 1s."""
    kept: list[int] = []
    for d, size in enumerate(sizes):
        r = len(kept)
        left = len(sizes) - d
        if r < len(result) and result[r] == size and left >= len(result) - r:
            kept.append(d)
        elif size != 1:
            return None
    return kept if len(kept) == len(result) else None


def reshape_groups(reassociation: Attribute | None) -> list[list[int]] | None:
    """A reshape's `reassociation` (`[[0, 1], [2]]`) as lists of dimensions;
    None when it is not an array of integer arrays."""
    if not isinstance(reassociation, ArrayAttr):
        return None
    groups: list[list[int]] = []
    for group in reassociation.data:
        if not isinstance(group, ArrayAttr):
            return None
        dims = [d.value.data for d in group.data if isinstance(d, IntegerAttr)]
        if len(dims) != len(group.data):
            return None
        groups.append(dims)
    return groups
