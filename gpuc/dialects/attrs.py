"""Types and attributes of the gpuc dialect.

`!gpuc.ptr<T, space>` is a typed pointer that keeps its address space all the
way to LLVM; `!gpuc.funcptr<(..) -> ..>` is the type of a function address;
`#gpuc.job<...>` is the configuration of a deferred job; `#gpuc.target<...>`
the configured target (a module attribute every pass and the lowering read);
`#gpuc.finalized<...>` what finalize-kernels decided for one kernel.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import auto
from typing import TypeVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    NoneType,
    StringAttr,
    UnitAttr,
    i64,
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
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

ENTRYPOINTS_ATTR = "gpuc.entrypoints"
"""Module attribute: ArrayAttr of FlatSymbolRefAttr, the entrypoint set."""
TARGET_ATTR = "gpuc.target"
"""Module attribute: the configured target, a `TargetAttr`."""
FINALIZED_ATTR = "gpuc.finalized"
"""Kernel attribute: the finalization record, a `FinalizedAttr`."""


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

    def verify(self) -> None:
        element = self.element
        if isinstance(element, NoneType) or (
            isinstance(element, IntegerType) and element.width.data == 0
        ):
            raise VerifyException(
                f"!gpuc.ptr cannot point to {element}: it has no size in memory; "
                "point to a type that has one, such as i8"
            )

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


OptionValue = int | bool | str
_BARE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
"""A target name printed without quotes (anything else is a string literal)."""


def _option_attr(value: OptionValue) -> Attribute:
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    return StringAttr(value)


def _parse_option_value(parser: AttrParser) -> Attribute:
    if parser.parse_optional_keyword("true") is not None:
        return BoolAttr.from_bool(True)
    if parser.parse_optional_keyword("false") is not None:
        return BoolAttr.from_bool(False)
    text = parser.parse_optional_str_literal()
    if text is not None:
        return StringAttr(text)
    return IntegerAttr(parser.parse_integer(allow_boolean=False), i64)


def _print_option_value(printer: Printer, value: Attribute) -> None:
    if isinstance(value, IntegerAttr) and value.type == BoolAttr.from_bool(True).type:
        printer.print_string("true" if value.value.data else "false")
    elif isinstance(value, IntegerAttr):
        printer.print_string(str(value.value.data))
    elif isinstance(value, StringAttr):
        printer.print_string_literal(value.data)
    else:
        printer.print_attribute(value)


@dataclass(frozen=True)
class CompileSettings:
    """What a compile asks of every target besides the target's own options;
    `#gpuc.target` carries them (printed where they differ from these
    defaults), so every pass and the lowering read them from the module."""

    opt_level: int = 3
    """LLVM's optimization level, 0 to 3."""
    fp_contract: bool = True
    """Fuse a multiply and an add into an fma where the target may."""
    line_info: bool = False
    """Line tables from the ops' locations (`-g`); never changes the code."""
    checked: bool = False
    """Checked mode (targets that have one: native): every access is checked
    against its buffer's extent at run time (docs/runtime.md)."""

    def values(self) -> dict[str, OptionValue]:
        """The settings that differ from the defaults, by name."""
        default = CompileSettings()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }


SETTINGS = tuple(f.name for f in fields(CompileSettings))
"""The `#gpuc.target` keys that are compile settings, not target options."""


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """`#gpuc.target<ptx, sm = 90, opt_level = 2, line_info = true>`: the
    target a module is compiled for, with its options (integers,
    `true`/`false`, strings), as MLIR's GPU target attributes, and the
    compile's settings (`CompileSettings`: opt_level, fp_contract, line_info,
    checked), printed only where they differ from their defaults. Set once on
    the module (`attach-target`), read by every pass and by the lowering, so
    no stage can work for another target or configuration."""

    name = "gpuc.target"

    target: StringAttr
    options: DictionaryAttr

    def __init__(
        self,
        target: str,
        options: Mapping[str, OptionValue] | None = None,
        settings: CompileSettings | None = None,
    ):
        values = {**(options or {}), **(settings or CompileSettings()).values()}
        items = {k: _option_attr(v) for k, v in values.items()}
        super().__init__(StringAttr(target), DictionaryAttr(items))

    @property
    def target_name(self) -> str:
        return self.target.data

    def option_values(self) -> dict[str, OptionValue]:
        """The target's options as Python values (the settings left out)."""
        return {k: v for k, v in self._values().items() if k not in SETTINGS}

    @property
    def settings(self) -> CompileSettings:
        """The compile's settings (defaults where the attribute has none)."""
        given = {k: v for k, v in self._values().items() if k in SETTINGS}
        return CompileSettings(**given)  # type: ignore[arg-type]  # verified

    def with_settings(self, settings: CompileSettings) -> TargetAttr:
        """The same target and options with `settings`."""
        return TargetAttr(self.target_name, self.option_values(), settings)

    def _values(self) -> dict[str, OptionValue]:
        values: dict[str, OptionValue] = {}
        for key, attr in self.options.data.items():
            if isinstance(attr, IntegerAttr):
                bits = attr.type
                is_bool = bits == BoolAttr.from_bool(True).type
                values[key] = bool(attr.value.data) if is_bool else attr.value.data
            elif isinstance(attr, StringAttr):
                values[key] = attr.data
        return values

    def verify(self) -> None:
        values = self._values()
        level = values.get("opt_level", 3)
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 3:
            raise VerifyException(
                f"#gpuc.target opt_level = {level}: give 0, 1, 2 or 3"
            )
        for key in SETTINGS[1:]:
            if not isinstance(values.get(key, False), bool):
                raise VerifyException(
                    f"#gpuc.target {key} = {values[key]!r}: give true or false"
                )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        target = parser.parse_optional_identifier()
        if target is None:
            target = parser.parse_optional_str_literal()
        if target is None:
            parser.raise_error("expected a target name, e.g. #gpuc.target<ptx>")
        options: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            key = parser.parse_identifier(context_msg=" (a target option name)")
            if key in options:
                parser.raise_error(f"target option '{key}' given twice", pos)
            parser.parse_punctuation("=")
            options[key] = _parse_option_value(parser)
        parser.parse_punctuation(">")
        return (StringAttr(target), DictionaryAttr(options))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        if _BARE_NAME.fullmatch(self.target.data):
            printer.print_string(self.target.data)
        else:
            printer.print_string_literal(self.target.data)
        for key, value in self.options.data.items():
            printer.print_string(f", {key} = ")
            _print_option_value(printer, value)
        printer.print_string(">")


FINALIZED_FLAGS = ("state", "launch_entry", "barrier", "prints", "fragments")
"""The `#gpuc.finalized` fields that are flags, in their printed order (after
`cconv`; `errors` is printed between `launch_entry` and `barrier`)."""


def _parse_assert_messages(parser: AttrParser) -> DictionaryAttr:
    """`{1 = "message", 3 = "message"}`: assert ids and their messages."""
    entries: dict[str, Attribute] = {}

    def entry() -> None:
        pos = parser.pos
        id_ = parser.parse_integer(allow_boolean=False, allow_negative=False)
        if id_ < 1:
            parser.raise_error(
                f"assert id {id_} in #gpuc.finalized errors: ids start at 1", pos
            )
        if str(id_) in entries:
            parser.raise_error(
                f"assert {id_} given twice in #gpuc.finalized errors", pos
            )
        parser.parse_punctuation("=")
        entries[str(id_)] = StringAttr(parser.parse_str_literal())

    parser.parse_comma_separated_list(parser.Delimiter.BRACES, entry)
    return DictionaryAttr(entries)


_UNIT = UnitAttr()
_NONE = NoneAttr()
"""The flags of #gpuc.finalized, made once (attributes are immutable): a
record per kernel made five each."""


@irdl_attr_definition
class FinalizedAttr(ParametrizedAttribute):
    """`#gpuc.finalized<symbol = "k", cconv = "ptx_kernel", barrier, shared = 48>`:
    every decision the target took for one kernel of the entrypoint set, written
    by finalize-kernels and read by the lowering, the driver and the executors.

    - `symbol`: the name the kernel is launched by in the artefact (the PTX
      `.entry`, the SPIR-V entry point, the native launch entry);
    - `cconv`: its LLVM calling convention (absent: C);
    - `state`: it takes the target's hidden kernel-state pointer first (the
      native target's);
    - `launch_entry`: the target wraps it in a launch entry named `symbol`;
    - `errors = {id = "message", ...}`: it takes the error record first,
      through which its failing asserts are reported (ptx, spirv, amdgpu:
      gpuc/targets/error_record.py); the entries are the asserts it can
      report there, by their module-wide id (gpuc/asserts.py), each with the
      message the launch raises when the record names it;
    - `barrier`: it reaches a `gpuc.barrier` (maybe through helpers);
    - `prints`: it reaches a `gpuc.printf` or a `cf.assert` (whose failing
      threads print), maybe through helpers: its launch reads what it prints;
    - `fragments`: it uses warp matrix fragments, itself or by a call;
    - `shared`: its static shared memory in bytes;
    - `block`: the block size it is known to run with (x, y, z), if any.
    """

    name = "gpuc.finalized"

    symbol: StringAttr
    cconv: StringAttr
    state: UnitAttr | NoneAttr
    launch_entry: UnitAttr | NoneAttr
    barrier: UnitAttr | NoneAttr
    shared: IntAttr
    block: ArrayAttr[IntAttr] | NoneAttr
    errors: DictionaryAttr | NoneAttr
    prints: UnitAttr | NoneAttr
    fragments: UnitAttr | NoneAttr

    def __init__(
        self,
        symbol: str,
        *,
        cconv: str = "",
        state: bool = False,
        launch_entry: bool = False,
        barrier: bool = False,
        shared: int = 0,
        block: Sequence[int] | None = None,
        errors: Mapping[int, str] | None = None,
        prints: bool = False,
        fragments: bool = False,
    ):
        def flag(on: bool) -> UnitAttr | NoneAttr:
            return _UNIT if on else _NONE

        # The parameters set as ParametrizedAttribute's constructor sets them,
        # then this record's own checks: the definition's (each parameter's
        # class) hold by construction, and were a third of finalize-kernels
        # on 1,000 kernels. A record read from text is checked whole.
        parameters = (
            StringAttr(symbol),
            StringAttr(cconv),
            flag(state),
            flag(launch_entry),
            flag(barrier),
            IntAttr(shared),
            ArrayAttr([IntAttr(d) for d in block]) if block is not None else _NONE,
            DictionaryAttr({str(i): StringAttr(m) for i, m in errors.items()})
            if errors
            else _NONE,
            flag(prints),
            flag(fragments),
        )
        for (field, _), value in zip(_FINALIZED_PARAMETERS, parameters, strict=True):
            object.__setattr__(self, field, value)
        self.verify()

    def verify(self) -> None:
        if not self.symbol.data:
            raise VerifyException("#gpuc.finalized needs a non-empty symbol")
        if self.shared.data < 0:
            raise VerifyException(
                f"#gpuc.finalized shared = {self.shared.data}: a size in bytes "
                "cannot be negative"
            )
        block = self.block_size
        if block is not None and (len(block) != 3 or min(block) < 1):
            raise VerifyException(
                f"#gpuc.finalized block = {list(block)}: give x, y and z, each "
                "at least 1"
            )
        if isinstance(self.errors, DictionaryAttr):
            if not self.errors.data:
                raise VerifyException(
                    "#gpuc.finalized errors = {}: a kernel that takes the error "
                    "record reports at least one assert through it"
                )
            for key, message in self.errors.data.items():
                if not key.isdigit() or int(key) < 1:
                    raise VerifyException(
                        f"#gpuc.finalized errors: assert id {key!r} is not a "
                        "positive integer"
                    )
                if not isinstance(message, StringAttr):
                    raise VerifyException(
                        f"#gpuc.finalized errors: assert {key} needs a message string"
                    )
        if self.has_launch_entry and not self.takes_state:
            raise VerifyException(
                "#gpuc.finalized launch_entry without state: a launch entry "
                "passes the kernel its state"
            )

    @property
    def uses_barrier(self) -> bool:
        return isinstance(self.barrier, UnitAttr)

    @property
    def takes_state(self) -> bool:
        return isinstance(self.state, UnitAttr)

    @property
    def has_launch_entry(self) -> bool:
        return isinstance(self.launch_entry, UnitAttr)

    @property
    def takes_errors(self) -> bool:
        return isinstance(self.errors, DictionaryAttr)

    @property
    def assert_messages(self) -> tuple[tuple[int, str], ...]:
        """The asserts the kernel reports through its error record: (id,
        message) in id order; empty where it takes none."""
        if not isinstance(self.errors, DictionaryAttr):
            return ()
        entries = (
            (int(key), message.data)
            for key, message in self.errors.data.items()
            if isinstance(message, StringAttr)
        )
        return tuple(sorted(entries))

    @property
    def reaches_print(self) -> bool:
        return isinstance(self.prints, UnitAttr)

    @property
    def uses_fragments(self) -> bool:
        return isinstance(self.fragments, UnitAttr)

    @property
    def shared_bytes(self) -> int:
        return self.shared.data

    @property
    def block_size(self) -> tuple[int, ...] | None:
        if isinstance(self.block, ArrayAttr):
            return tuple(d.data for d in self.block.data)
        return None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        values: dict[str, Attribute] = {}
        first = True
        while first or parser.parse_optional_punctuation(",") is not None:
            first = False
            pos = parser.pos
            key = parser.parse_identifier(context_msg="finalization record field")
            if key in values:
                parser.raise_error(f"'{key}' given twice in #gpuc.finalized", pos)
            if key in ("symbol", "cconv"):
                parser.parse_punctuation("=")
                values[key] = StringAttr(parser.parse_str_literal())
            elif key == "shared":
                parser.parse_punctuation("=")
                values[key] = IntAttr(parser.parse_integer(allow_boolean=False))
            elif key == "block":
                parser.parse_punctuation("=")
                dims = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE,
                    lambda: IntAttr(parser.parse_integer(allow_boolean=False)),
                )
                values[key] = ArrayAttr(dims)
            elif key == "errors":
                parser.parse_punctuation("=")
                values[key] = _parse_assert_messages(parser)
            elif key in FINALIZED_FLAGS:
                values[key] = UnitAttr()
            else:
                parser.raise_error(
                    f"unknown field '{key}' in #gpuc.finalized; expected symbol, "
                    f"cconv, errors, {', '.join(FINALIZED_FLAGS)}, shared or block",
                    pos,
                )
        parser.parse_punctuation(">")
        if "symbol" not in values:
            parser.raise_error('#gpuc.finalized needs symbol = "..."')
        return (
            values["symbol"],
            values.get("cconv", StringAttr("")),
            values.get("state", NoneAttr()),
            values.get("launch_entry", NoneAttr()),
            values.get("barrier", NoneAttr()),
            values.get("shared", IntAttr(0)),
            values.get("block", NoneAttr()),
            values.get("errors", NoneAttr()),
            values.get("prints", NoneAttr()),
            values.get("fragments", NoneAttr()),
        )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<symbol = ")
        printer.print_string_literal(self.symbol.data)
        if self.cconv.data:
            printer.print_string(", cconv = ")
            printer.print_string_literal(self.cconv.data)
        for key in FINALIZED_FLAGS:
            if key == "barrier" and (messages := self.assert_messages):
                printer.print_string(", errors = {")
                for i, (id_, message) in enumerate(messages):
                    printer.print_string(f"{', ' if i else ''}{id_} = ")
                    printer.print_string_literal(message)
                printer.print_string("}")
            if isinstance(getattr(self, key), UnitAttr):
                printer.print_string(f", {key}")
        printer.print_string(f", shared = {self.shared.data}")
        if (block := self.block_size) is not None:
            printer.print_string(f", block = [{', '.join(map(str, block))}]")
        printer.print_string(">")


_FINALIZED_PARAMETERS = FinalizedAttr.get_irdl_definition().parameters
"""FinalizedAttr's parameters, in order (its constructor sets them)."""
