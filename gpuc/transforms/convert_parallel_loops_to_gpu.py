"""`convert-parallel-loops-to-gpu`: mapped `scf.parallel` nests become `gpu.launch`.

MLIR's pass of the same name: an outermost `scf.parallel` whose `mapping`
(`#gpu.loop_dim_map`s, as `gpu-map-parallel-loops` writes them) names block
and thread dimensions becomes one `gpu.launch`; each mapped dimension's trip
count `ceildiv(ub - lb, step)` is that launch dimension's size, computed
before the launch, and its induction variable is `id * step + lb`; unmapped
launch dimensions are 1; `sequential` dimensions become `scf.for`. Nested
mapped loops join the same launch. A mapped loop whose bounds are computed
inside the nest (a tile's, `affine.min(tile, n - i)`), or whose hardware
dimension another loop of the nest sized differently, becomes a grid-stride
`scf.for` from `id * step + lb` by `size * step`: correct for any launch
size, sized by the tile (the constant bounding its trip count) when it is the
first. What MLIR's pass also refuses is a diagnostic here: reductions,
non-identity maps, a bound inside the nest with no constant trip count bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gpuc.diagnostics import ORIGINS, OpError

LAUNCH_ARGS = ("block_x", "block_y", "block_z", "thread_x", "thread_y", "thread_z")
"""The processors in the order of gpu.launch's first six body arguments (block
ids, thread ids; the grid and block sizes follow)."""


def loop_mapping(op: Operation) -> list[gpu.LoopDimMapAttr] | None:
    mapping = op.attributes.get("mapping")
    if isinstance(mapping, ArrayAttr) and all(
        isinstance(m, gpu.LoopDimMapAttr) for m in mapping.data
    ):
        return list(mapping.data)
    return None


def _constant(value: SSAValue) -> int | None:
    """The integer `value` holds, if it is arith of constants."""
    from gpuc.dialects.foreign.affine import constant_value

    return constant_value(value)


class LaunchBuilder:
    """One gpu.launch being filled from a mapped loop nest."""

    def __init__(self, outermost: scf.ParallelOp) -> None:
        self.outermost = outermost
        self.host = outermost.parent_block()
        assert self.host is not None
        self.body = Block(arg_types=[IndexType()] * 12)
        self.sizes: dict[str, SSAValue] = {}

    def host_op(self, op: Operation) -> SSAValue:
        self.host.insert_op_before(op, self.outermost)  # type: ignore[union-attr]
        return op.results[0]

    def host_value(self, value: SSAValue) -> SSAValue | None:
        """`value` (a loop bound) as available before the launch, if it is."""
        if not self._inside(value):
            return value
        if (c := _constant(value)) is not None:
            return self.host_op(arith.ConstantOp(IntegerAttr(c, IndexType())))
        return None

    def count_bound(
        self, lb: SSAValue, ub: SSAValue, step: SSAValue, loop: scf.ParallelOp
    ) -> SSAValue:
        """A trip count no tile of a loop whose bounds are computed inside the
        nest exceeds, as a constant before the launch: the lower bound and
        step must be constants, the upper bound a constant or an
        `arith.minsi` (`affine.min`) with one (a tiled loop's)."""
        low, by, high = _constant(lb), _constant(step), _upper_bound(ub)
        if low is None or by is None or high is None or by <= 0:
            raise OpError(
                loop,
                "has a bound computed inside the mapped loop nest, and gpuc "
                "cannot bound its trip count by a constant, which the launch "
                "needs (it is sized before the loops run); give it a constant "
                "lower bound and step and an upper bound that is a constant or "
                "an affine.min/arith.minsi with one (what loop tiling writes), "
                "or compute its bounds before the outermost mapped scf.parallel",
            )
        count = max(0, -(-(high - low) // by))
        return self.host_op(arith.ConstantOp(IntegerAttr(count, IndexType())))

    def _inside(self, value: SSAValue) -> bool:
        """Whether `value` is defined in the nest (or already moved into the launch)."""
        owner = value.owner
        block = owner.parent_block() if isinstance(owner, Operation) else owner
        while block is not None:
            if block is self.body:
                return True
            parent = block.parent_op()
            if parent is self.outermost:
                return True
            block = parent.parent_block() if parent is not None else None
        return False

    def trip_count(self, lb: SSAValue, ub: SSAValue, step: SSAValue) -> SSAValue:
        known = (_constant(lb), _constant(ub), _constant(step))
        if None not in known:
            low, high, by = known
            assert low is not None and high is not None and by is not None
            count = max(0, -(-(high - low) // by))
            return self.host_op(arith.ConstantOp(IntegerAttr(count, IndexType())))
        span = self.host_op(arith.SubiOp(ub, lb)) if known[0] != 0 else ub
        if known[2] == 1:
            return span
        return self.host_op(arith.CeilDivSIOp(span, step))

    def size_for(self, processor: str, count: SSAValue) -> bool:
        """Make `count` the launch size of `processor` unless it has one;
        whether the loop's iterations are then exactly the ids."""
        known = self.sizes.get(processor)
        if known is None:
            self.sizes[processor] = count
            return True
        return known is count or (
            _constant(known) is not None and _constant(known) == _constant(count)
        )

    def map_dimension(
        self,
        loop: scf.ParallelOp,
        dim: int,
        processor: str,
        at: tuple[Block, Operation | None],
    ) -> tuple[SSAValue, tuple[Block, Operation | None]]:
        """The induction variable of mapped dimension `dim` and where the
        loop's body goes: `id * step + lb` when the launch size is its trip
        count; else (a bound computed inside the nest, or a hardware
        dimension another loop sized differently) a grid-stride `scf.for`
        from there by `size * step`, correct for any launch size."""
        lb, ub, step = loop.lowerBound[dim], loop.upperBound[dim], loop.step[dim]
        host = [self.host_value(v) for v in (lb, ub, step)]
        if None in host:
            count = self.count_bound(lb, ub, step, loop)
            exact = False
            self.size_for(processor, count)
        else:
            host_lb, host_ub, host_step = host
            assert host_lb is not None and host_ub is not None
            assert host_step is not None
            lb, step = host_lb, host_step
            exact = self.size_for(processor, self.trip_count(lb, host_ub, step))
        position = LAUNCH_ARGS.index(processor)
        block, before = at
        index: SSAValue = self.body.args[position]
        if _constant(step) != 1:
            index = _emit(block, before, arith.MuliOp(index, step))
        if _constant(lb) != 0:
            index = _emit(block, before, arith.AddiOp(index, lb))
        if exact:
            return index, at
        # The launch's size of this dimension (grid or block), scaled by the step.
        stride: SSAValue = self.body.args[position + 6]
        if _constant(step) != 1:
            stride = _emit(block, before, arith.MuliOp(stride, step))
        for_op = scf.ForOp(
            index, ub, stride, [], Region(Block(arg_types=[IndexType()]))
        )
        _insert(block, before, for_op)
        for_op.body.block.add_op(scf.YieldOp())
        inner = for_op.body.block
        return inner.args[0], (inner, inner.last_op)

    def convert(
        self, loop: scf.ParallelOp, into: Block, before: Operation | None
    ) -> None:
        """Replace `loop` by its body for each mapped dimension, placed in
        `into` (before `before`), sequential dimensions as scf.for."""
        mapping = loop_mapping(loop)
        assert mapping is not None
        if loop.initVals:
            raise OpError(loop, "has reductions, which gpu.launch cannot express")
        ivs = loop.body.block.args
        if len(mapping) != len(ivs):
            raise OpError(
                loop,
                f"has {len(ivs)} induction variables but {len(mapping)} mappings",
            )
        identity = AffineMap.identity(1)
        target, target_before = into, before
        replacements: list[SSAValue] = []
        for dim, attr in enumerate(mapping):
            if attr.map.data != identity or attr.bound.data != identity:
                raise OpError(
                    loop,
                    f"maps dimension {dim} with map {attr.map.data} and bound "
                    f"{attr.bound.data}; only the identity maps are supported",
                )
            processor = attr.processor.data.value
            if processor == "sequential":
                # Its bounds are read in the kernel, wherever they are computed.
                for_op = scf.ForOp(
                    loop.lowerBound[dim],
                    loop.upperBound[dim],
                    loop.step[dim],
                    [],
                    Region(Block(arg_types=[IndexType()])),
                )
                _insert(target, target_before, for_op)
                for_op.body.block.add_op(scf.YieldOp())
                target, target_before = for_op.body.block, for_op.body.block.last_op
                replacements.append(for_op.body.block.args[0])
                continue
            index, (target, target_before) = self.map_dimension(
                loop, dim, processor, (target, target_before)
            )
            replacements.append(index)
        for iv, value in zip(ivs, replacements, strict=True):
            iv.replace_all_uses_with(value)
        for op in list(loop.body.block.ops):
            if isinstance(op, scf.YieldOp | scf.ReduceOp):
                continue
            loop.body.block.detach_op(op)
            _insert(target, target_before, op)
            if isinstance(op, scf.ParallelOp) and loop_mapping(op) is not None:
                self.convert(op, target, op)
                Rewriter.erase_op(op)

    def launch(self) -> gpu.LaunchOp:
        one = None
        sizes: list[SSAValue] = []
        for processor in LAUNCH_ARGS:
            if processor in self.sizes:
                sizes.append(self.sizes[processor])
                continue
            if one is None:
                one = self.host_op(arith.ConstantOp(IntegerAttr(1, IndexType())))
            sizes.append(one)
        self.body.add_op(gpu.TerminatorOp.create())
        return gpu.LaunchOp(Region(self.body), sizes[:3], sizes[3:])


def _upper_bound(value: SSAValue) -> int | None:
    """A constant `value` never exceeds: itself, or the smallest such bound
    of an `arith.minsi`'s operands, or of an `affine.min`'s results that are
    constants or operands (the import expands affine.min to minsi first;
    this pass alone sees it as written)."""
    from xdsl.dialects import affine
    from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineSymExpr

    if (c := _constant(value)) is not None:
        return c
    owner = value.owner
    candidates: list[int | None] = []
    if isinstance(owner, arith.MinSIOp):
        candidates = [_upper_bound(v) for v in owner.operands]
    elif isinstance(owner, affine.MinOp):
        m = owner.map.data
        for e in m.results:
            if isinstance(e, AffineConstantExpr):
                candidates.append(e.value)
            elif isinstance(e, AffineDimExpr | AffineSymExpr):
                at = e.position + (m.num_dims if isinstance(e, AffineSymExpr) else 0)
                candidates.append(_upper_bound(owner.operands[at]))
    bounds = [b for b in candidates if b is not None]
    return min(bounds) if bounds else None


def _inside_launch(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, gpu.LaunchOp):
            return True
        parent = parent.parent_op()
    return False


def _insert(block: Block, before: Operation | None, op: Operation) -> None:
    if before is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, before)


def _emit(block: Block, before: Operation | None, op: Operation) -> SSAValue:
    _insert(block, before, op)
    return op.results[0]


def convert_loop_nest(loop: scf.ParallelOp) -> gpu.LaunchOp:
    """Replace the mapped nest rooted at `loop` by a gpu.launch."""
    builder = LaunchBuilder(loop)
    builder.convert(loop, builder.body, None)
    launch = builder.launch()
    launch.location = loop.location  # what the kernel's diagnostics point at
    ORIGINS[launch] = "scf.parallel"
    builder.host.insert_op_before(launch, loop)  # type: ignore[union-attr]
    Rewriter.erase_op(loop)
    return launch


def outermost_mapped_loops(module: ModuleOp) -> list[scf.ParallelOp]:
    """Mapped scf.parallel ops with no mapped loop, launch or gpu.module above.
    An unmapped scf.parallel around one is host code, as an scf.for is: the
    launch runs once per iteration of it."""
    found: list[scf.ParallelOp] = []
    for op in module.walk():
        if not isinstance(op, scf.ParallelOp) or loop_mapping(op) is None:
            continue
        parent = op.parent_op()
        while parent is not None and not (
            isinstance(parent, gpu.LaunchOp | gpu.ModuleOp)
            or isinstance(parent, scf.ParallelOp)
            and loop_mapping(parent) is not None
        ):
            parent = parent.parent_op()
        if parent is None:
            found.append(op)
    return found


@dataclass(frozen=True)
class ConvertParallelLoopsToGpu(ModulePass):
    """Turn mapped scf.parallel loop nests into gpu.launch ops (MLIR's pass)."""

    name = "convert-parallel-loops-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = outermost_mapped_loops(op)
        if not loops:  # nothing converted, no launch to check
            return
        for loop in loops:
            convert_loop_nest(loop)
        for left in op.walk():
            # A mapped loop nested under another op (an scf.if, an unmapped
            # loop) is not converted: say so here, where the reason is known.
            if isinstance(left, scf.ParallelOp) and loop_mapping(left) is not None:
                parent = left.parent_op()
                if parent is not None and _inside_launch(left):
                    raise OpError(
                        left,
                        "is a mapped loop that is not directly in the body of "
                        f"the mapped loop around it (it is inside '{parent.name}'"
                        "), so it cannot become part of the gpu.launch; move it "
                        "out of that op",
                    )
