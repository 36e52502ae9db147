"""memref values as gpuc pointers, the bare-pointer convention of the `import` pass.

A memref (of any rank) becomes a `!gpuc.ptr<T, space>` plus one `index`
value per dynamic size, passed right after the pointer in dimension order.
With the identity layout the pointer is to the buffer's first element, and
element (i, j, k) sits at row-major offset `(i * d1 + j) * d2 + k`. With a
`strided<[s0, s1, s2], offset: o>` layout the pointer is to the view's first
element (the buffer's element `o`), element (i, j, k) sits at
`i * s0 + j * s1 + k * s2` from it, and one `index` value per dynamic stride,
then one for a dynamic offset, follow the sizes (views, memref_views.py).
docs/frontends.md is the contract.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap

from gpuc.dialects.attrs import (
    AddressSpace,
    AddressSpaceAttr,
    AtomicKind,
    FuncPtrType,
    PtrType,
)
from gpuc.dialects.foreign.gpu import GPUAddressSpace, GPUAddressSpaceAttr

SPACE_BY_KEYWORD = {
    GPUAddressSpace.GLOBAL: AddressSpace.GLOBAL,
    GPUAddressSpace.WORKGROUP: AddressSpace.SHARED,
    GPUAddressSpace.PRIVATE: AddressSpace.LOCAL,
}
# NVVM's and AMDGPU's numbers (they agree on these); 0 is MLIR's default space,
# which for a kernel's memref arguments means device (global) memory.
SPACE_BY_NUMBER = {
    0: AddressSpace.GLOBAL,
    1: AddressSpace.GLOBAL,
    3: AddressSpace.SHARED,
    4: AddressSpace.CONSTANT,
    5: AddressSpace.LOCAL,
}
SPACES_ACCEPTED = (
    "none, #gpu.address_space<global|workgroup|private>, 0/1 (global), "
    "3 (workgroup), 4 (constant), 5 (private), or one of gpuc's "
    "(#gpuc<space generic>, #gpuc<space shared>, ...)"
)

# MLIR 16's AtomicRMWKind numbers (`kind = N : i64`); mulf (9) and muli (10)
# have no atomic instruction on any gpuc target.
ATOMIC_KIND_BY_NUMBER = {
    0: AtomicKind.ADD,  # addf
    1: AtomicKind.ADD,  # addi
    2: AtomicKind.EXCHANGE,  # assign
    3: AtomicKind.MAX,  # maxf (maximumf after MLIR 17)
    4: AtomicKind.MAX,  # maxs
    5: AtomicKind.UMAX,  # maxu
    6: AtomicKind.MIN,  # minf (minimumf after MLIR 17)
    7: AtomicKind.MIN,  # mins
    8: AtomicKind.UMIN,  # minu
    11: AtomicKind.OR,  # ori
    12: AtomicKind.AND,  # andi
}
ATOMIC_KINDS_ACCEPTED = (
    "addf (0), addi (1), assign (2), maxf (3), maxs (4), maxu (5), minf (6), "
    "mins (7), minu (8), ori (11), andi (12)"
)
ATOMIC_FLOAT_KINDS = {0: "addf", 3: "maxf", 6: "minf"}
"""Kinds on float elements only, as MLIR's verifier has them."""
ATOMIC_INTEGER_KINDS = {
    1: "addi",
    4: "maxs",
    5: "maxu",
    7: "mins",
    8: "minu",
    11: "ori",
    12: "andi",
}
"""Kinds on integer elements only."""


def address_space(space: Attribute) -> AddressSpace | None:
    """gpuc's address space for a memref memory space, None when unknown."""
    if isinstance(space, NoneAttr):
        return AddressSpace.GLOBAL
    if isinstance(space, GPUAddressSpaceAttr):
        return SPACE_BY_KEYWORD[space.data]
    if isinstance(space, AddressSpaceAttr):
        return space.data
    if isinstance(space, IntegerAttr):
        return SPACE_BY_NUMBER.get(space.value.data)
    return None


def allocation_space(space: Attribute) -> AddressSpace | None:
    """Like `address_space`, but an allocation without a space is per-thread."""
    return AddressSpace.LOCAL if isinstance(space, NoneAttr) else address_space(space)


def _row_major_strides(shape: Sequence[int]) -> list[int] | None:
    """The identity layout's strides; None when a dynamic size (other than
    the outermost, which no stride depends on) leaves one unknown."""
    strides: list[int] = []
    step = 1
    for size in reversed(shape[1:]):
        strides.append(step)
        if size == DYNAMIC_INDEX:
            return None
        step *= size
    return [step, *strides[::-1]] if shape else []


def has_identity_layout(t: MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return True
    if isinstance(layout, AffineMapAttr):
        rank = t.get_num_dims()
        return layout.data == AffineMap.identity(rank)
    if isinstance(layout, StridedLayoutAttr):
        strides = _row_major_strides(t.get_shape())
        given = [
            s.data if not isinstance(s, NoneAttr) else None for s in layout.strides
        ]
        offset = layout.offset
        return strides == given and not isinstance(offset, NoneAttr) and not offset.data
    return False


def strided_layout(t: MemRefType) -> tuple[tuple[int | None, ...], int | None] | None:
    """The strides and offset of `t`'s layout (None where dynamic) when it is
    a `strided` one other than the identity; None for the identity."""
    layout = t.layout
    if not isinstance(layout, StridedLayoutAttr) or has_identity_layout(t):
        return None
    strides = tuple(None if isinstance(s, NoneAttr) else s.data for s in layout.strides)
    offset = layout.offset
    return strides, None if isinstance(offset, NoneAttr) else offset.data


def memref_problem(t: MemRefType) -> str | None:
    """Why the import cannot turn a value of type `t` into a pointer, if it cannot."""
    element = t.element_type
    if not isinstance(element, IntegerType | AnyFloat | IndexType):
        return (
            f"element type {element} is not supported (integers, index and floats are)"
        )
    if not has_identity_layout(t) and not isinstance(t.layout, StridedLayoutAttr):
        return (
            f"layout {t.layout} is not supported; the identity (row-major, "
            "offset 0) and strided<[...], offset: ...> layouts are"
        )
    if address_space(t.memory_space) is None:
        return f"memory space {t.memory_space} is not supported; use {SPACES_ACCEPTED}"
    return None


def pointer_type(t: MemRefType) -> PtrType:
    space = address_space(t.memory_space)
    assert space is not None, memref_problem(t)
    return PtrType(t.element_type, space)


def dynamic_dims(t: MemRefType) -> list[int]:
    return [d for d, size in enumerate(t.get_shape()) if size == DYNAMIC_INDEX]


def dynamic_layout_count(t: MemRefType) -> int:
    """How many `index` values pass `t`'s dynamic strides and offset."""
    layout = strided_layout(t)
    if layout is None:
        return 0
    strides, offset = layout
    return strides.count(None) + (offset is None)


def expand_type(t: Attribute) -> list[Attribute]:
    """The parameter types a value of type `t` is passed as (a function
    pointer's, or a function value's: the pointer to its function with
    memrefs expanded)."""
    if isinstance(t, FuncPtrType):
        return [FuncPtrType(expand_signature(t.signature))]
    if isinstance(t, FunctionType):  # func.constant's value
        return [FuncPtrType(expand_signature(t))]
    if not isinstance(t, MemRefType):
        return [t]
    extra = len(dynamic_dims(t)) + dynamic_layout_count(t)
    return [pointer_type(t), *(IndexType() for _ in range(extra))]


def expand_signature(signature: FunctionType) -> FunctionType:
    """`signature` as the import passes its values: each memref parameter as
    its pointer and dynamic sizes, strides and offset (function pointers'
    signatures too), a direct call's convention, which an indirect call of
    a function with memref parameters follows."""
    inputs = [e for t in signature.inputs.data for e in expand_type(t)]
    outputs = [e for t in signature.outputs.data for e in expand_type(t)]
    return FunctionType.from_lists(inputs, outputs)


def memref_params(
    inputs: Sequence[Attribute],
) -> tuple[ArrayAttr[DenseArrayBase], ArrayAttr[ArrayAttr[Attribute]] | None] | None:
    """A signature's `gpuc.memref_params` record (MEMREF_PARAMS_ATTR) and its
    `gpuc.memref_layouts` record (MEMREF_LAYOUTS_ATTR: the strided layout of
    each memref parameter that has one, by pointer position), None without
    memrefs."""
    records: list[DenseArrayBase] = []
    layouts: list[ArrayAttr[Attribute]] = []
    position = 0
    for t in inputs:
        if isinstance(t, MemRefType):
            shape = [-1 if d == DYNAMIC_INDEX else d for d in t.get_shape()]
            records.append(DenseArrayBase.from_list(i64, [position, *shape]))
            if strided_layout(t) is not None:
                layouts.append(ArrayAttr([IntegerAttr(position, i64), t.layout]))
        position += len(expand_type(t))
    if not records:
        return None
    return ArrayAttr(records), ArrayAttr(layouts) if layouts else None


def constant_index(value: SSAValue) -> int | None:
    """The integer `value` holds if an `arith.constant` defines it."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def view_sizes(
    t: MemRefType, dynamic: Sequence[SSAValue]
) -> tuple[int | SSAValue, ...]:
    """`t`'s sizes, its dynamic ones taken in order from `dynamic`."""
    values = iter(dynamic)
    return tuple(
        next(values) if size == DYNAMIC_INDEX else size for size in t.get_shape()
    )


def element_count(t: MemRefType) -> int:
    count = 1
    for size in t.get_shape():
        count *= size
    return count


CONSTANT_TABLE_LIMIT = 1024
"""The most elements of a constant memref.global the import copies into a
kernel's private memory."""


def constant_table(glob: memref.GlobalOp) -> list[int | float] | None:
    """The elements of a constant `memref.global` outside workgroup memory
    with a dense initial value of integers or floats and a static shape of at
    most CONSTANT_TABLE_LIMIT elements, in row-major order; None for any
    other global."""
    t = glob.type
    initial = glob.initial_value
    if (
        glob.constant is None
        or address_space(t.memory_space) == AddressSpace.SHARED
        or not isinstance(initial, DenseIntOrFPElementsAttr)
        or not isinstance(t.element_type, IntegerType | AnyFloat | IndexType)
        or DYNAMIC_INDEX in t.get_shape()
        or not has_identity_layout(t)
    ):
        return None
    count = element_count(t)
    if not 0 < count <= CONSTANT_TABLE_LIMIT:
        return None
    values: list[int | float] = list(initial.get_values())
    if len(values) == 1:
        values *= count  # a splat
    return values if len(values) == count else None
