"""Rewrites the memref ops of one function into gpuc memory ops, for `import`.

Every memref value gets a `MemrefView` (pointer + sizes) from where it is
defined: a parameter, a workgroup or private allocation or global, a cast. Users become
indexed gpuc loads, stores and atomics; `memref.dim` becomes the size. The
checks in checks.py have already rejected everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gpuc.dialects.attrs import AddressSpace, MemoryOrder
from gpuc.dialects.memory import (
    AtomicRMWOp,
    LoadOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.transforms.foreign.bare_pointers import (
    ATOMIC_KIND_BY_NUMBER,
    MemrefView,
    allocation_space,
    constant_index,
    dynamic_dims,
    element_count,
    pointer_type,
    view_sizes,
)
from gpuc.transforms.foreign.memref_dialect import ATOMIC_RMW_OPS


def _alignment(attr: IntegerAttr | None) -> int | None:
    return attr.value.data if attr is not None else None


class FunctionMemory:
    """The memref state of one function body while the import rewrites it."""

    def __init__(self, globals: dict[str, memref.GlobalOp], entry: Block) -> None:
        self.globals = globals
        self.entry = entry
        self.views: dict[SSAValue, MemrefView] = {}
        self.shared: dict[str, MemrefView] = {}
        self.dead: list[Operation] = []
        self.old_args: list[BlockArgument] = []

    def bind_arguments(self) -> None:
        """Give each memref parameter its pointer and size parameters after it."""
        for arg in list(self.entry.args):
            if not isinstance(arg.type, MemRefType):
                continue
            ptr = self.entry.insert_arg(pointer_type(arg.type), arg.index + 1)
            ptr.name_hint = arg.name_hint
            sizes: list[SSAValue] = []
            for dim in dynamic_dims(arg.type):
                size = self.entry.insert_arg(IndexType(), ptr.index + 1 + len(sizes))
                if arg.name_hint is not None:
                    size.name_hint = f"{arg.name_hint}_dim{dim}"
                sizes.append(size)
            self.views[arg] = MemrefView(ptr, view_sizes(arg.type, sizes))
            self.old_args.append(arg)

    def operands(self, values: Sequence[SSAValue], before: Operation) -> list[SSAValue]:
        """`values` as passed to a gpuc.call: each memref as pointer + dynamic sizes."""
        result: list[SSAValue] = []
        for value in values:
            if isinstance(value.type, MemRefType):
                view = self.views[value]
                result += [view.ptr, *view.dynamic_sizes(value.type, before)]
            else:
                result.append(value)
        return result

    def rewrite(self, op: Operation) -> bool:
        """Rewrite `op` if it is a memref op; False when it is not one."""
        if isinstance(op, memref.LoadOp):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            Rewriter.replace_op(op, LoadOp(view.ptr, index))
        elif isinstance(op, memref.StoreOp):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            Rewriter.replace_op(op, StoreOp(op.value, view.ptr, index))
        elif isinstance(op, ATOMIC_RMW_OPS):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            kind = ATOMIC_KIND_BY_NUMBER[op.kind.value.data]
            # MLIR lowers memref.atomic_rmw with acq_rel ordering; keep its meaning.
            atomic = AtomicRMWOp(kind, view.ptr, op.value, index, MemoryOrder.ACQ_REL)
            Rewriter.replace_op(op, atomic)
        elif isinstance(op, memref.DimOp):
            dim = constant_index(op.index)
            assert dim is not None
            op.result.replace_all_uses_with(self.views[op.source].size(dim, op))
            Rewriter.erase_op(op)
        elif isinstance(op, memref.CastOp):
            self._cast(op)
        elif isinstance(op, memref.AllocaOp | memref.AllocOp):
            self._allocate(op)
        elif isinstance(op, memref.GetGlobalOp):
            self._get_global(op)
        elif isinstance(op, memref.AssumeAlignmentOp):
            self.views[op.result] = self.views[op.memref]
            self.dead.append(op)
        elif isinstance(op, memref.DeallocOp):
            Rewriter.erase_op(op)
        else:
            return False
        return True

    def _cast(self, op: memref.CastOp) -> None:
        source = self.views[op.source]
        dest = op.dest.type
        assert isinstance(dest, MemRefType)
        sizes = tuple(
            known if known != DYNAMIC_INDEX else source.sizes[d]
            for d, known in enumerate(dest.get_shape())
        )
        self.views[op.dest] = MemrefView(source.ptr, sizes)
        self.dead.append(op)

    def _allocate(self, op: memref.AllocaOp | memref.AllocOp) -> None:
        """Workgroup memory (checked: static) becomes gpuc.shared_alloc; an
        alloca in private (or no) space, gpuc.private_alloc."""
        t = op.memref.type
        alloc: SharedAllocOp | PrivateAllocOp
        if allocation_space(t.memory_space) == AddressSpace.LOCAL:
            alloc = PrivateAllocOp(t.element_type, element_count(t))
        else:
            alloc = SharedAllocOp(
                t.element_type, element_count(t), _alignment(op.alignment)
            )
        Rewriter.insert_op(alloc, InsertPoint.before(op))
        self.views[op.memref] = MemrefView(alloc.result, t.get_shape())
        self.dead.append(op)

    def _get_global(self, op: memref.GetGlobalOp) -> None:
        name = op.name_.root_reference.data
        if name not in self.shared:
            glob = self.globals[name]
            t = glob.type
            shared = SharedAllocOp(
                t.element_type, element_count(t), _alignment(glob.alignment)
            )
            first = self.entry.first_op
            assert first is not None
            self.entry.insert_op_before(shared, first)
            self.shared[name] = MemrefView(shared.result, t.get_shape())
        self.views[op.memref] = self.shared[name]
        self.dead.append(op)

    def finish(self) -> None:
        """Erase the memref definitions, now unused, and the memref parameters."""
        for op in reversed(self.dead):
            Rewriter.erase_op(op)
        for arg in self.old_args:
            self.entry.erase_arg(arg)
