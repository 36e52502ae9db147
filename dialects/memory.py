"""Memory ops on `!gpuc.ptr<T, space>`: load, store, offset, shared allocation,
atomics and address-space casts.

Indexing is element-wise (like a GEP), so addresses never go through integers
and the address space survives to LLVM. An optional `[%i]` index is `index`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser, UnresolvedOperand
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
    parse_enum_keyword,
)
from gpuc.dialects.index import require_function_ancestor

INTEGER_ONLY_ATOMICS = {
    AtomicKind.AND,
    AtomicKind.OR,
    AtomicKind.XOR,
    AtomicKind.UMIN,
    AtomicKind.UMAX,
}
ATOMIC_SPACES = {AddressSpace.GLOBAL, AddressSpace.SHARED, AddressSpace.GENERIC}


def parse_ptr_type(parser: Parser) -> PtrType:
    pos = parser.pos
    ptr = parser.parse_type()
    if not isinstance(ptr, PtrType):
        parser.raise_error(f"expected a !gpuc.ptr type, got {ptr}", pos)
    return ptr


def parse_address(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand | None]:
    """`%p` or `%p[%i]`."""
    ptr = parser.parse_unresolved_operand()
    index = None
    if parser.parse_optional_punctuation("[") is not None:
        index = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
    return ptr, index


def resolve_address(
    parser: Parser,
    ptr: UnresolvedOperand,
    index: UnresolvedOperand | None,
    ptr_type: PtrType,
) -> tuple[SSAValue, SSAValue | None]:
    return (
        parser.resolve_operand(ptr, ptr_type),
        parser.resolve_operand(index, IndexType()) if index is not None else None,
    )


def print_address(printer: Printer, ptr: SSAValue, index: SSAValue | None) -> None:
    printer.print_operand(ptr)
    if index is not None:
        printer.print_string("[")
        printer.print_operand(index)
        printer.print_string("]")


def pointee(value: SSAValue) -> PtrType:
    assert isinstance(value.type, PtrType)
    return value.type


def optional_list(value: SSAValue | Operation | None) -> list[SSAValue | Operation]:
    return [value] if value is not None else []


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>`."""

    name = "gpuc.load"
    ptr = operand_def(PtrType)
    index = opt_operand_def(IndexType)
    result = result_def()
    traits = traits_def(MemoryReadEffect())

    def __init__(
        self, ptr: SSAValue | Operation, index: SSAValue | Operation | None = None
    ):
        ptr_type = SSAValue.get(ptr).type
        assert isinstance(ptr_type, PtrType)
        super().__init__(
            operands=[ptr, optional_list(index)], result_types=[ptr_type.element]
        )

    def verify_(self) -> None:
        element = pointee(self.ptr).element
        if self.result.type != element:
            raise VerifyException(
                f"loads {self.result.type} through {self.ptr.type}, whose element type "
                f"is {element}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        ptr, index = parse_address(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parse_ptr_type(parser)
        op = cls(*resolve_address(parser, ptr, index, ptr_type))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_address(printer, self.ptr, self.index)
        print_trailer(printer, self, self.ptr.type)


def print_trailer(printer: Printer, op: Operation, ptr_type: Attribute) -> None:
    if op.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(ptr_type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>`."""

    name = "gpuc.store"
    value = operand_def()
    ptr = operand_def(PtrType)
    index = opt_operand_def(IndexType)
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        value: SSAValue | Operation,
        ptr: SSAValue | Operation,
        index: SSAValue | Operation | None = None,
    ):
        super().__init__(operands=[value, ptr, optional_list(index)])

    def verify_(self) -> None:
        ptr_type = pointee(self.ptr)
        if self.value.type != ptr_type.element:
            raise VerifyException(
                f"stores {self.value.type} through {ptr_type}, whose element type is "
                f"{ptr_type.element}"
            )
        if ptr_type.address_space == AddressSpace.CONSTANT:
            raise VerifyException("cannot store through a pointer to constant memory")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        ptr, index = parse_address(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parse_ptr_type(parser)
        op = cls(
            parser.resolve_operand(value, ptr_type.element),
            *resolve_address(parser, ptr, index, ptr_type),
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        print_address(printer, self.ptr, self.index)
        print_trailer(printer, self, self.ptr.type)


@irdl_op_definition
class OffsetOp(IRDLOperation):
    """`%q = gpuc.offset %p[%i] : !gpuc.ptr<f32, global>`: `%p` plus `%i` elements."""

    name = "gpuc.offset"
    ptr = operand_def(PtrType)
    index = operand_def(IndexType)
    result = result_def(PtrType)
    traits = traits_def(Pure())

    def __init__(self, ptr: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[ptr, index], result_types=[SSAValue.get(ptr).type])

    def verify_(self) -> None:
        if self.result.type != self.ptr.type:
            raise VerifyException(
                f"result type {self.result.type} differs from the pointer's type "
                f"{self.ptr.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> OffsetOp:
        ptr, index = parse_address(parser)
        if index is None:
            parser.raise_error("gpuc.offset needs an element index: %p[%i]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parse_ptr_type(parser)
        resolved_ptr, resolved_index = resolve_address(parser, ptr, index, ptr_type)
        assert resolved_index is not None
        op = cls(resolved_ptr, resolved_index)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_address(printer, self.ptr, self.index)
        print_trailer(printer, self, self.ptr.type)


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """`%s = gpuc.shared_alloc 256 [align 16] : !gpuc.ptr<f32, shared>`.

    Static shared memory for `count` elements, one allocation per block; it
    lives as long as the kernel.
    """

    name = "gpuc.shared_alloc"
    count = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    result = result_def(PtrType)

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
        ptr_type = pointee(self.result)
        if ptr_type.address_space != AddressSpace.SHARED:
            raise VerifyException(
                f"allocates {ptr_type}; a shared allocation's pointer must be in the "
                "shared address space"
            )
        if self.count.value.data <= 0:
            raise VerifyException(
                f"allocates {self.count.value.data} elements; the count must be "
                "positive"
            )
        if self.alignment is not None:
            align = self.alignment.value.data
            if align <= 0 or align & (align - 1):
                raise VerifyException(
                    f"alignment {align} is not a positive power of two"
                )
        require_function_ancestor(self)

    @classmethod
    def parse(cls, parser: Parser) -> SharedAllocOp:
        count = _parse_i64(parser, "element count")
        alignment = None
        if parser.parse_optional_keyword("align") is not None:
            alignment = _parse_i64(parser, "alignment")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parse_ptr_type(parser)
        op = cls.create(
            result_types=[ptr_type],
            properties={
                "count": IntegerAttr(count, i64),
                **(
                    {"alignment": IntegerAttr(alignment, i64)}
                    if alignment is not None
                    else {}
                ),
            },
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.count.value.data}")
        if self.alignment is not None:
            printer.print_string(f" align {self.alignment.value.data}")
        print_trailer(printer, self, self.result.type)


def _parse_i64(parser: Parser, what: str) -> int:
    """An integer literal that fits a signed 64-bit property."""
    pos = parser.pos
    value = parser.parse_integer(allow_boolean=False, allow_negative=True)
    if not -(2**63) <= value < 2**63:
        parser.raise_error(
            f"{what} {value} does not fit in 64 bits (signed)", pos, parser.pos
        )
    return value


def check_atomic_pointer(ptr_type: PtrType) -> None:
    if ptr_type.address_space not in ATOMIC_SPACES:
        raise VerifyException(
            f"atomics need a global, shared or generic pointer, not {ptr_type}"
        )


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`%old = gpuc.atomic_rmw add %p[%i], %v [seq_cst] : !gpuc.ptr<i32, global>`.

    Returns the old value. Ordering defaults to `relaxed` (LLVM `monotonic`).
    """

    name = "gpuc.atomic_rmw"
    kind = prop_def(AtomicKindAttr)
    ordering = opt_prop_def(MemoryOrderAttr)
    ptr = operand_def(PtrType)
    index = opt_operand_def(IndexType)
    value = operand_def()
    result = result_def()

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
        ptr_type = pointee(self.ptr)
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

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        kind = parse_enum_keyword(parser, AtomicKind, "atomic operation")
        ptr, index = parse_address(parser)
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        ordering = None
        if word := parser.parse_optional_keyword_in([m.value for m in MemoryOrder]):
            ordering = MemoryOrder(word)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parse_ptr_type(parser)
        resolved_ptr, resolved_index = resolve_address(parser, ptr, index, ptr_type)
        op = cls(
            kind,
            resolved_ptr,
            parser.resolve_operand(value, ptr_type.element),
            resolved_index,
            ordering,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data.value} ")
        print_address(printer, self.ptr, self.index)
        printer.print_string(", ")
        printer.print_operand(self.value)
        if self.ordering is not None:
            printer.print_string(f" {self.ordering.data.value}")
        print_trailer(printer, self, self.ptr.type)


@irdl_op_definition
class AtomicCmpXchgOp(IRDLOperation):
    """`%old = gpuc.atomic_cmpxchg %p[%i], %expected, %new : !gpuc.ptr<i32, global>`.

    Stores `%new` if the element equals `%expected`; returns the old value.
    """

    name = "gpuc.atomic_cmpxchg"
    ordering = opt_prop_def(MemoryOrderAttr)
    ptr = operand_def(PtrType)
    index = opt_operand_def(IndexType)
    expected = operand_def()
    desired = operand_def()
    result = result_def()

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
        ptr_type = pointee(self.ptr)
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

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCmpXchgOp:
        ptr, index = parse_address(parser)
        parser.parse_punctuation(",")
        expected = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        desired = parser.parse_unresolved_operand()
        ordering = None
        if word := parser.parse_optional_keyword_in([m.value for m in MemoryOrder]):
            ordering = MemoryOrder(word)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parse_ptr_type(parser)
        resolved_ptr, resolved_index = resolve_address(parser, ptr, index, ptr_type)
        op = cls(
            resolved_ptr,
            parser.resolve_operand(expected, ptr_type.element),
            parser.resolve_operand(desired, ptr_type.element),
            resolved_index,
            ordering,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_address(printer, self.ptr, self.index)
        printer.print_string(", ")
        printer.print_operand(self.expected)
        printer.print_string(", ")
        printer.print_operand(self.desired)
        if self.ordering is not None:
            printer.print_string(f" {self.ordering.data.value}")
        print_trailer(printer, self, self.ptr.type)


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
        src, dst = pointee(self.source), pointee(self.result)
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
