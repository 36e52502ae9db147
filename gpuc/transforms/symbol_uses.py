"""Symbols and symbol uses as MLIR defines them, for any op.

A *use* is a `SymbolRefAttr` held at any depth in an op's attributes or
properties (arrays, dictionaries and attribute parameters included, so
unregistered ops count too). The uses of an op are its own and those of the
ops nested in it, without entering nested symbol tables: each is a scope of
its own (MLIR's `SymbolTable::getSymbolUses`). An unregistered op with one
region may be a symbol table nobody can see into, so asking for the uses
across it is an error, as in MLIR.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    StringAttr,
    SymbolRefAttr,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute
from xdsl.traits import SymbolOpInterface

from gpuc.diagnostics import OpError
from gpuc.dialects.symbols import is_symbol_table


class UnknownSymbolTableError(OpError):
    """Symbol uses cannot be computed across an unregistered op with one region."""


@cache
def _symbol_interface(cls: type[Operation]) -> SymbolOpInterface | None:
    return cls.get_trait(SymbolOpInterface)


def is_symbol(op: Operation) -> bool:
    """MLIR's `isa<SymbolOpInterface>`: an optional symbol without a name is none."""
    interface = _symbol_interface(type(op))
    if interface is None:
        return False
    return not interface.is_optional_symbol(op) or isinstance(
        op.get_attr_or_prop("sym_name"), StringAttr
    )


def visibility(op: Operation) -> str:
    attr = op.get_attr_or_prop("sym_visibility")
    return attr.data if isinstance(attr, StringAttr) else "public"


def is_private(op: Operation) -> bool:
    return visibility(op) == "private"


_LEAF, _REF, _PARAMS, _ARRAY, _DICT = range(5)


def _ref_free(cls: type[Attribute], visiting: frozenset[type[Attribute]]) -> bool:
    """Whether no instance of `cls` can hold a symbol reference, judged from the
    declared parameter constraints (Data other than arrays and dictionaries
    holds Python values, not attributes)."""
    if issubclass(cls, SymbolRefAttr | ArrayAttr | DictionaryAttr):
        return False
    if issubclass(cls, Data):
        return True
    if not issubclass(cls, ParametrizedAttribute) or cls in visiting:
        return False
    for _, param in cls.get_irdl_definition().parameters:
        bases = param.constr.get_bases()
        if bases is None or not all(_ref_free(b, visiting | {cls}) for b in bases):
            return False
    return True


def _classify(cls: type[Attribute]) -> tuple[int, tuple[str, ...]]:
    """How to look for references in an attribute of class `cls` (and its fields)."""
    if issubclass(cls, SymbolRefAttr):
        return _REF, ()
    if issubclass(cls, ArrayAttr):
        return _ARRAY, ()
    if issubclass(cls, DictionaryAttr):
        return _DICT, ()
    if issubclass(cls, ParametrizedAttribute) and not _ref_free(cls, frozenset()):
        fields = tuple(name for name, _ in cls.get_irdl_definition().parameters)
        return _PARAMS, fields
    return _LEAF, ()


# Attribute class -> (kind, parameter fields); a plain dict is the fastest cache
# on this path, which runs for every attribute of every op symbol-dce visits.
_KINDS: dict[type[Attribute], tuple[int, tuple[str, ...]]] = {}
_UNKNOWN = (-1, ())
ATTRIBUTE_KINDS, UNKNOWN_KIND, LEAF_KIND = _KINDS, _UNKNOWN, _LEAF
"""For a walk that skips, without a call, an op all of whose attributes are
leaves (`ATTRIBUTE_KINDS.get(type(attr), UNKNOWN_KIND)[0] == LEAF_KIND`; an
attribute class not met yet is not one): it then holds no reference."""


def _collect(attr: Attribute, out: list[SymbolRefAttr]) -> None:
    cls = type(attr)
    entry = _KINDS.get(cls)
    if entry is None:
        entry = _KINDS[cls] = _classify(cls)
    kind, fields = entry
    if kind == _LEAF:
        return
    if kind == _REF:
        out.append(attr)  # type: ignore[arg-type]
    elif kind == _PARAMS:
        for field in fields:
            _collect(getattr(attr, field), out)
    elif kind == _ARRAY:
        for element in attr.data:  # type: ignore[attr-defined]
            _collect(element, out)
    else:
        for value in attr.data.values():  # type: ignore[attr-defined]
            _collect(value, out)


def held_refs(
    op: Operation,
    held: dict[int, list[SymbolRefAttr]] | None = None,
    out: list[SymbolRefAttr] | None = None,
) -> list[SymbolRefAttr]:
    """The symbol references held by `op` itself (not by the ops nested in it).
    `held`: the refs in each composite attribute met so far, by id, for a
    caller that asks of many ops while they are alive (one walk). `out`: a
    list to append them to (returned), for a caller that sums many ops."""
    if out is None:
        out = []
    kinds = _KINDS
    for attr in op.properties.values():
        # A leaf attribute (most of them) is skipped without a call.
        if kinds.get(type(attr), _UNKNOWN)[0] != _LEAF:
            _collect_held(attr, out, held)
    if op.attributes:
        for attr in op.attributes.values():
            if kinds.get(type(attr), _UNKNOWN)[0] != _LEAF:
                _collect_held(attr, out, held)
    return out


def _collect_held(
    attr: Attribute,
    out: list[SymbolRefAttr],
    held: dict[int, list[SymbolRefAttr]] | None,
) -> None:
    """`_collect`, through `held` when given: types and job configurations
    are shared by many ops."""
    if held is None or _KINDS.get(type(attr), _UNKNOWN)[0] == _REF:
        _collect(attr, out)
        return
    found = held.get(id(attr))
    if found is None:
        found = held[id(attr)] = []
        _collect(attr, found)
    out.extend(found)


@cache
def _unregistered(cls: type[Operation]) -> bool:
    return issubclass(cls, UnregisteredOp)


def _may_hide_table(op: Operation) -> bool:
    return len(op.regions) == 1 and _unregistered(type(op))


def _unknown_table(op: Operation, scope: Operation) -> UnknownSymbolTableError:
    return UnknownSymbolTableError(
        op,
        f"'{op_name(op)}' is unregistered and has one region, so it may be a symbol "
        f"table: the symbol uses of {describe_symbol(scope)} cannot be computed; "
        "register its dialect or give the op zero or several regions",
    )


def symbol_uses(
    op: Operation,
    nested_tables: list[Operation] | None = None,
    held: dict[int, list[SymbolRefAttr]] | None = None,
) -> list[SymbolRefAttr]:
    """MLIR's `getSymbolUses(op)`: the refs `op` holds and, unless `op` is a symbol
    table, those nested in it. Nested symbol tables are appended to
    `nested_tables`; their contents are not walked. `held`: as `held_refs`',
    for a caller that asks of many ops while they are alive."""
    if _may_hide_table(op):
        raise _unknown_table(op, op)
    if held is None:
        held = {}
    uses = held_refs(op, held)
    if not is_symbol_table(op):
        _nested_refs(op, uses, nested_tables, held)
    return uses


def referenced_names(ops: Iterable[Operation]) -> Counter[str]:
    """How many references name each root symbol in `ops`: every op of a
    module (`walk.preorder`: nested symbol tables and unregistered ops
    included), so a name counted 0 is referenced nowhere, whatever table it
    is looked up in."""
    held: dict[int, list[SymbolRefAttr]] = {}
    uses: list[SymbolRefAttr] = []
    kinds = _KINDS
    for op in ops:
        # `held_refs` asked only of an op with an attribute that may hold a
        # reference (most hold none: a call saved per op of the module).
        for attr in op.properties.values():
            if kinds.get(type(attr), _UNKNOWN)[0] != _LEAF:
                held_refs(op, held, uses)
                break
        else:
            if op.attributes:
                held_refs(op, held, uses)
    return Counter(ref.root_reference.data for ref in uses)


def _nested_refs(
    op: Operation,
    uses: list[SymbolRefAttr],
    nested_tables: list[Operation] | None,
    held: dict[int, list[SymbolRefAttr]],
) -> None:
    """Append the refs held by the ops nested in `op` to `uses` (`held`: the
    refs of each composite attribute met, by id), as `symbol_uses` does:
    nested tables are listed in `nested_tables`, not entered."""
    kinds = _KINDS
    stack = [op]
    while stack:
        for region in stack.pop().regions:
            block = region._first_block  # noqa: SLF001
            while block is not None:  # xDSL's links: its iterators cost calls
                nested = block._first_op  # noqa: SLF001
                while nested is not None:
                    # Skipping leaf attributes here, without a call, is most of
                    # the speed of symbol-dce on large modules.
                    for attr in nested.properties.values():
                        if kinds.get(type(attr), _UNKNOWN)[0] != _LEAF:
                            _collect_held(attr, uses, held)
                    if nested.attributes:
                        for attr in nested.attributes.values():
                            if kinds.get(type(attr), _UNKNOWN)[0] != _LEAF:
                                _collect_held(attr, uses, held)
                    if nested.regions:
                        if _may_hide_table(nested):
                            raise _unknown_table(nested, op)
                        elif not is_symbol_table(nested):
                            stack.append(nested)
                        elif nested_tables is not None:
                            nested_tables.append(nested)
                    nested = nested._next_op  # noqa: SLF001
                block = block._next_block  # noqa: SLF001


def op_name(op: Operation) -> str:
    """The op's name as written, unregistered ops included."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def describe_symbol(op: Operation) -> str:
    """`'func.func' @name`, or just `'op.name'` for an op that defines no symbol."""
    name = op.get_attr_or_prop("sym_name")
    quoted = f"'{op_name(op)}'"
    return f"{quoted} @{name.data}" if isinstance(name, StringAttr) else quoted
