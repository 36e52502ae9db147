"""One symbol table per symbol-table op, shared by every verifier and pass.

xDSL's `SymbolTable.lookup_symbol` walks the whole block on every lookup, so
verifying a module with a call in each of n functions costs O(n^2). Here each
table op gets a name -> op map built once and kept in a weak cache. A cached
hit is re-validated in O(1) (the op is still a child of the table and still has
that name), so IR mutations never yield a stale answer; a miss rebuilds the
map once, which is O(n) and happens only for genuinely missing or new names.
The map holds its symbols weakly: a child's parent chain leads back to the
table op, so strong values would keep every table (and module) alive forever.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary, ref

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolTable

_TABLES: WeakKeyDictionary[Operation, dict[str, ref[Operation]]] = WeakKeyDictionary()
_HAS_TABLE_TRAIT: dict[type[Operation], bool] = {}


_NO_NESTED: ArrayAttr[StringAttr] = ArrayAttr(())


def symbol_ref(name: str) -> SymbolRefAttr:
    """`SymbolRefAttr(name)`, made as xDSL's constructor makes it but for the
    verifiers, which check that the root is a StringAttr and the nested
    references an ArrayAttr of them: they are, by construction (the reader
    makes one per call and reference, classification one per entrypoint:
    about 6 us each through the constructor)."""
    root = StringAttr.__new__(StringAttr)
    object.__setattr__(root, "data", name)
    ref = SymbolRefAttr.__new__(SymbolRefAttr)
    object.__setattr__(ref, "root_reference", root)
    object.__setattr__(ref, "nested_references", _NO_NESTED)
    return ref


def symbol_name(op: Operation) -> str | None:
    """The name `op` defines in its symbol table, if it defines one."""
    name = op.get_attr_or_prop("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def is_symbol_table(op: Operation) -> bool:
    """Whether `op` is a symbol table; an unregistered op is not (as in MLIR)."""
    kind = type(op)
    has_trait = _HAS_TABLE_TRAIT.get(kind)
    if has_trait is None:
        # Traits belong to the op class: one scan per class, not per lookup.
        has_trait = kind.has_trait(SymbolTable, value_if_unregistered=False)
        _HAS_TABLE_TRAIT[kind] = has_trait
    return has_trait and len(op.regions) == 1


def build_table(table_op: Operation) -> dict[str, Operation]:
    """Map every symbol directly inside `table_op` to its op (first one wins)."""
    table: dict[str, Operation] = {}
    for region in table_op.regions:
        block = region._first_block  # noqa: SLF001
        while block is not None:  # xDSL's links: its iterators cost calls
            op = block._first_op  # noqa: SLF001
            while op is not None:
                # `symbol_name(op)`, as `get_attr_or_prop` reads it
                held = op.properties
                if "sym_name" not in held:
                    held = op.attributes
                name = held.get("sym_name")
                if isinstance(name, StringAttr) and name.data not in table:
                    table[name.data] = op
                op = op._next_op  # noqa: SLF001
            block = block._next_block  # noqa: SLF001
    _TABLES[table_op] = {name: ref(op) for name, op in table.items()}
    return table


def lookup_in(table_op: Operation, name: str) -> Operation | None:
    """The symbol `name` defined directly in `table_op`, or None."""
    table = _TABLES.get(table_op)
    if table is not None and (weak := table.get(name)) is not None:
        hit = weak()
        if hit is not None:
            # `hit.parent_op()`, its links read here: a lookup per call verified.
            block = hit.parent
            region = None if block is None else block.parent
            if (
                region is not None
                and region.parent is table_op
                and symbol_name(hit) == name
            ):
                return hit
    return build_table(table_op).get(name)


def nearest_table(op: Operation) -> Operation | None:
    """The closest enclosing op (or `op` itself) that is a symbol table."""
    current: Operation | None = op
    while current is not None:
        if is_symbol_table(current):
            return current
        # `current.parent_op()`, its links read here (it is three calls).
        block = current.parent
        region = None if block is None else block.parent
        current = None if region is None else region.parent
    return None


def lookup_ref(table_op: Operation, ref: SymbolRefAttr) -> Operation | None:
    """Resolve `@a::@b::@c` starting in `table_op`, through nested tables."""
    found = lookup_in(table_op, ref.root_reference.data)
    for nested in ref.nested_references.data:
        if found is None or not is_symbol_table(found):
            return None
        found = lookup_in(found, nested.data)
    return found


def lookup_nearest(from_op: Operation, ref: SymbolRefAttr | str) -> Operation | None:
    """MLIR's `lookupNearestSymbolFrom`: resolve `ref` in the closest table above."""
    if isinstance(ref, str):
        ref = SymbolRefAttr(ref)
    table = nearest_table(from_op)
    return lookup_ref(table, ref) if table is not None else None
