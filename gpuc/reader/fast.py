"""A fast reader for the common part of gpuc's text: the custom syntax of
`gpuc.func` modules whose ops are the usual kernel ops (gpuc's functions,
calls, deferred calls, loads, stores and indices; arith; math; scf.if, scf.for
and scf.yield), read in one pass over the text.

xDSL's parser is general (every dialect's declarative format, generic ops,
aliases, forward references) and pays for it per token: on large modules it
reads about 100x slower than mlir-opt (#22). This reader lexes the whole text
with one regular expression and reads each op it knows by a small hand-written
rule, building the ops as xDSL's parser builds them (the same properties,
default properties included, the same result names, block arguments and
implicit terminators, and the same `file:line:col` locations as
`diagnostics.LocatingParser` gives). It reads types and attributes through
xDSL's own parser, once per distinct spelling.

It is a fast path, never a second language: on anything it does not know (an
op without a rule here, a generic op, a `loc(...)`, an attribute dictionary,
aliases, several blocks, a forward reference) or anything wrong (an undefined
value, a type that does not match), `read_module` returns None and xDSL's
parser reads the text from the start, so diagnostics and every less common
construct are exactly the full parser's. tests/test_reader.py checks that the
two build the same module (printed generically with locations) on every gpuc
module of examples/ and tests/.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import cache
from itertools import islice, repeat
from operator import itemgetter
from typing import Any, TypeVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    Region,
    SSAValue,
    SSAValues,
    Use,
)
from xdsl.irdl import IRDLOperation
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from gpuc.diagnostics import line_starts
from gpuc.dialects.attrs import (
    AddressSpace,
    AtomicKindAttr,
    DimAttr,
    InlineHintAttr,
    JobAttr,
    PtrType,
    RoleAttr,
)
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.symbols import symbol_ref
from gpuc.reader.locations import data_attribute, locate

_TOKEN = re.compile(
    r"""
    \s*+(?://[^\n]*\s*+)*+
    (?:
    (%[A-Za-z0-9_$.-]+
    |[(){}\[\]<>,:=]
    |[A-Za-z_][A-Za-z0-9_$.]*(?:<[^<>"]*(?<!-)>)?
    |[!#][A-Za-z_][A-Za-z0-9_$.]*(?:<[^<>"]*(?<!-)>)?
    |->
    |-?[0-9][0-9A-Za-z_.]*(?:[eE][-+][0-9]+)?
    |@[A-Za-z_$.][A-Za-z0-9_$.-]*
    |"(?:[^"\\\n]|\\.)*"
    |\^[A-Za-z0-9_$.-]+
    |$)
    |.
    )
    """,
    # ASCII white space only, as xDSL's lexer: a no-break space or a Unicode
    # line separator starts no token, so the parser reports it.
    re.VERBOSE | re.DOTALL | re.ASCII,
)
"""One token (group 1: a value, punctuation, a word, a dialect type or
attribute, with its `<...>` where that holds no `<`, `>` or string, as
`!gpuc.ptr<f32, global>`: a sixth fewer tokens in a kernel, and its type read
by one lookup; `->`, a number, a symbol, a string, a block label; the empty
text at the end) after any white space and comments, or a character that
starts none of them (group 1 None: the reader looks for a None token once,
not at each match). The alternatives start with different
characters, so their order (the most frequent first) changes no token."""
_TOKEN_TEXT = itemgetter(1)
_START = re.Match.start
"""A match's start, mapped over the matches with the group, 1 (half the
time of a methodcaller)."""
_BATCH = 2048
"""Matches made at a time (`_Reader`)."""
_KINDS = {
    "%": "value",
    "@": "symbol",
    "!": "dialect",
    "#": "dialect",
    "^": "label",
    '"': "string",
    "-": "number",
    "": "eof",
    **dict.fromkeys("0123456789", "number"),
    **dict.fromkeys(string.ascii_letters + "_", "word"),
}
"""A token's kind by its first character (`->` apart)."""
_TYPE_START = frozenset(string.ascii_letters + "_!")
"""The first characters of a type: a word or a `!dialect` type."""


def _kind(text: str) -> str:
    """value, symbol, dialect, label, string, number, word, arrow, punct or
    eof (the empty text)."""
    if text == "->":
        return "arrow"
    return _KINDS.get(text[:1], "punct")


_DECIMAL_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?")
_DECIMAL_INT = re.compile(r"-?[0-9]+")
_STRING_END = re.compile(r'(?:[^"\\\n]|\\.)*"')
_SIMPLE_ANGLES = re.compile(r'<[^<>"]*(?<!-)>')
"""A `<...>` holding no `<`, `>` or string: its end is its first `>` (the
scan in `_Reader._spelling` reads the others)."""
"""The rest of a string literal, through its closing quote."""
_DEFAULT_LABEL = re.compile(r"bb[0-9]+")
"""A block label xDSL keeps no name hint for."""
_VALUE_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")
"""What xDSL keeps as a value's name hint (not `%0`, `%12`)."""


class Decline(Exception):
    """The fast reader does not read this text: xDSL's parser does."""


class _Reader:
    def __init__(self, ctx: Context, text: str, file: str, line_offset: int) -> None:
        self.ctx = ctx
        self.text = text
        # One C-level pass over the matches for each list: a Python loop over
        # them took longer than the matching. By batches of matches: each
        # batch's freed before the next is made, so the memory of a few
        # thousand match objects is reused, never that of all (160 bytes a
        # token: 51 MB for 1,000 bench kernels, whose module takes 37 MB), and
        # the tokens are read a fifth faster.
        texts: list[str] = []
        starts: list[int] = []
        matches = _TOKEN.finditer(text)
        while batch := list(islice(matches, _BATCH)):
            texts += map(_TOKEN_TEXT, batch)
            starts += map(_START, batch, repeat(1))
        if None in texts:
            raise Decline  # a `^block`, `#0`, a stray character: the parser
        # The text ends with the empty token (perhaps twice: after trailing
        # white space, and at the very end).
        self.texts, self.starts = texts, starts
        self.i = 0
        self.file = StringAttr(file)
        self.line_offset = line_offset
        # The line starts, and one past the text's end (`locate`).
        self.line_starts = [*line_starts(text), len(text) + 1]
        self.located: list[Operation] = []
        self.offsets: list[int] = []
        """The ops read and the offsets of their names: their locations are
        made together at the end (`locate`)."""
        self.scope: dict[str, SSAValue] = {}
        self.types: dict[str, Attribute] = {}
        """Types by their spelling, each read by xDSL once."""
        self.attributes: dict[str, Attribute] = {}
        """Attributes by their spelling (`#...`: never a type's)."""
        self.signatures: dict[tuple[int | None, ...], FunctionType] = {}
        """Function types by their inputs' and outputs' identities."""
        self.op_types: dict[str, tuple[type[IRDLOperation], dict[str, Attribute]]] = {}
        self.constants: dict[tuple[str, Attribute], Attribute] = {}
        """`arith.constant`'s value by its literal and type, made once per
        read (attributes are immutable)."""
        """Op name -> its class and default properties, as `_make` met them."""

    # Tokens.

    def peek(self) -> str:
        return self.texts[self.i]

    def take(self) -> str:
        if not self.texts[self.i]:
            raise Decline  # the text ends early: the full parser says where
        text = self.texts[self.i]
        self.i += 1
        return text

    def expect(self, text: str) -> None:
        if self.texts[self.i] != text:
            raise Decline
        self.i += 1

    def optional(self, text: str) -> bool:
        if self.texts[self.i] == text:
            self.i += 1
            return True
        return False

    def kind(self) -> str:
        return _kind(self.texts[self.i])

    # Types and attributes: their text, read by xDSL once per spelling.

    def _spelling(self) -> str:
        """The text of the type or attribute at the cursor (through its
        balanced `<...>`), the cursor moved past it."""
        word = self.texts[self.i]
        if word[-1:] == ">":  # `!dialect<...>`, one token (`_TOKEN`)
            self.i += 1
            return word
        start = self.starts[self.i]
        word_end = start + len(word)
        text = self.text
        if text[word_end : word_end + 1] != "<":  # `f32`, `index`: the word
            self.i += 1
            return word
        if (simple := _SIMPLE_ANGLES.match(text, word_end)) is not None:
            end = simple.end()
            index = bisect_left(self.starts, end, self.i)
        else:
            depth, at = 0, word_end
            while True:
                if at >= len(text):
                    raise Decline
                char = text[at]
                if char == "<":
                    depth += 1
                elif char == ">" and text[at - 1] != "-":
                    depth -= 1
                    if depth == 0:
                        break
                elif char == '"':
                    closing = _STRING_END.match(text, at + 1)
                    if closing is None:
                        raise Decline
                    at = closing.end() - 1
                at += 1
            end = at + 1
            index = bisect_left(self.starts, end, self.i)
        self.i = index
        return text[start:end]

    def type(self) -> Attribute:
        texts, i = self.texts, self.i
        token = texts[i]
        # A type met before, whole in its token (`f32`, `!gpuc.ptr<f32,
        # global>`): one lookup. Not before a `<` (`vector<...>` where
        # `_TOKEN` could not take its angles in).
        if texts[i + 1] != "<":
            found = self.types.get(token)
            if found is not None:
                self.i = i + 1
                return found
        if token[:1] not in _TYPE_START:
            raise Decline
        spelling = self._spelling()
        found = self.types.get(spelling)
        if found is None:
            found = _parse(self.ctx, spelling, "type")
            self.types[spelling] = found
        return found

    def types_in_parens(self) -> list[Attribute]:
        self.expect("(")
        types: list[Attribute] = []
        if not self.optional(")"):
            types.append(self.type())
            while self.optional(","):
                types.append(self.type())
            self.expect(")")
        return types

    def attribute(self) -> Attribute:
        if self.texts[self.i][:1] != "#":
            raise Decline
        spelling = self._spelling()
        found = self.attributes.get(spelling)
        if found is None:
            found = _parse(self.ctx, spelling, "attribute")
            self.attributes[spelling] = found
        return found

    # Values.

    def operand(self, type: Attribute | None = None) -> SSAValue:
        if self.texts[self.i][:1] != "%":
            raise Decline
        value = self.scope.get(self.texts[self.i][1:])
        if value is None or (
            type is not None and value.type is not type and value.type != type
        ):
            raise Decline  # undefined, forward, or mistyped: the full parser
        self.i += 1
        return value

    def operands(self) -> list[SSAValue]:
        """`%a, %b` (perhaps none)."""
        if self.texts[self.i][:1] != "%":
            return []
        values = [self.operand()]
        while self.optional(","):
            values.append(self.operand())
        return values

    def define(self, name: str, value: SSAValue) -> None:
        if name in self.scope:
            raise Decline  # redefinition: the full parser says so
        self.scope[name] = value
        hint = _HINTS.get(name, "")
        if hint == "":
            # What the name_hint setter keeps of the name, once per name.
            hint = _HINTS[name] = (
                SSAValue.extract_valid_name(name)
                if _VALUE_NAME.fullmatch(name)
                else None
            )
        if hint is not None:
            value._name = hint  # noqa: SLF001  (the setter would strip it again)

    def symbol(self) -> SymbolRefAttr:
        if self.texts[self.i][:1] != "@":
            raise Decline
        return symbol_ref(self.take()[1:])

    # Ops and regions.

    def block_body(self, block: Block, end: str = "}") -> None:
        """Ops up to the region's `}` (not consumed), or to the end of the
        text (`end` the empty text: the top level of an implicit module)."""
        texts, starts = self.texts, self.starts
        located, offsets = self.located.append, self.offsets.append
        rules = _RULES
        while texts[self.i] != end:
            # The cursor in a local while the op's names are read. A name is
            # a value token, so it holds no `:` (`%x:2`, results in a group,
            # stops at `=`); the text ends with the empty token, so the token
            # after a `,` exists.
            i = self.i
            first = texts[i]
            names: list[str] | None = None
            if first[:1] == "%":
                names = [first[1:]]
                i += 1
                while texts[i] == ",":
                    if texts[i + 1][:1] != "%":
                        raise Decline
                    names.append(texts[i + 1][1:])
                    i += 2
                if texts[i] != "=":
                    raise Decline
                i += 1
                first = texts[i]
            rule = rules.get(first)  # an op's name: its rules' words only
            if rule is None:
                raise Decline
            at = starts[i]
            self.i = i + 1
            op = rule(self)
            results = op.results
            if names is None:
                if results:
                    raise Decline
            elif len(results) != len(names):
                raise Decline
            else:
                for name, result in zip(names, results, strict=True):
                    self.define(name, result)
            located(op)
            offsets(at)
            _append(block, op)

    def region(self, arguments: Sequence[tuple[str, Attribute]] = ()) -> Region:
        """`{ ops }`: one block, its arguments named by `arguments` or by the
        block's label (`^bb0(%a: T):`, where no `arguments` are given)."""
        self.expect("{")
        outer = self.scope
        self.scope = dict(outer)
        label = None
        if not arguments and self.texts[self.i][:1] == "^":
            label = self.take()[1:]
            arguments = self.block_arguments()
        block = _block([type for _, type in arguments])
        if label is not None and not _DEFAULT_LABEL.fullmatch(label):
            block.name_hint = label
        for (name, _), arg in zip(arguments, block.args, strict=True):
            self.define(name, arg)
        self.block_body(block)
        self.expect("}")
        self.scope = outer
        if arguments or block._first_op is not None or label is not None:  # noqa: SLF001
            return _region(block)
        return _region(None)

    def block_arguments(self) -> list[tuple[str, Attribute]]:
        """A label's `(%a: T, ...)` (perhaps none) and its `:`."""
        arguments = self.named_values() if self.peek() == "(" else []
        self.expect(":")
        return arguments

    def named_values(self) -> list[tuple[str, Attribute]]:
        """`(%a: T, ...)`, perhaps empty: names and types. The tokens read
        from the list, not by the cursor's methods: every function's
        parameters are read here."""
        texts = self.texts
        self.expect("(")
        named: list[tuple[str, Attribute]] = []
        if texts[self.i] == ")":
            self.i += 1
            return named
        while True:
            i = self.i
            token = texts[i]
            if token[:1] != "%":
                raise Decline  # bare types (a declaration): the full parser
            if texts[i + 1] != ":":
                raise Decline
            self.i = i + 2
            named.append((token[1:], self.type()))
            separator = texts[self.i]
            self.i += 1
            if separator == ")":
                return named
            if separator != ",":
                raise Decline

    def module(self) -> ModuleOp:
        at = self.starts[self.i]
        if self.peek() in ("builtin.module", "module"):
            self.take()
            if self.peek() != "{":
                raise Decline  # a name, attributes: the full parser
            region = self.region()
            module = ModuleOp(Region(_take_block(region)))
        else:
            block = Block()
            self.block_body_top(block)
            module = ModuleOp(Region(block))
        if self.kind() != "eof":
            raise Decline
        self.located.append(module)
        self.offsets.append(at)
        locate(
            self.located, self.offsets, self.line_starts, self.file, self.line_offset
        )
        return module

    def block_body_top(self, block: Block) -> None:
        """Ops at the top level of a text without `builtin.module`."""
        self.block_body(block, end="")
        if len(block.ops) == 1 and isinstance(block.first_op, ModuleOp):
            raise Decline  # a lone module written as `"builtin.module"`: rare


_HINTS: dict[str, str | None] = {}
"""A value's name -> the name hint xDSL keeps of it (None: none), or ""
where not met yet."""
_I64S: dict[int, IntegerAttr] = {}
_I1 = IntegerType(1)
_INDEX = IndexType()
"""The types the rules make themselves, made once: attributes are immutable,
and the verifier checks an op shape once per distinct type object
(gpuc.verifier)."""


_EnumT = TypeVar("_EnumT", RoleAttr, InlineHintAttr, DimAttr, AtomicKindAttr)


@cache
def _enum_attributes(cls: type[_EnumT]) -> dict[str, _EnumT]:
    """The attribute of each word of an enum attribute (`kernel` ->
    RoleAttr(Role.KERNEL)), made once: the enum's call by value and the
    attribute's constructor took 2-3 us an op (a dimension, a role)."""
    return {member.value: cls(cast(Any, member)) for member in cls.enum_type}


_STRINGS: dict[str, StringAttr] = {}


def _string(text: str) -> StringAttr:
    """StringAttr(text), made once per text (for the few texts that repeat)."""
    found = _STRINGS.get(text)
    if found is None:
        found = _STRINGS[text] = StringAttr(text)
    return found


def _i64(value: int) -> IntegerAttr:
    """IntegerAttr(value, 64), made once per value."""
    found = _I64S.get(value)
    if found is None:
        found = _I64S[value] = IntegerAttr(value, 64)
    return found


def _append(block: Block, op: Operation) -> None:
    """`block.add_op(op)` for an op just made, so in no block (and no
    ancestor of `block`): the links set without add_op's checks."""
    op.parent = block
    last = block._last_op  # noqa: SLF001
    if last is None:
        block._first_op = op  # noqa: SLF001
    else:
        last._next_op = op  # noqa: SLF001
        op._prev_op = last  # noqa: SLF001
    block._last_op = op  # noqa: SLF001


def _block(arg_types: Sequence[Attribute]) -> Block:
    """`Block(arg_types=arg_types)`, made field by field as its constructor
    makes it (tests/test_reader.py compares them), without the generic
    steps: adding no ops, each argument's dataclass constructor and its
    location's default factory. A block per function and per `scf.if`
    branch: 3.5 -> 1.3 us for three arguments."""
    block = Block.__new__(Block)
    block._args = tuple(  # noqa: SLF001
        map(_block_argument, arg_types, repeat(block), range(len(arg_types)))
    )
    block._first_op = None  # noqa: SLF001
    block._last_op = None  # noqa: SLF001
    return block


def _block_argument(type: Attribute, block: Block, index: int) -> BlockArgument:
    """`BlockArgument(type, block, index)`, field by field."""
    argument = BlockArgument.__new__(BlockArgument)
    argument._type = type  # noqa: SLF001
    argument.block = block
    argument.index = index
    argument.location = UNKNOWN_LOC
    return argument


def _region(block: Block | None) -> Region:
    """`Region(block)` (or `Region()` for None) for a block just made, so in
    no region: the links set without `add_block`'s checks and iterator."""
    region = Region.__new__(Region)
    if block is not None:
        region._first_block = region._last_block = block  # noqa: SLF001
        block.parent = region
    return region


def _take_block(region: Region) -> Block:
    block = region.blocks.first
    if block is None:
        return Block()
    region.detach_block(block)
    return block


@cache
def _defaults(op_type: type[IRDLOperation]) -> dict[str, Attribute]:
    """The properties xDSL's builder fills in when a parse leaves them out."""
    definition = op_type.get_irdl_definition()
    return {
        name: prop.default_value
        for name, prop in definition.properties.items()
        if prop.default_value is not None
    }


def _parse(ctx: Context, spelling: str, what: str) -> Attribute:
    """The type (`what` "type") or attribute ("attribute") `spelling` is, read
    by xDSL's parser; Decline where it is not one."""
    from xdsl.parser import Parser

    parser = Parser(ctx, spelling)
    try:
        found = parser.parse_type() if what == "type" else parser.parse_attribute()
    except Exception as e:
        raise Decline from e
    if parser.pos != len(spelling):
        raise Decline
    return found


def _make(
    r: _Reader,
    name: str,
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
) -> Operation:
    known = r.op_types.get(name)
    if known is None:
        op_type = r.ctx.get_optional_op(name)
        if op_type is None or not issubclass(op_type, IRDLOperation):
            raise Decline
        known = r.op_types[name] = (op_type, _defaults(op_type))
    op_type, defaults = known
    if defaults:
        props = dict(defaults)
        if properties:
            props.update(properties)
    else:
        props = properties or {}
    return build_op(op_type, operands, result_types, props, regions)


def build_op(
    op_type: type[IRDLOperation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
    regions: Sequence[Region] = (),
) -> Operation:
    """`op_type.create(...)` with these operands, results, properties (the
    default ones already in: `properties` becomes the op's) and regions,
    made as `Operation.__init__` makes it, field by field, without its
    generic steps: replacing the uses of operands the op does not have yet,
    copying sequences it is given fresh, and IRDLOperation's search for
    default properties and attributes (the rules' classes have no default
    attributes and none overrides `__post_init__`; `_plain` checks, and
    tests/test_reader.py compares every field with `create`'s)."""
    if not _plain(op_type):
        return op_type.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            regions=regions,
        )
    op = op_type.__new__(op_type)
    # One or two operands and one result, the most frequent, without a map
    # (its iterators cost more than the uses and the result: 2.5 -> 1.9 us
    # an arith.addf).
    count = len(operands)
    if count == 2:
        op._operand_uses = (_use(operands[0], op, 0), _use(operands[1], op, 1))
        op._operands = SSAValues(operands)
    elif count == 1:
        op._operand_uses = (_use(operands[0], op, 0),)
        op._operands = SSAValues(operands)
    elif count:
        op._operand_uses = tuple(map(_use, operands, repeat(op), range(count)))
        op._operands = SSAValues(operands)
    else:
        op._operands = _NO_VALUES
        op._operand_uses = ()
    count = len(result_types)
    if count == 1:
        op.results = SSAValues((OpResult(result_types[0], op, 0),))
    elif count:
        op.results = SSAValues(map(OpResult, result_types, repeat(op), range(count)))
    else:
        op.results = _NO_VALUES
    op.properties = properties
    op.attributes = {}
    op.location = UNKNOWN_LOC
    op._successors = ()
    op._successor_uses = ()
    # `add_region` of each: the rules' regions are fresh, in no op.
    op.regions = tuple(regions)
    for region in regions:
        region.parent = op
    return op


_NO_VALUES: SSAValues[Any] = SSAValues()


def _use(value: SSAValue, op: Operation, index: int) -> Use:
    """`Use(op, index)` added to `value`'s uses as `value.add_use` adds it
    (first in the list), each field set once: 1.2 -> 0.8 us an op of two
    operands (timeit)."""
    use = Use.__new__(Use)
    use._operation = op  # noqa: SLF001
    use._index = index  # noqa: SLF001
    use._prev_use = None  # noqa: SLF001
    use._next_use = first = value.first_use  # noqa: SLF001
    if first is not None:
        first._prev_use = use  # noqa: SLF001
    value.first_use = use
    return use


@cache
def _plain(op_type: type[IRDLOperation]) -> bool:
    """Whether `create` makes an op of `op_type` as `build_op` does: no default
    attributes to fill in, no `__post_init__` of its own."""
    return op_type.__post_init__ is IRDLOperation.__post_init__ and all(
        attribute.default_value is None
        for attribute in op_type.get_irdl_definition().attributes.values()
    )


# The rules: each reads what follows its op's name.

Rule = Callable[[_Reader], Operation]


def _no_attributes(r: _Reader) -> None:
    if r.peek() == "{" or r.peek() == "loc":
        raise Decline


def _one_type(r: _Reader, *values: SSAValue) -> Attribute:
    """The `: T` after an op's operands (no attributes before it), which every
    one of `values` has."""
    _no_attributes(r)
    r.expect(":")
    type = r.type()
    for value in values:
        if value._type is not type and value._type != type:  # noqa: SLF001
            raise Decline  # mistyped: the full parser says where
    return type


def _binary(name: str) -> Rule:
    def rule(r: _Reader) -> Operation:
        lhs = r.operand()
        r.expect(",")
        rhs = r.operand()
        type = _one_type(r, lhs, rhs)
        return _make(r, name, (lhs, rhs), (type,))

    return rule


def _unary(name: str) -> Rule:
    def rule(r: _Reader) -> Operation:
        value = r.operand()
        return _make(r, name, (value,), (_one_type(r, value),))

    return rule


def _cast(name: str) -> Rule:
    def rule(r: _Reader) -> Operation:
        value = r.operand()
        _one_type(r, value)
        r.expect("to")
        return _make(r, name, (value,), (r.type(),))

    return rule


def _compare(name: str, predicates: Sequence[str]) -> Rule:
    index = {p: i for i, p in enumerate(predicates)}

    def rule(r: _Reader) -> Operation:
        predicate = index.get(r.take())
        if predicate is None:
            raise Decline
        r.expect(",")
        lhs = r.operand()
        r.expect(",")
        rhs = r.operand()
        type = _one_type(r, lhs, rhs)
        props: dict[str, Attribute] = {"predicate": _i64(predicate)}
        return _make(r, name, (lhs, rhs), (_result_i1(type),), props)

    return rule


def _result_i1(type: Attribute) -> Attribute:
    if isinstance(type, (IntegerType, IndexType, *_FLOATS)):
        return _I1
    raise Decline  # vectors and tensors of i1: the full parser


def _constant(r: _Reader) -> Operation:
    _no_attributes(r)
    word = r.take()
    if word in ("true", "false"):
        if r.peek() == ":":
            raise Decline
        value: Attribute = IntegerAttr(1 if word == "true" else 0, _I1)
        return _make(r, "arith.constant", (), (_I1,), {"value": value})
    if _kind(word) != "number":
        raise Decline
    r.expect(":")
    type = r.type()
    found = r.constants.get((word, type))
    if found is not None:
        value = found
    else:
        try:
            if isinstance(type, IntegerType | IndexType) and _DECIMAL_INT.fullmatch(
                word
            ):
                value = IntegerAttr(int(word), type)
            elif isinstance(type, _FLOATS) and _DECIMAL_FLOAT.fullmatch(word):
                value = FloatAttr(float(word), type)
            else:
                raise Decline  # hex floats, dense constants: the full parser
        except VerifyException:
            raise Decline from None  # out of its type's range: the parser says where
        r.constants[word, type] = value
    return _make(r, "arith.constant", (), (type,), {"value": value})


_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def _select(r: _Reader) -> Operation:
    cond = r.operand(_I1)
    r.expect(",")
    lhs = r.operand()
    r.expect(",")
    rhs = r.operand()
    return _make(r, "arith.select", (cond, lhs, rhs), (_one_type(r, lhs, rhs),))


def _region_with_yield(r: _Reader) -> Region:
    region = r.region()
    block = region.blocks.last
    if block is None:
        block = Block()
        region.add_block(block)
    last = block.last_op
    if last is None or not last.has_trait(IsTerminator):
        block.add_op(_make(r, "scf.yield"))
    return region


def _scf_if(r: _Reader) -> Operation:
    cond = r.operand(_I1)
    results: list[Attribute] = []
    if r.optional("->"):
        results = r.types_in_parens()
    then = _region_with_yield(r)
    otherwise = _region_with_yield(r) if r.optional("else") else _region(None)
    _no_attributes(r)
    return _make(r, "scf.if", (cond,), results, regions=(then, otherwise))


def _scf_for(r: _Reader) -> Operation:
    if r.kind() != "value":
        raise Decline
    induction = r.take()[1:]
    r.expect("=")
    lower = r.operand()
    r.expect("to")
    upper = r.operand()
    r.expect("step")
    step = r.operand()
    if r.peek() in ("iter_args", ":"):
        raise Decline  # loop-carried values, other index types: the full parser
    if not (lower.type == upper.type == step.type == _INDEX):
        raise Decline
    body = r.region([(induction, _INDEX)])
    _no_attributes(r)
    block = body.blocks.first
    assert block is not None
    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
        block.add_op(_make(r, "scf.yield"))
    return _make(r, "scf.for", (lower, upper, step), (), regions=(body,))


def _scf_while(r: _Reader) -> Operation:
    r.expect("(")
    names: list[str] = []
    inits: list[SSAValue] = []
    if not r.optional(")"):
        while True:
            if r.kind() != "value":
                raise Decline
            names.append(r.take()[1:])
            r.expect("=")
            inits.append(r.operand())
            if r.optional(")"):
                break
            r.expect(",")
    r.expect(":")
    inputs = r.types_in_parens()
    r.expect("->")
    outputs = r.types_in_parens() if r.peek() == "(" else [r.type()]
    if inputs != [v.type for v in inits]:
        raise Decline
    before = r.region(list(zip(names, inputs, strict=True)))
    r.expect("do")
    after = r.region()
    _no_attributes(r)
    return _make(r, "scf.while", inits, outputs, regions=(before, after))


def _scf_condition(r: _Reader) -> Operation:
    r.expect("(")
    condition = r.operand(_I1)
    r.expect(")")
    return _make(r, "scf.condition", (condition, *_typed_operands(r)))


def _scf_yield(r: _Reader) -> Operation:
    values = r.operands()
    _no_attributes(r)
    if values:
        r.expect(":")
        for value in values:
            if r.type() != value.type:
                raise Decline
            if value is not values[-1]:
                r.expect(",")
    return _make(r, "scf.yield", values)


def _gpuc_func(r: _Reader) -> Operation:
    # The header's tokens read from the list, not by the cursor's methods (a
    # dozen calls a function).
    texts = r.texts
    token = texts[r.i]
    visibility = None
    if token in ("private", "public", "nested"):
        visibility = token
        r.i += 1
        token = texts[r.i]
    if token[:1] != "@":
        raise Decline
    r.i += 1
    params = r.named_values()
    outputs: list[Attribute] = []
    if texts[r.i] == "->":
        r.i += 1
        outputs = r.types_in_parens() if texts[r.i] == "(" else [r.type()]
    role = _enum_attributes(RoleAttr).get(texts[r.i])
    if role is None:
        raise Decline
    r.i += 1
    inline = _enum_attributes(InlineHintAttr).get(texts[r.i])
    if inline is not None:
        r.i += 1
    if texts[r.i] != "{":
        raise Decline  # declarations and attributes: the full parser
    body = r.region(params)
    inputs = [t for _, t in params]
    signature = (*map(id, inputs), None, *map(id, outputs))
    function_type = r.signatures.get(signature)
    if function_type is None:
        function_type = FunctionType.from_lists(inputs, outputs)
        r.signatures[signature] = function_type
    # What FuncOp's constructor makes, its attributes made once per value.
    props: dict[str, Attribute] = {
        "sym_name": data_attribute(StringAttr, token[1:]),
        "function_type": function_type,
    }
    if visibility:
        props["sym_visibility"] = _string(visibility)
    props["role"] = role
    if inline is not None:
        props["inline"] = inline
    return build_op(FuncOp, (), (), props, (body,))


def _gpuc_return(r: _Reader) -> Operation:
    return _make(r, "gpuc.return", _typed_operands(r))


def _typed_operands(r: _Reader) -> list[SSAValue]:
    """`%a, %b : T, U` (or nothing), the types checked."""
    _no_attributes(r)
    values = r.operands()
    if values:
        r.expect(":")
        for n, value in enumerate(values):
            if n:
                r.expect(",")
            if r.type() != value.type:
                raise Decline
    return values


def _call_types(
    r: _Reader, arguments: Sequence[SSAValue]
) -> tuple[list[Attribute], list[Attribute]]:
    r.expect(":")
    inputs = r.types_in_parens()
    r.expect("->")
    outputs = r.types_in_parens() if r.peek() == "(" else [r.type()]
    if inputs != [a.type for a in arguments]:
        raise Decline
    return inputs, outputs


def _gpuc_call(r: _Reader) -> Operation:
    callee = r.symbol()
    r.expect("(")
    arguments = r.operands()
    r.expect(")")
    _no_attributes(r)
    _, outputs = _call_types(r, arguments)
    return _make(r, "gpuc.call", arguments, outputs, {"callee": callee})


def _gpuc_deferred_call(r: _Reader) -> Operation:
    source = r.symbol()
    r.expect("(")
    arguments = r.operands()
    r.expect(")")
    job = r.attribute()
    if not isinstance(job, JobAttr):
        raise Decline
    _no_attributes(r)
    _, outputs = _call_types(r, arguments)
    props: dict[str, Attribute] = {"source": source, "job": job}
    return _make(r, "gpuc.deferred_call", arguments, outputs, props)


def _pointer_access(r: _Reader) -> tuple[SSAValue, list[SSAValue], Attribute]:
    pointer = r.operand()
    index: list[SSAValue] = []
    if r.optional("["):
        index = [r.operand(_INDEX)]
        r.expect("]")
    _no_attributes(r)
    r.expect(":")
    type = r.type()
    if not isinstance(type, PtrType) or (
        pointer.type is not type and pointer.type != type
    ):
        raise Decline
    return pointer, index, type.element


def _gpuc_load(r: _Reader) -> Operation:
    pointer, index, element = _pointer_access(r)
    return _make(r, "gpuc.load", (pointer, *index), (element,))


def _gpuc_offset(r: _Reader) -> Operation:
    pointer, index, _ = _pointer_access(r)
    if not index:
        raise Decline
    return _make(r, "gpuc.offset", (pointer, *index), (pointer.type,))


def _gpuc_shared_alloc(r: _Reader) -> Operation:
    props: dict[str, Attribute] = {"count": _i64_literal(r)}
    if r.optional("align"):
        props["alignment"] = _i64_literal(r)
    _no_attributes(r)
    r.expect(":")
    type = r.type()
    if not isinstance(type, PtrType) or type.space.data != AddressSpace.SHARED:
        raise Decline
    return _make(r, "gpuc.shared_alloc", (), (type,), props)


def _i64_literal(r: _Reader) -> IntegerAttr:
    if r.kind() != "number" or not _DECIMAL_INT.fullmatch(r.peek()):
        raise Decline
    value = int(r.take())
    if not -(2**63) <= value < 2**63:
        raise Decline
    return IntegerAttr(value, 64)


def _gpuc_atomic_rmw(r: _Reader) -> Operation:
    kind = _enum_attributes(AtomicKindAttr).get(r.take())
    if kind is None:
        raise Decline
    pointer = r.operand()
    index: list[SSAValue] = []
    if r.optional("["):
        index = [r.operand(_INDEX)]
        r.expect("]")
    r.expect(",")
    value = r.operand()
    if r.peek() != ":":
        raise Decline  # an ordering, attributes: the full parser
    r.expect(":")
    type = r.type()
    if pointer.type != type or getattr(type, "element", None) != value.type:
        raise Decline
    props: dict[str, Attribute] = {"kind": kind}
    return _make(r, "gpuc.atomic_rmw", (pointer, *index, value), (value.type,), props)


def _gpuc_store(r: _Reader) -> Operation:
    value = r.operand()
    r.expect(",")
    pointer, index, element = _pointer_access(r)
    if value.type != element:
        raise Decline
    return _make(r, "gpuc.store", (value, pointer, *index))


def _dim_index(name: str) -> Rule:
    def rule(r: _Reader) -> Operation:
        dimension = _enum_attributes(DimAttr).get(r.take())
        if dimension is None:
            raise Decline
        _no_attributes(r)
        props: dict[str, Attribute] = {"dimension": dimension}
        return _make(r, name, (), (_INDEX,), props)

    return rule


def _no_operands(name: str) -> Rule:
    def rule(r: _Reader) -> Operation:
        _no_attributes(r)
        return _make(r, name)

    return rule


def _rules() -> dict[str, Rule]:
    from xdsl.dialects.arith import (
        CMPF_COMPARISON_OPERATIONS,
        CMPI_COMPARISON_OPERATIONS,
    )

    rules: dict[str, Rule] = {
        "arith.constant": _constant,
        "arith.select": _select,
        "arith.cmpi": _compare("arith.cmpi", CMPI_COMPARISON_OPERATIONS),
        "scf.if": _scf_if,
        "scf.for": _scf_for,
        "scf.yield": _scf_yield,
        "scf.while": _scf_while,
        "scf.condition": _scf_condition,
        "gpuc.func": _gpuc_func,
        "gpuc.return": _gpuc_return,
        "gpuc.call": _gpuc_call,
        "gpuc.deferred_call": _gpuc_deferred_call,
        "gpuc.load": _gpuc_load,
        "gpuc.store": _gpuc_store,
        "gpuc.offset": _gpuc_offset,
        "gpuc.shared_alloc": _gpuc_shared_alloc,
        "gpuc.atomic_rmw": _gpuc_atomic_rmw,
        "gpuc.barrier": _no_operands("gpuc.barrier"),
    }
    # cmpf carries fastmath flags the rule would have to read: left out.
    del CMPF_COMPARISON_OPERATIONS
    for op in (
        "addi subi muli divsi divui remsi remui andi ori xori shli shrsi shrui "
        "maxsi maxui minsi minui ceildivsi ceildivui floordivsi "
        "addf subf mulf divf remf maximumf minimumf maxnumf minnumf"
    ).split():
        rules[f"arith.{op}"] = _binary(f"arith.{op}")
    for op in (
        "index_cast index_castui sitofp uitofp fptosi fptoui extf truncf extsi "
        "extui trunci bitcast"
    ).split():
        rules[f"arith.{op}"] = _cast(f"arith.{op}")
    rules["arith.negf"] = _unary("arith.negf")
    for op in (
        "absf ceil cos erf exp exp2 expm1 floor log log10 log1p log2 rsqrt sin "
        "sqrt tan tanh"
    ).split():
        rules[f"math.{op}"] = _unary(f"math.{op}")
    for dim_op in ("thread_id", "block_id", "block_dim", "grid_dim", "global_id"):
        rules[f"gpuc.{dim_op}"] = _dim_index(f"gpuc.{dim_op}")
    return rules


_RULES: dict[str, Rule] = {}


def read_module(
    text: str, ctx: Context, file: str, line_offset: int = 0
) -> ModuleOp | None:
    """The module `text` holds, read by the fast rules; None where they do not
    read it (the caller then parses it with xDSL's parser)."""
    read = read_module_natively(text, ctx, file, line_offset)
    return None if read is None else read[0]


def read_module_natively(
    text: str, ctx: Context, file: str, line_offset: int = 0
) -> tuple[ModuleOp, bool] | None:
    """As `read_module`, with whether the module is known to hold nothing for
    the import (`has_foreign_ops` would say False) as it is read: the rules
    build gpuc, arith, math and scf ops only, and every type a value gets is
    one the reader interned (or i1, index), so none of those types being
    foreign is the whole question, answered without walking the module."""
    if not _RULES:
        _RULES.update(_rules())
    try:
        reader = _Reader(ctx, text, file, line_offset)
        if reader.kind() == "eof":
            return None
        module = reader.module()
    except Decline:
        return None
    from gpuc.transforms.convert_foreign_to_gpuc import foreign_type

    return module, not any(map(foreign_type, reader.types.values()))
