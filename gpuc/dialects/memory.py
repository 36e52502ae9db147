"""Memory ops on `!gpuc.ptr<T, space>`: load, store, offset, shared allocation,
atomics and address-space casts.

Indexing is element-wise (like a GEP), so addresses never go through integers
and the address space survives to LLVM. An optional `[%i]` index is `index`.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import TypeVar
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    i64,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    InferenceContext,
    IntConstraint,
    IRDLOperation,
    ParamAttrConstraint,
    VarConstraint,
    VerificationContext,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import (
    AddressSpace,
    AtomicKind,
    AtomicKindAttr,
    MemoryOrder,
    MemoryOrderAttr,
    PtrType,
)
from gpuc.dialects.index import require_function_ancestor
from gpuc.dialects.traits import ReadsKernelState

INTEGER_ONLY_ATOMICS = {
    AtomicKind.AND,
    AtomicKind.OR,
    AtomicKind.XOR,
    AtomicKind.UMIN,
    AtomicKind.UMAX,
}
ATOMIC_SPACES = {AddressSpace.GLOBAL, AddressSpace.SHARED, AddressSpace.GENERIC}

ELEMENT = VarConstraint("ELEMENT", AnyAttr())
POINTER = VarConstraint("POINTER", ParamAttrConstraint(PtrType, (ELEMENT, AnyAttr())))
"""A `!gpuc.ptr`: the custom syntax writes only its type and infers the others."""


@dataclass(frozen=True)
class InferredFrom(AttrConstraint[Attribute]):
    """Any type; the custom syntax leaves it out and takes `var`'s.

    Unlike a second use of `var` it checks nothing, so a mismatch is the op's
    `verify_` to report, in words that name the pointer.
    """

    var: VarConstraint[Attribute]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        pass

    def can_infer(self, var_constraint_names: Set[str]) -> bool:
        return self.var.name in var_constraint_names

    def infer(self, context: InferenceContext) -> Attribute:
        return self.var.infer(context)

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> InferredFrom:
        return self


def parse_ptr_type(parser: Parser) -> PtrType:
    pos = parser.pos
    ptr = parser.parse_type()
    if not isinstance(ptr, PtrType):
        parser.raise_error(f"expected a !gpuc.ptr type, got {ptr}", pos)
    return ptr


@irdl_custom_directive
class PointerType(CustomDirective):
    """The `!gpuc.ptr<T, space>` after the colon; another type is an error at the
    type (with plain `type(..)` it would be a constraint failure at the op)."""

    ptr: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.ptr.set(state, (parse_ptr_type(parser),))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        self.ptr.print(printer, state, op)


@irdl_custom_directive
class SignedInt64(CustomDirective):
    """A bare integer literal (`256`) for an i64 property, an error at the literal
    unless it fits in 64 bits (signed): the format's `IntegerAttr[I64]` variable
    would wrap 2**63..2**64-1 around to negative numbers."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        value = parser.parse_integer(allow_boolean=False, allow_negative=True)
        if not -(2**63) <= value < 2**63:
            parser.raise_error(
                f"{self.value.name} {value} does not fit in 64 bits (signed)",
                pos,
                parser.pos,
            )
        self.value.set(state, IntegerAttr(value, i64))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        attr = self.value.get(op)
        assert isinstance(attr, IntegerAttr)
        state.print_whitespace(printer)
        printer.print_int(attr.value.data)

    def is_present(self, op: IRDLOperation) -> bool:
        return self.value.is_present(op)

    def is_anchorable(self) -> bool:
        return True


@irdl_custom_directive
class Ordering(CustomDirective):
    """An atomic's memory order as a bare keyword, or nothing (relaxed): the
    format's `($ordering^)?` parses an enum attribute only when it is there."""

    ordering: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if (order := parser.parse_optional_str_enum(MemoryOrder)) is not None:
            self.ordering.set(state, MemoryOrderAttr(order))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        if isinstance(attr := self.ordering.get(op), MemoryOrderAttr):
            state.print_whitespace(printer)
            printer.print_string(attr.data.value)


def ptr_type_of(value: SSAValue) -> PtrType:
    """The type of `value`, a pointer."""
    assert isinstance(value.type, PtrType)
    return value.type


def optional_list(value: SSAValue | Operation | None) -> list[SSAValue | Operation]:
    return [value] if value is not None else []


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>`."""

    name = "gpuc.load"
    ptr = operand_def(POINTER)
    index = opt_operand_def(IndexType)
    result = result_def(InferredFrom(ELEMENT))
    traits = traits_def(MemoryReadEffect())
    custom_directives = (PointerType,)
    assembly_format = (
        "$ptr (`[` $index^ `]`)? attr-dict `:` custom<PointerType>(type($ptr))"
    )

    def __init__(
        self, ptr: SSAValue | Operation, index: SSAValue | Operation | None = None
    ):
        element = ptr_type_of(SSAValue.get(ptr)).element
        super().__init__(operands=[ptr, optional_list(index)], result_types=[element])

    def verify_(self) -> None:
        # The pointer and the result by position, not through the accessors'
        # search of the optional index's segment: every load verified runs
        # this (the definition's checks, run first, fixed the positions).
        ptr, result = self._operands[0]._type, self.results[0]._type  # noqa: SLF001
        assert isinstance(ptr, PtrType)
        element = ptr.element
        if result is not element and result != element:
            raise VerifyException(
                f"loads {result} through {ptr}, whose element type is {element}"
            )


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>`."""

    name = "gpuc.store"
    value = operand_def(InferredFrom(ELEMENT))
    ptr = operand_def(POINTER)
    index = opt_operand_def(IndexType)
    traits = traits_def(MemoryWriteEffect())
    custom_directives = (PointerType,)
    assembly_format = (
        "$value `,` $ptr (`[` $index^ `]`)? attr-dict `:` "
        "custom<PointerType>(type($ptr))"
    )

    def __init__(
        self,
        value: SSAValue | Operation,
        ptr: SSAValue | Operation,
        index: SSAValue | Operation | None = None,
    ):
        super().__init__(operands=[value, ptr, optional_list(index)])

    def verify_(self) -> None:
        # The value and the pointer by position (as LoadOp's).
        value, ptr_type = self._operands[0]._type, self._operands[1]._type  # noqa: SLF001
        assert isinstance(ptr_type, PtrType)
        if value is not ptr_type.element and value != ptr_type.element:
            raise VerifyException(
                f"stores {value} through {ptr_type}, whose element type is "
                f"{ptr_type.element}"
            )
        if ptr_type.address_space == AddressSpace.CONSTANT:
            raise VerifyException("cannot store through a pointer to constant memory")


@irdl_op_definition
class OffsetOp(IRDLOperation):
    """`%q = gpuc.offset %p[%i] : !gpuc.ptr<f32, global>`: `%p` plus `%i` elements."""

    name = "gpuc.offset"
    ptr = operand_def(POINTER)
    index = operand_def(IndexType)
    result = result_def(InferredFrom(POINTER))
    traits = traits_def(Pure())
    custom_directives = (PointerType,)
    assembly_format = (
        "$ptr `[` $index `]` attr-dict `:` custom<PointerType>(type($ptr))"
    )

    def __init__(self, ptr: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[ptr, index], result_types=[SSAValue.get(ptr).type])

    def verify_(self) -> None:
        if self.result.type != self.ptr.type:
            raise VerifyException(
                f"result type {self.result.type} differs from the pointer's type "
                f"{self.ptr.type}"
            )


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """`%s = gpuc.shared_alloc 256 [align 16] : !gpuc.ptr<f32, shared>`.

    Static shared memory for `count` elements, one allocation per block; it
    lives as long as the kernel.
    """

    name = "gpuc.shared_alloc"
    traits = traits_def(ReadsKernelState())
    count = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    result = result_def(PtrType)
    custom_directives = (SignedInt64, PointerType)
    assembly_format = (
        "custom<SignedInt64>($count) (`align` custom<SignedInt64>($alignment)^)? "
        "attr-dict `:` custom<PointerType>(type($result))"
    )

    def __init__(self, element: Attribute, count: int, alignment: int | None = None):
        super().__init__(
            result_types=[PtrType(element, AddressSpace.SHARED)],
            properties={
                "count": IntegerAttr(count, i64),
                "alignment": (
                    IntegerAttr(alignment, i64) if alignment is not None else None
                ),
            },
        )

    def verify_(self) -> None:
        ptr_type = ptr_type_of(self.result)
        count = self.count.value.data
        size = allocation_bytes(ptr_type, AddressSpace.SHARED, count)
        if size >= 2**63:
            raise VerifyException(
                f"allocates {count} elements of {ptr_type.element}, {size} bytes: "
                "more than a byte size in i64 holds (2**63 - 1); allocate fewer"
            )
        if self.alignment is not None:
            align = self.alignment.value.data
            if align <= 0 or align & (align - 1):
                raise VerifyException(
                    f"alignment {align} is not a positive power of two"
                )
        require_function_ancestor(self)


@irdl_op_definition
class PrivateAllocOp(IRDLOperation):
    """`%a = gpuc.private_alloc 16 : !gpuc.ptr<f32, local>`.

    An array of `count` elements of the thread's own (private) memory, one
    per call of the enclosing function however often the op runs; it lives
    until the function returns. Its contents start undefined.
    """

    SAME_IN_EVERY_THREAD: ClassVar[str] = "gpuc.same_in_every_thread"
    """A discardable unit attribute: every thread stores the same values in
    the array before reading it (the import's constant tables), so threads
    may share one array (native's work-group functions)."""

    name = "gpuc.private_alloc"
    count = prop_def(IntegerAttr)
    result = result_def(PtrType)
    custom_directives = (SignedInt64, PointerType)
    assembly_format = (
        "custom<SignedInt64>($count) attr-dict `:` custom<PointerType>(type($result))"
    )

    def __init__(self, element: Attribute, count: int):
        super().__init__(
            result_types=[PtrType(element, AddressSpace.LOCAL)],
            properties={"count": IntegerAttr(count, i64)},
        )

    def verify_(self) -> None:
        size = allocation_bytes(
            ptr_type_of(self.result), AddressSpace.LOCAL, self.count.value.data
        )
        if size >= 2**31:
            raise VerifyException(
                f"allocates {size} bytes of private memory; a thread's stack "
                "holds far less: allocate fewer elements"
            )
        require_function_ancestor(self)


def allocation_bytes(ptr_type: PtrType, space: AddressSpace, count: int) -> int:
    """The byte size of an allocation of `count` elements through `ptr_type`;
    raise unless the pointer is in `space`, the count positive and the
    element one with a memory size."""
    what = {AddressSpace.SHARED: "shared", AddressSpace.LOCAL: "private"}[space]
    if ptr_type.address_space != space:
        raise VerifyException(
            f"allocates {ptr_type}; a {what} allocation's pointer must be in the "
            f"{space.value} address space"
        )
    if count <= 0:
        raise VerifyException(f"allocates {count} elements; the count must be positive")
    from gpuc.dialects.analysis import element_bytes

    try:
        return count * element_bytes(ptr_type.element)
    except ValueError:
        raise VerifyException(
            f"allocates elements of {ptr_type.element}, a type with no memory "
            f"size; {what} arrays hold integers, index, f16, bf16, f32, f64, "
            "pointers and vectors of 2, 4, 8 or 16 of them"
        ) from None


def check_atomic_pointer(ptr_type: PtrType) -> None:
    if ptr_type.address_space not in ATOMIC_SPACES:
        raise VerifyException(
            f"atomics need a global, shared or generic pointer, not {ptr_type}"
        )


REGROUPED = "gpuc.regrouped"
"""A unit attribute on a float `gpuc.atomic_rmw add` whose adds may be grouped
in any way, not only in some order of the threads' adds: a block's sum that
gpuc makes itself (a derivative kernel's scalar adjoints,
gpuc/transforms/deferred_kernels.py). Where the target makes it a plain
read-modify-write (native's shared memory), the add is `reassoc`, so a
vectorized thread loop sums it in vector lanes."""


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`%old = gpuc.atomic_rmw add %p[%i], %v [seq_cst] : !gpuc.ptr<i32, global>`.

    Returns the old value. Ordering defaults to `relaxed` (LLVM `monotonic`).
    """

    name = "gpuc.atomic_rmw"
    kind = prop_def(AtomicKindAttr)
    ordering = opt_prop_def(MemoryOrderAttr)
    ptr = operand_def(POINTER)
    index = opt_operand_def(IndexType)
    value = operand_def(InferredFrom(ELEMENT))
    result = result_def(InferredFrom(ELEMENT))
    custom_directives = (Ordering, PointerType)
    assembly_format = (
        "$kind $ptr (`[` $index^ `]`)? `,` $value custom<Ordering>($ordering) "
        "attr-dict `:` custom<PointerType>(type($ptr))"
    )

    def __init__(
        self,
        kind: AtomicKind,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        index: SSAValue | Operation | None = None,
        ordering: MemoryOrder | None = None,
    ):
        super().__init__(
            operands=[ptr, optional_list(index), value],
            result_types=[SSAValue.get(value).type],
            properties={
                "kind": AtomicKindAttr(kind),
                "ordering": MemoryOrderAttr(ordering) if ordering else None,
            },
        )

    @property
    def memory_order(self) -> MemoryOrder:
        return self.ordering.data if self.ordering else MemoryOrder.RELAXED

    def verify_(self) -> None:
        ptr_type = ptr_type_of(self.ptr)
        check_atomic_pointer(ptr_type)
        element, kind = ptr_type.element, self.kind.data
        if self.value.type != element or self.result.type != element:
            raise VerifyException(
                f"operand and result must be {element}, the element type of {ptr_type}"
            )
        if isinstance(element, AnyFloat):
            if kind in INTEGER_ONLY_ATOMICS:
                raise VerifyException(
                    f"atomic '{kind.value}' needs an integer element type, "
                    f"not {element}"
                )
        elif not isinstance(element, IntegerType):
            raise VerifyException(f"atomics work on integers and floats, not {element}")


@irdl_op_definition
class AtomicCmpXchgOp(IRDLOperation):
    """`%old = gpuc.atomic_cmpxchg %p[%i], %expected, %new : !gpuc.ptr<i32, global>`.

    Stores `%new` if the element equals `%expected`; returns the old value.
    """

    name = "gpuc.atomic_cmpxchg"
    ordering = opt_prop_def(MemoryOrderAttr)
    ptr = operand_def(POINTER)
    index = opt_operand_def(IndexType)
    expected = operand_def(InferredFrom(ELEMENT))
    desired = operand_def(InferredFrom(ELEMENT))
    result = result_def(InferredFrom(ELEMENT))
    custom_directives = (Ordering, PointerType)
    assembly_format = (
        "$ptr (`[` $index^ `]`)? `,` $expected `,` $desired "
        "custom<Ordering>($ordering) attr-dict `:` custom<PointerType>(type($ptr))"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        expected: SSAValue | Operation,
        desired: SSAValue | Operation,
        index: SSAValue | Operation | None = None,
        ordering: MemoryOrder | None = None,
    ):
        super().__init__(
            operands=[ptr, optional_list(index), expected, desired],
            result_types=[SSAValue.get(expected).type],
            properties={"ordering": MemoryOrderAttr(ordering) if ordering else None},
        )

    @property
    def memory_order(self) -> MemoryOrder:
        return self.ordering.data if self.ordering else MemoryOrder.RELAXED

    def verify_(self) -> None:
        ptr_type = ptr_type_of(self.ptr)
        check_atomic_pointer(ptr_type)
        element = ptr_type.element
        if not isinstance(element, IntegerType):
            raise VerifyException(
                f"compare-exchange needs an integer element type, not {element} "
                "(bitcast floats to an integer of the same width)"
            )
        types = (self.expected.type, self.desired.type, self.result.type)
        if any(t != element for t in types):
            raise VerifyException(
                f"operands and result must be {element}, the element type of {ptr_type}"
            )


@irdl_op_definition
class AddrSpaceCastOp(IRDLOperation):
    """Change a pointer's address space, to or from generic.

    `%g = gpuc.addrspace_cast %p : !gpuc.ptr<f32, shared> to !gpuc.ptr<f32, generic>`
    """

    name = "gpuc.addrspace_cast"
    source = operand_def(PtrType)
    result = result_def(PtrType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue | Operation, space: AddressSpace):
        src = SSAValue.get(source).type
        assert isinstance(src, PtrType)
        super().__init__(operands=[source], result_types=[PtrType(src.element, space)])

    def verify_(self) -> None:
        src, dst = ptr_type_of(self.source), ptr_type_of(self.result)
        if src.element != dst.element:
            raise VerifyException(
                f"cannot change the element type ({src.element} to {dst.element}) "
                "in an "
                "address-space cast"
            )
        spaces = (src.address_space, dst.address_space)
        if spaces[0] == spaces[1]:
            raise VerifyException(f"casts {src} to its own address space")
        if AddressSpace.GENERIC not in spaces:
            raise VerifyException(
                f"cannot cast {src} to {dst} directly; cast to or from generic"
            )


def derived_from(ptr: SSAValue) -> SSAValue:
    """The pointer `ptr` is made from by `gpuc.offset` and
    `gpuc.addrspace_cast` (itself if neither makes it)."""
    while isinstance(ptr, OpResult):
        op = ptr.op
        if isinstance(op, OffsetOp):
            ptr = op.ptr
        elif isinstance(op, AddrSpaceCastOp):
            ptr = op.source
        else:
            break
    return ptr
