"""`classify-entrypoints`: compute the entrypoint set once, after resolution.

The set is every `kernel` function with a body plus the symbols exported
explicitly (the `exports` option, `--export SYM`, the Python API), in module
order. A set already recorded on the module (an earlier classification)
keeps its members that still exist, so running the pipeline again on its own
output changes nothing. It is written to the module as `gpuc.entrypoints` (an array of
`@symbol` refs); `privatize` and the finalization schedule read it from there,
and nothing else decides what stays visible.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, SymbolRefAttr
from xdsl.passes import ModulePass

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import ENTRYPOINTS_ATTR
from gpuc.dialects.call_graph import (
    call_graph,
    invalidate_call_graph,
    note_references,
)
from gpuc.dialects.deferred import DEFERRED_OPS, deferred_ops
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.symbols import build_table, symbol_name, symbol_ref
from gpuc.explain.record import active_recorder
from gpuc.transforms.symbol_uses import is_symbol


def _check_resolved(module: ModuleOp) -> None:
    # The call graph knows every op name of the module (and inline, next in
    # the pipeline, asks for it: this pass keeps it).
    names = call_graph(module).op_names
    if all(kind.name not in names for kind in DEFERRED_OPS):
        return
    for op in deferred_ops(module)[:1]:
        raise OpError(
            op,
            "the entrypoint set is computed after resolution, but this deferred "
            "op is unresolved; run resolve-deferred first",
        )


def _exported(module: ModuleOp, exports: Iterable[str]) -> set[str]:
    names: set[str] = set()
    exports = list(exports)
    if not exports:
        return names
    table = build_table(module)
    for export in exports:
        name = export.removeprefix("@")
        found = table.get(name)
        if "::" in name or found is None or not is_symbol(found):
            raise OpError(
                module,
                f"exported symbol @{name} is not defined at the top of the module; "
                "export a top-level symbol by its name",
            )
        if isinstance(found, FuncOp) and found.is_declaration:
            raise OpError(
                found,
                f"@{name} is a declaration and cannot be exported (it is defined "
                "elsewhere); export a definition",
            )
        names.add(name)
    return names


def compute_entrypoints(module: ModuleOp, exports: Iterable[str] = ()) -> list[str]:
    """The entrypoint set of `module`: its kernels and `exports`, in module order."""
    _check_resolved(module)
    exported = _exported(module, exports)
    earlier = (
        set(read_entrypoints(module))
        if ENTRYPOINTS_ATTR in module.attributes
        else set()
    )
    recorder = active_recorder()
    entrypoints: list[str] = []
    for op in module.ops:
        name = symbol_name(op)
        if name is None:
            continue
        kernel = isinstance(op, FuncOp) and op.is_kernel and not op.is_declaration
        if kernel or name in exported or name in earlier:
            entrypoints.append(name)
            if recorder is not None:
                why = (
                    "kernel" if kernel else "export" if name in exported else "earlier"
                )
                recorder.entrypoint(name, why)
    return entrypoints


def write_entrypoints(module: ModuleOp, names: Iterable[str]) -> None:
    """Record the set `names` on `module`. Its call graph, if one is kept,
    stays true: a set that drops none of the old one's names only adds
    references (`note_references`); any other change forgets the graph."""
    names = list(names)
    old = module.attributes.get(ENTRYPOINTS_ATTR)
    module.attributes[ENTRYPOINTS_ATTR] = ArrayAttr([symbol_ref(n) for n in names])
    kept = set(names)
    if old is None or (
        isinstance(old, ArrayAttr)
        and all(
            isinstance(ref, SymbolRefAttr)
            and not ref.nested_references.data
            and ref.root_reference.data in kept
            for ref in old.data
        )
    ):
        note_references(
            module,
            names,
            [ref.root_reference.data for ref in old.data]
            if isinstance(old, ArrayAttr)
            else (),
        )
    else:
        invalidate_call_graph(module)


def read_entrypoints(module: ModuleOp) -> list[str]:
    """The entrypoint set recorded on `module`; every stage after
    classification asks this, and only this."""
    attr = module.attributes.get(ENTRYPOINTS_ATTR)
    if attr is None:
        raise OpError(
            module,
            f"the module has no entrypoint set ('{ENTRYPOINTS_ATTR}'); run "
            "classify-entrypoints first",
        )
    if not isinstance(attr, ArrayAttr) or not all(
        isinstance(ref, SymbolRefAttr) and not ref.nested_references.data
        for ref in attr.data
    ):
        raise OpError(
            module,
            f"'{ENTRYPOINTS_ATTR}' must be an array of @symbol references, got {attr}",
        )
    return [ref.root_reference.data for ref in attr.data]


@dataclass(frozen=True)
class ClassifyEntrypoints(ModulePass):
    """Record the entrypoint set (kernels + `exports`) as `gpuc.entrypoints`."""

    name = "classify-entrypoints"
    preserves_call_graph: ClassVar[bool] = True
    """The set it writes references its symbols: `write_entrypoints` tells
    the call graph, which is otherwise unchanged."""

    exports: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        write_entrypoints(op, compute_entrypoints(op, self.exports))
