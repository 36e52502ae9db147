"""Rewrites the memref ops of one function into gpuc memory ops, for `import`.

Every memref value gets a `MemrefView` (base pointer, sizes, strides and
offset) from where it is defined: a parameter, a workgroup or private
allocation or global, a cast, a view (memref.subview, memref.reinterpret_cast,
memref.memory_space_cast). Users become indexed gpuc loads, stores and
atomics; `memref.dim` becomes the size. The checks in checks.py have already
rejected everything else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gpuc.dialects.attrs import AddressSpace, MemoryOrder
from gpuc.dialects.foreign.memref import ATOMIC_RMW_OPS, GenericAtomicRMWOp
from gpuc.dialects.foreign.vector import ExtractElementOp, InsertElementOp
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.transforms.foreign.bare_pointers import (
    ATOMIC_KIND_BY_NUMBER,
    address_space,
    allocation_space,
    constant_index,
    constant_table,
    dynamic_dims,
    element_count,
    pointer_type,
    strided_layout,
    view_sizes,
)
from gpuc.transforms.foreign.memref_views import (
    MemrefView,
    Size,
    add,
    kept_dims,
    materialize,
    multiply,
    reshape_groups,
    subtract,
)


def index_constant_op(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _alignment(attr: IntegerAttr | None) -> int | None:
    return attr.value.data if attr is not None else None


def replace_located(op: Operation, new: Operation) -> None:
    """Replace `op` by `new`, which keeps `op`'s source location (so a
    diagnostic or a checked-mode fault about it points where the frontend
    wrote `op`)."""
    new.location = op.location
    Rewriter.replace_op(op, new)


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
        """Give each memref parameter its pointer, then its size, stride and
        offset parameters (the dynamic ones) after it."""
        for arg in list(self.entry.args):
            if isinstance(arg.type, MemRefType):
                self.views[arg] = self._bind(arg, arg.type)
                self.old_args.append(arg)

    def _bind(self, arg: BlockArgument, t: MemRefType) -> MemrefView:
        ptr = self.entry.insert_arg(pointer_type(t), arg.index + 1)
        ptr.name_hint = arg.name_hint
        added: list[SSAValue] = []

        def passed(suffix: str) -> SSAValue:
            value = self.entry.insert_arg(IndexType(), ptr.index + 1 + len(added))
            if arg.name_hint is not None:
                value.name_hint = f"{arg.name_hint}_{suffix}"
            added.append(value)
            return value

        sizes = [passed(f"dim{d}") for d in dynamic_dims(t)]
        view = MemrefView(ptr, view_sizes(t, sizes))
        if (layout := strided_layout(t)) is None:
            return view
        strides, offset = layout
        return replace(
            view,
            strides=tuple(
                passed(f"stride{d}") if s is None else s for d, s in enumerate(strides)
            ),
            base_offset=passed("offset") if offset is None else offset,
        )

    def operands(self, values: Sequence[SSAValue], before: Operation) -> list[SSAValue]:
        """`values` as passed to a gpuc.call: each memref as its pointer and
        its dynamic sizes, strides and offset (bare_pointers.py)."""
        result: list[SSAValue] = []
        for value in values:
            t = value.type
            if not isinstance(t, MemRefType):
                result.append(value)
                continue
            view = self.views[value]
            layout = strided_layout(t)
            if layout is None:
                result += [view.ptr, *view.dynamic_sizes(t, before)]
                continue
            first = view.ptr
            if view.offset != 0:
                step = OffsetOp(view.ptr, materialize(view.offset, before))
                Rewriter.insert_op(step, InsertPoint.before(before))
                first = step.result
            strides, offset = layout
            given = view.all_strides(before)
            result += [first, *view.dynamic_sizes(t, before)]
            result += [
                materialize(given[d], before)
                for d, s in enumerate(strides)
                if s is None
            ]
            if offset is None:
                whole = add(view.offset, view.base_offset, before)
                result.append(materialize(whole, before))
        return result

    def rewrite(self, op: Operation) -> bool:
        """Rewrite `op` if it is a memref op; False when it is not one."""
        if isinstance(op, memref.LoadOp):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            replace_located(op, LoadOp(view.ptr, index))
        elif isinstance(op, memref.StoreOp):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            replace_located(op, StoreOp(op.value, view.ptr, index))
        elif isinstance(op, ATOMIC_RMW_OPS):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            kind = ATOMIC_KIND_BY_NUMBER[op.kind.value.data]
            # MLIR lowers memref.atomic_rmw with acq_rel ordering; keep its meaning.
            atomic = AtomicRMWOp(kind, view.ptr, op.value, index, MemoryOrder.ACQ_REL)
            replace_located(op, atomic)
        elif isinstance(op, GenericAtomicRMWOp):
            view = self.views[op.memref]
            index = view.element_index(op.indices, op)
            compare_exchange_loop(op, view.ptr, index)
        elif isinstance(op, memref.DimOp):
            dim = constant_index(op.index)
            assert dim is not None
            op.result.replace_all_uses_with(self.views[op.source].size(dim, op))
            Rewriter.erase_op(op)
        elif isinstance(op, memref.CastOp):
            self._cast(op)
        elif isinstance(op, memref.SubviewOp):
            self._subview(op)
        elif isinstance(op, memref.ReinterpretCastOp):
            self._reinterpret_cast(op)
        elif isinstance(op, memref.MemorySpaceCastOp):
            self._memory_space_cast(op)
        elif isinstance(op, memref.CollapseShapeOp):
            self._collapse_shape(op)
        elif isinstance(op, memref.ExpandShapeOp):
            self._expand_shape(op)
        elif isinstance(op, memref.AllocaOp | memref.AllocOp):
            self._allocate(op)
        elif isinstance(op, memref.GetGlobalOp):
            self._get_global(op)
        elif isinstance(op, memref.AssumeAlignmentOp):
            self.views[op.result] = self.views[op.memref]
            self.dead.append(op)
        elif isinstance(op, memref.DeallocOp):
            Rewriter.erase_op(op)
        elif isinstance(op, vector.LoadOp):
            self._vector_load(op)
        elif isinstance(op, vector.StoreOp):
            self._vector_store(op)
        else:
            return False
        return True

    def _element_indices(
        self, base: SSAValue, indices: Sequence[SSAValue], count: int, op: Operation
    ) -> tuple[MemrefView, list[SSAValue]]:
        """The linear index of each of `count` consecutive elements along the
        innermost dimension from `indices` (checks.py made sure its stride is 1)."""
        view = self.views[base]
        first = view.element_index(indices, op)
        assert first is not None  # a vector access has indices
        return view, [materialize(add(first, i, op), op) for i in range(count)]

    def _vector_load(self, op: vector.LoadOp) -> None:
        """`vector.load`: a scalar load of each element, gathered into the
        vector (LLVM merges consecutive loads where the target can)."""
        vt = op.result.type
        assert isinstance(vt, VectorType)
        (count,) = vt.get_shape()
        view, at = self._element_indices(op.base, op.indices, count, op)
        loads = [LoadOp(view.ptr, index) for index in at]
        ops: list[Operation] = [*loads]
        value: Operation = vector.BroadcastOp(loads[0], vt)
        ops.append(value)
        for i, load in enumerate(loads[1:], start=1):
            position = index_constant_op(i)
            value = InsertElementOp.create(
                operands=[load.result, value.results[0], position.result],
                result_types=[vt],
            )
            ops += [position, value]
        Rewriter.replace_op(op, ops, [value.results[0]])

    def _vector_store(self, op: vector.StoreOp) -> None:
        """`vector.store`: each element extracted and stored on its own."""
        vt = op.vector.type
        assert isinstance(vt, VectorType)
        (count,) = vt.get_shape()
        view, at = self._element_indices(op.base, op.indices, count, op)
        ops: list[Operation] = []
        for i, index in enumerate(at):
            position = index_constant_op(i)
            element = ExtractElementOp.create(
                operands=[op.vector, position.result],
                result_types=[vt.get_element_type()],
            )
            ops += [position, element, StoreOp(element.results[0], view.ptr, index)]
        Rewriter.replace_op(op, ops, [])

    def _cast(self, op: memref.CastOp) -> None:
        source = self.views[op.source]
        dest = op.dest.type
        assert isinstance(dest, MemRefType)
        sizes = tuple(
            known if known != DYNAMIC_INDEX else source.sizes[d]
            for d, known in enumerate(dest.get_shape())
        )
        self.views[op.dest] = source.with_sizes(sizes)
        self.dead.append(op)

    def _subview(self, op: memref.SubviewOp) -> None:
        """Offsets, sizes and steps in the source's terms: the view's offset
        is the source's plus each offset times the source's stride, its
        strides the source's times the steps; a rank-reducing subview drops
        the unit dimensions the result type has not."""
        source = self.views[op.source]
        offsets = _mixed(op.static_offsets, op.offsets)
        sizes = _mixed(op.static_sizes, op.sizes)
        steps = _mixed(op.static_strides, op.strides)
        strides = source.all_strides(op)
        offset = source.offset
        for start, stride in zip(offsets, strides, strict=True):
            offset = add(offset, multiply(start, stride, op), op)
        result = op.result.type
        assert isinstance(result, MemRefType)
        kept = kept_dims(op.static_sizes.get_values(), result.get_shape())
        assert kept is not None  # checks.py reported it
        self.views[op.result] = MemrefView(
            source.ptr,
            tuple(sizes[d] for d in kept),
            tuple(multiply(strides[d], steps[d], op) for d in kept),
            offset,
        )
        self.dead.append(op)

    def _reinterpret_cast(self, op: memref.ReinterpretCastOp) -> None:
        """The source's base with the op's offset, sizes and strides."""
        source = self.views[op.source]
        (offset,) = _mixed(op.static_offsets, op.offsets)
        sizes = _mixed(op.static_sizes, op.sizes)
        strides = _mixed(op.static_strides, op.strides)
        self.views[op.result] = MemrefView(
            source.ptr,
            sizes,
            strides,
            subtract(offset, source.base_offset, op),
            source.base_offset,
        )
        self.dead.append(op)

    def _memory_space_cast(self, op: memref.MemorySpaceCastOp) -> None:
        """The same view through a pointer in the result's space (checked: one
        of the two is generic, or they are the same gpuc space)."""
        source = self.views[op.source]
        dest = op.dest.type
        assert isinstance(dest, MemRefType)
        space = address_space(dest.memory_space)
        assert space is not None
        ptr = source.ptr
        if pointer_type(dest) != ptr.type:
            cast = AddrSpaceCastOp(ptr, space)
            cast.location = op.location  # a target refusing it says where
            Rewriter.insert_op(cast, InsertPoint.before(op))
            ptr = cast.result
        self.views[op.dest] = replace(source, ptr=ptr)
        self.dead.append(op)

    def _collapse_shape(self, op: memref.CollapseShapeOp) -> None:
        """Each group of dimensions one: the product of their sizes, the
        stride of the innermost (MLIR requires the group to be contiguous)."""
        source = self.views[op.src]
        strides = source.all_strides(op)
        sizes: list[Size] = []
        steps: list[Size] = []
        for group in _reshape_groups(op):
            size: Size = 1
            for d in group:
                size = multiply(size, source.sizes[d], op)
            sizes.append(size)
            steps.append(strides[group[-1]] if group else 1)
        self.views[op.result] = replace(
            source, sizes=tuple(sizes), strides=tuple(steps)
        )
        self.dead.append(op)

    def _expand_shape(self, op: memref.ExpandShapeOp) -> None:
        """Each source dimension split into its group: the result's sizes
        (`output_shape`), strides from the source dimension's outwards."""
        source = self.views[op.src]
        strides = source.all_strides(op)
        sizes = _mixed(op.static_output_shape, op.output_shape)
        steps: list[Size] = [0] * len(sizes)
        for d, group in enumerate(_reshape_groups(op)):
            step = strides[d]
            for k in reversed(group):
                steps[k] = step
                step = multiply(step, sizes[k], op)
        self.views[op.result] = replace(source, sizes=sizes, strides=tuple(steps))
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
        """A workgroup global becomes one gpuc.shared_alloc per kernel; a
        constant table (checked: small, dense) a gpuc.private_alloc the
        kernel fills with its values on entry, which LLVM folds into the
        loads at constant indices."""
        name = op.name_.root_reference.data
        if name not in self.shared:
            glob = self.globals[name]
            t = glob.type
            table = constant_table(glob)
            first = self.entry.first_op
            assert first is not None
            alloc: SharedAllocOp | PrivateAllocOp
            if table is None:
                alloc = SharedAllocOp(
                    t.element_type, element_count(t), _alignment(glob.alignment)
                )
                self.entry.insert_op_before(alloc, first)
            else:
                alloc = PrivateAllocOp(t.element_type, len(table))
                alloc.attributes[PrivateAllocOp.SAME_IN_EVERY_THREAD] = UnitAttr()
                alloc.location = op.location
                self.entry.insert_op_before(alloc, first)
                _fill(alloc, t.element_type, table, first)
            self.shared[name] = MemrefView(alloc.result, t.get_shape())
        self.views[op.memref] = self.shared[name]
        self.dead.append(op)

    def finish(self) -> None:
        """Erase the memref definitions, now unused, and the memref parameters."""
        for op in reversed(self.dead):
            Rewriter.erase_op(op)
        for arg in self.old_args:
            self.entry.erase_arg(arg)


def _fill(
    alloc: PrivateAllocOp,
    element: Attribute,
    values: list[int | float],
    before: Operation,
) -> None:
    """Store `values` into `alloc`'s elements in order, before `before`."""
    for k, value in enumerate(values):
        attr: FloatAttr | IntegerAttr[IntegerType | IndexType]
        if isinstance(element, AnyFloat):
            attr = FloatAttr(float(value), element)
        else:
            assert isinstance(element, IntegerType | IndexType)  # constant_table
            attr = IntegerAttr(int(value), element)
        constant = arith.ConstantOp(attr)
        index = arith.ConstantOp(IntegerAttr(k, IndexType()))
        store = StoreOp(constant, alloc, index)
        for new in (constant, index, store):
            new.location = alloc.location
            Rewriter.insert_op(new, InsertPoint.before(before))


def _reshape_groups(
    op: memref.CollapseShapeOp | memref.ExpandShapeOp,
) -> list[list[int]]:
    groups = reshape_groups(op.reassociation)
    assert groups is not None  # verified
    return groups


def _mixed(
    static: DenseArrayBase[IntegerType], dynamic: Sequence[SSAValue]
) -> tuple[Size, ...]:
    """Static values with each DYNAMIC_INDEX taken, in order, from `dynamic`."""
    values: Iterator[SSAValue] = iter(dynamic)
    return tuple(next(values) if v == DYNAMIC_INDEX else v for v in static.get_values())


def compare_exchange_loop(
    op: GenericAtomicRMWOp, ptr: SSAValue, index: SSAValue | None
) -> None:
    """`op` as a loop: read the element, compute the new value with `op`'s
    region, compare-exchange it in; again while another thread changed the
    element in between. The result is the value replaced."""
    t = op.result.type
    load = LoadOp(ptr, index)
    load.location = op.location
    Rewriter.insert_op(load, InsertPoint.before(op))
    before = Block(arg_types=[t])
    current = before.args[0]
    body = op.body.block
    body.args[0].replace_all_uses_with(current)
    new = body.last_op
    assert new is not None
    for inner in list(body.ops):
        body.detach_op(inner)
        if inner is not new:
            before.add_op(inner)
    exchange = AtomicCmpXchgOp(
        ptr, current, new.operands[0], index, MemoryOrder.ACQ_REL
    )
    exchange.location = op.location
    new.erase(safe_erase=False)
    retry = arith.CmpiOp(exchange.result, current, "ne")
    before.add_ops([exchange, retry, scf.ConditionOp(retry, exchange.result)])
    after = Block(arg_types=[t])
    after.add_op(scf.YieldOp(after.args[0]))
    loop = scf.WhileOp([load.result], [t], Region(before), Region(after))
    replace_located(op, loop)
