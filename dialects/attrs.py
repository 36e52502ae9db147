"""Types and attributes of the gpuc dialect.

`!gpuc.ptr<T, space>` is a typed pointer that keeps its address space all the
way to LLVM; `!gpuc.funcptr<(..) -> ..>` is the type of a function address;
`#gpuc.job<...>` is the configuration of a deferred job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import auto
from typing import TypeVar

from xdsl.dialects.builtin import (
    DictionaryAttr,
    FunctionType,
    NoneAttr,
    StringAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    TypeAttribute,
)
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum

ENTRYPOINTS_ATTR = "gpuc.entrypoints"
"""Module attribute: ArrayAttr of FlatSymbolRefAttr, the entrypoint set."""
TARGET_ATTR = "gpuc.target"
"""Module attribute: StringAttr naming the target (ptx, spirv, native)."""
BARRIERS_ATTR = "gpuc.uses_barrier"
"""Function attribute (unit): the kernel reaches a barrier, maybe via helpers."""


class AddressSpace(StrEnum):
    """Where a pointer points; the target maps each to its own number."""

    GLOBAL = auto()
    SHARED = auto()
    LOCAL = auto()
    CONSTANT = auto()
    GENERIC = auto()


class Role(StrEnum):
    """What a function is: a `kernel` is launched by the host, a `helper` called."""

    KERNEL = auto()
    HELPER = auto()


class InlineHint(StrEnum):
    ALWAYS_INLINE = auto()
    NO_INLINE = auto()


class Dim(StrEnum):
    X = auto()
    Y = auto()
    Z = auto()


class AtomicKind(StrEnum):
    ADD = auto()
    MIN = auto()
    MAX = auto()
    UMIN = auto()
    UMAX = auto()
    EXCHANGE = auto()
    AND = auto()
    OR = auto()
    XOR = auto()


class MemoryOrder(StrEnum):
    RELAXED = auto()
    ACQUIRE = auto()
    RELEASE = auto()
    ACQ_REL = auto()
    SEQ_CST = auto()


@irdl_attr_definition
class AddressSpaceAttr(EnumAttribute[AddressSpace], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.space"


@irdl_attr_definition
class RoleAttr(EnumAttribute[Role], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.role"


@irdl_attr_definition
class InlineHintAttr(EnumAttribute[InlineHint], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.inline"


@irdl_attr_definition
class DimAttr(EnumAttribute[Dim], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.dim"


@irdl_attr_definition
class AtomicKindAttr(EnumAttribute[AtomicKind], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.atomic_kind"


@irdl_attr_definition
class MemoryOrderAttr(EnumAttribute[MemoryOrder], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.memory_order"


E = TypeVar("E", bound=StrEnum)


def parse_enum_keyword(parser: AttrParser, enum: type[E], what: str) -> E:
    """Parse one keyword of `enum`, naming the accepted spellings on failure."""
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in {e.value for e in enum}:
        accepted = ", ".join(e.value for e in enum)
        found = f"'{word}'" if word is not None else "nothing"
        parser.raise_error(f"unknown {what} {found}; expected one of: {accepted}", pos)
    return enum(word)


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """`!gpuc.ptr<f32, global>`: a pointer to `element` in address space `space`."""

    name = "gpuc.ptr"

    element: Attribute
    space: AddressSpaceAttr

    def __init__(self, element: Attribute, space: AddressSpace | AddressSpaceAttr):
        if isinstance(space, AddressSpace):
            space = AddressSpaceAttr(space)
        super().__init__(element, space)

    @property
    def address_space(self) -> AddressSpace:
        return self.space.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        element = parser.parse_type()
        parser.parse_punctuation(",")
        space = parse_enum_keyword(parser, AddressSpace, "address space")
        parser.parse_punctuation(">")
        return (element, AddressSpaceAttr(space))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element)
        printer.print_string(f", {self.space.data.value}>")


@irdl_attr_definition
class FuncPtrType(ParametrizedAttribute, TypeAttribute):
    """`!gpuc.funcptr<(f32) -> f32>`: the address of a function of that type."""

    name = "gpuc.funcptr"

    signature: FunctionType

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        signature = parser.parse_function_type()
        parser.parse_punctuation(">")
        return (signature,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.signature)
        printer.print_string(">")


@irdl_attr_definition
class JobAttr(ParametrizedAttribute):
    """`#gpuc.job<role[, inline hint][, generator = "name" {params}]>`.

    The configuration half of a job (the other half is its source symbol): two
    deferred ops with the same source and an equal `JobAttr` are one job.
    """

    name = "gpuc.job"

    role: RoleAttr
    inline: InlineHintAttr | NoneAttr
    generator: StringAttr | NoneAttr
    params: DictionaryAttr

    def __init__(
        self,
        role: Role,
        inline: InlineHint | None = None,
        generator: str | None = None,
        params: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            RoleAttr(role),
            InlineHintAttr(inline) if inline is not None else NoneAttr(),
            StringAttr(generator) if generator is not None else NoneAttr(),
            DictionaryAttr(dict(params or {})),
        )

    @property
    def job_role(self) -> Role:
        return self.role.data

    @property
    def inline_hint(self) -> InlineHint | None:
        return self.inline.data if isinstance(self.inline, InlineHintAttr) else None

    @property
    def generator_name(self) -> str | None:
        return self.generator.data if isinstance(self.generator, StringAttr) else None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        role = parse_enum_keyword(parser, Role, "job role")
        inline: Attribute = NoneAttr()
        generator: Attribute = NoneAttr()
        params = DictionaryAttr({})
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            if parser.parse_optional_keyword("generator") is not None:
                parser.parse_punctuation("=")
                generator = StringAttr(parser.parse_str_literal())
                params = DictionaryAttr(parser.parse_optional_dictionary_attr_dict())
                continue
            word = parser.parse_optional_identifier()
            if word in {h.value for h in InlineHint}:
                inline = InlineHintAttr(InlineHint(word))
                continue
            parser.raise_error(
                "expected 'always_inline', 'no_inline' or 'generator = \"name\"' "
                f"in #gpuc.job, found '{word}'",
                pos,
            )
        parser.parse_punctuation(">")
        return (RoleAttr(role), inline, generator, params)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.role.data.value}")
        if isinstance(self.inline, InlineHintAttr):
            printer.print_string(f", {self.inline.data.value}")
        if isinstance(self.generator, StringAttr):
            printer.print_string(", generator = ")
            printer.print_string_literal(self.generator.data)
            if self.params.data:
                printer.print_string(" ")
                printer.print_attr_dict(self.params.data)
        printer.print_string(">")
