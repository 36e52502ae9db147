"""What a launch needs to know of a kernel's parameters, read from the IR
after the dialect pipeline: which pointer parameters the kernel may write
through, and which came from memrefs (with the sizes the import added).

The write analysis is conservative: a pointer is read-only only when every
use of it, through `gpuc.offset` and `gpuc.addrspace_cast`, is the address of
a `gpuc.load`. Anything else (a store or atomic through it, passing it to a
call, storing it, a block argument, a comparison) counts as a write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StridedLayoutAttr,
)
from xdsl.ir import SSAValue

from gpuc.dialects.attrs import AddressSpace, AtomicKind, PtrType
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.memory import (
    REGROUPED,
    AddrSpaceCastOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
)

if TYPE_CHECKING:
    from gpuc.runtime.launch_types import ArrayShape

MEMREF_PARAMS_ATTR = "gpuc.memref_params"
"""On a kernel the import made from memrefs: per memref parameter, its
pointer parameter's position then the memref's shape (-1 where dynamic), so
that a launch fills the size parameters from an array's shape."""
MEMREF_LAYOUTS_ATTR = "gpuc.memref_layouts"
"""On a kernel with strided memref parameters: per such parameter, its
pointer parameter's position and the memref's `strided<[...], offset: ...>`
layout, so that a launch fills the dynamic strides and offset from an
array's strides and checks the static ones."""


def only_loaded(pointer: SSAValue) -> bool:
    """Whether every use of `pointer` (and of pointers derived from it) loads."""
    work = [pointer]
    while work:
        value = work.pop()
        for use in value.uses:
            op = use.operation
            if isinstance(op, LoadOp) and op.ptr is value:
                continue
            if isinstance(op, OffsetOp) and op.ptr is value:
                work.append(op.result)
            elif isinstance(op, AddrSpaceCastOp):
                work.append(op.result)
            else:
                return False
    return True


def read_only_params(kernel: FuncOp) -> tuple[bool, ...]:
    """Per parameter: a pointer the kernel never writes through."""
    if kernel.is_declaration:
        return tuple(False for _ in kernel.function_type.inputs.data)
    return tuple(
        isinstance(arg.type, PtrType) and only_loaded(arg)
        for arg in kernel.body.blocks[0].args
    )


def only_summed_into(pointer: SSAValue) -> bool:
    """Whether `pointer` is used (itself or through `gpuc.offset` and
    `gpuc.addrspace_cast`) at least once, and only as the address of a
    `gpuc.regrouped` f32 or f64 atomic add whose old value nothing reads:
    the kernel only ever adds into its buffer, and in any grouping."""
    work, added = [pointer], False
    while work:
        value = work.pop()
        for use in value.uses:
            op = use.operation
            if isinstance(op, OffsetOp) and op.ptr is value:
                work.append(op.result)
            elif isinstance(op, AddrSpaceCastOp):
                work.append(op.result)
            elif (
                isinstance(op, AtomicRMWOp)
                and op.ptr is value
                and REGROUPED in op.attributes
                and op.kind.data == AtomicKind.ADD
                and isinstance(op.value.type, Float32Type | Float64Type)
                and not op.result.uses
            ):
                added = True
            else:
                return False
    return added


def summed_params(kernel: FuncOp) -> tuple[bool, ...]:
    """Per parameter: a pointer to global memory the kernel only adds into
    (`only_summed_into`). The native target sums each OS thread's adds into
    one in a copy of its own and adds the copies into the buffer after the
    launch (docs/native-abi.md, "Private sums")."""
    if kernel.is_declaration:
        return tuple(False for _ in kernel.function_type.inputs.data)
    return tuple(
        isinstance(arg.type, PtrType)
        and arg.type.address_space == AddressSpace.GLOBAL
        and only_summed_into(arg)
        for arg in kernel.body.blocks[0].args
    )


def memref_shapes(kernel: FuncOp) -> tuple[ArrayShape, ...]:
    """The import's record of `kernel`'s memref parameters: per parameter,
    its pointer position, the memref's dimensions (None where dynamic) and,
    for a strided layout, its strides and offset (None where dynamic)."""
    record = kernel.attributes.get(MEMREF_PARAMS_ATTR)
    if record is None:
        return ()
    from gpuc.runtime.launch_types import ArrayShape

    layouts: dict[int, StridedLayoutAttr] = {}
    for pair in getattr(kernel.attributes.get(MEMREF_LAYOUTS_ATTR), "data", ()):
        if isinstance(pair, ArrayAttr) and len(pair.data) == 2:
            position, layout = pair.data
            if isinstance(position, IntegerAttr) and isinstance(
                layout, StridedLayoutAttr
            ):
                layouts[position.value.data] = layout
    shapes: list[ArrayShape] = []
    for entry in getattr(record, "data", ()):
        if isinstance(entry, DenseArrayBase):
            position, *dims = (int(v) for v in entry.get_values())
            shape = ArrayShape(position, tuple(None if d < 0 else d for d in dims))
            if (layout := layouts.get(position)) is not None:
                shape = ArrayShape(
                    position,
                    shape.dims,
                    tuple(_static(s) for s in layout.strides),
                    _static(layout.offset),
                )
            shapes.append(shape)
    return tuple(shapes)


def _static(value: IntAttr | NoneAttr) -> int | None:
    return None if isinstance(value, NoneAttr) else value.data
