"""`convert-foreign-to-gpuc`: functions from other frontends (func.func,
gpu.func, their bodies) into `gpuc.func`, the last pass of `import`.

Functions become `gpuc.func` with a role (kernel from a `gpu.kernel` unit
attribute or `gpu.func ... kernel`, else helper) and their MLIR visibility;
gpu index and barrier ops become gpuc's; memrefs become pointers with the
bare-pointer convention of foreign/bare_pointers.py. When the module holds
gpu.modules, their contents are the compiled module (each its own namespace:
a name two of them define becomes `@"module::name"`) and the host code around
them is dropped. Unsupported input is reported (foreign/checks.py) before
anything changes; gpuc ops pass through, so running the pass twice is
harmless.

A module of gpuc, arith, math, scf and cf ops alone has nothing to convert:
the pass sees that in one walk (`has_foreign_ops`) and never imports the
conversion (foreign/conversion.py) nor xDSL's gpu and memref dialects.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    MemRefType,
    ModuleOp,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

FOREIGN_DIALECTS = frozenset({"func", "gpu", "memref", "amdgpu", "affine"})
"""Dialects whose ops the import converts (or rejects with a diagnostic)."""
FOREIGN_TYPES = (MemRefType, UnrankedMemRefType, TensorType, UnrankedTensorType)
"""Types the import converts (or rejects), wherever a value has them."""


_NEVER, _ALWAYS, _VECTOR = 0, 1, 2
_TYPE_KINDS: dict[type[Attribute], int] = {}
"""Type class -> whether its types are the import's business (vectors: those
of several dimensions), decided once per class."""


def foreign_type(type: Attribute) -> bool:
    """Whether a value of `type` is the import's business (its class decides,
    and for a vector its number of dimensions)."""
    kind = _TYPE_KINDS.get(type.__class__)
    if kind is None:
        kind = _TYPE_KINDS[type.__class__] = (
            _ALWAYS
            if isinstance(type, FOREIGN_TYPES)
            else _VECTOR
            if isinstance(type, VectorType)
            else _NEVER
        )
    if kind == _VECTOR:
        assert isinstance(type, VectorType)
        return type.get_num_dims() != 1
    return kind == _ALWAYS


def has_foreign_ops(module: ModuleOp) -> bool:
    """Whether anything in `module` is the import's business: an op of a
    foreign dialect, or a value of a foreign type (vectors of several
    dimensions, which it unrolls, included). One walk over xDSL's links, each
    op name and each type object judged once (this runs on every compile)."""
    named: dict[str, bool] = {}
    typed: dict[int, tuple[bool, Attribute]] = {}
    """id of a type -> whether it is foreign (and the type, kept alive so
    that its id is not reused meanwhile)."""

    def judged(type: Attribute) -> bool:
        known = typed[id(type)] = (foreign_type(type), type)
        return known[0]

    stack: list[Operation] = [module]
    while stack:
        op = stack.pop()
        name = op.name
        foreign = named.get(name)
        if foreign is None:
            foreign = named[name] = name.split(".")[0] in FOREIGN_DIALECTS
        if foreign:
            return True
        for result in op.results:
            known = typed.get(id(result.type))
            if known[0] if known is not None else judged(result.type):
                return True
        for region in op.regions:
            block = region._first_block  # noqa: SLF001
            while block is not None:
                for arg in block.args:
                    known = typed.get(id(arg.type))
                    if known[0] if known is not None else judged(arg.type):
                        return True
                child = block._first_op  # noqa: SLF001
                while child is not None:
                    stack.append(child)
                    child = child._next_op  # noqa: SLF001
                block = block._next_block  # noqa: SLF001
    return False


@dataclass(frozen=True)
class ConvertForeignToGpuc(ModulePass):
    """Convert func/gpu/memref functions into gpuc functions."""

    name = "convert-foreign-to-gpuc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not has_foreign_ops(op):
            return
        from gpuc.transforms.foreign.conversion import import_functions

        import_functions(op)
