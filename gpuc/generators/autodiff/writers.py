"""The single-writer rule: when reverse mode may add a load's adjoint to its
shadow with a plain read-add-write instead of an atomic add.

An update is plain when no other thread can touch the same shadow element
while this one does. In a kernel (whose arguments, and so the values made
from them, are the same in every thread: *uniform*), that holds for memory
the kernel only ever accesses at one index expression that is an injective
function of the thread's position:

- `gpuc.global_id d` (global memory) or `gpuc.thread_id d` (shared memory)
  is injective in dimension d;
- `e + u`, `u + e`, `e - u` with `u` uniform are injective where `e` is
  (an addition of a constant is a bijection, wrapping included);
- `b * w + a` (in any order of the operands) is injective in the dimensions
  of `a` and `b` together when `a` and `b` are, `w` is uniform, and the
  access sits in the `then` region of an `scf.if` whose condition (or one
  of the `arith.andi` conjuncts of it) says `a < w` (`cmpi ult`, or `slt`
  where `a` is a thread index): two threads with equal `b * w + a` then
  have equal `a` and equal `b` (the row-major index of stencil2d's `c`);
- widening casts (`extsi`, `extui`, `index_cast` to index) of an
  injective value are injective.

Dimensions the index does not involve must have one thread: a uniform
runtime branch picks the plain update where the launch's extents (grid times
block for global memory, block for shared) in those dimensions are 1, the
atomic one otherwise. Private memory is one thread's by definition; global
memory the thread also stores to at the same address in the same block is
plain too (in a data-race-free function no other thread touches it).
Everything else is atomic.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import BlockArgument, Operation, SSAValue

from gpuc.dialects.attrs import AddressSpace, Dim, PtrType
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.index import BlockDimOp, BlockIdOp, GlobalIdOp, GridDimOp, ThreadIdOp
from gpuc.dialects.memory import AtomicCmpXchgOp, AtomicRMWOp, LoadOp, StoreOp
from gpuc.generators.autodiff.memory import root_of

ACCESSES = (LoadOp, StoreOp, AtomicRMWOp, AtomicCmpXchgOp)
ALL_DIMS = frozenset(Dim)
CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp)
UNIFORM_OPS = (
    arith.ConstantOp,
    *CASTS,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.DivUIOp,
    arith.DivSIOp,
    arith.CeilDivUIOp,
    arith.RemUIOp,
    arith.RemSIOp,
    arith.MinUIOp,
    arith.MaxUIOp,
    arith.TruncIOp,
)


def same_value(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` are equal by construction: one value, or results
    of the same pure op (constants, integer arithmetic, casts, thread and
    launch indices) on equal operands."""
    if a is b:
        return True
    x, y = a.owner, b.owner
    if not isinstance(x, Operation) or not isinstance(y, Operation):
        return False
    if type(x) is not type(y) or not isinstance(
        x, (*UNIFORM_OPS, GlobalIdOp, ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp)
    ):
        return False
    if x.properties != y.properties or x.attributes != y.attributes:
        return False
    return len(x.operands) == len(y.operands) and all(
        same_value(p, q) for p, q in zip(x.operands, y.operands, strict=True)
    )


class SingleWriter:
    """The rule above, for the function `source` (a kernel; for a helper,
    whose arguments differ between threads, nothing is proven)."""

    def __init__(self, source: FuncOp):
        self.source = source

    def uniform(self, v: SSAValue, shared: bool) -> bool:
        """The same in every thread of the launch (of the block, `shared`)."""
        if isinstance(v, BlockArgument):
            return v.owner is self.source.body.block and not isinstance(v.type, PtrType)
        op = v.owner
        if isinstance(op, BlockDimOp | GridDimOp) or (
            shared and isinstance(op, BlockIdOp)
        ):
            return True
        return isinstance(op, UNIFORM_OPS) and all(
            self.uniform(o, shared) for o in op.operands
        )

    def dims(
        self, v: SSAValue, where: Operation, shared: bool
    ) -> frozenset[Dim] | None:
        """The dimensions `v` is injective in, over the threads that run
        `where` (None: not shown injective)."""
        op = v.owner
        base = ThreadIdOp if shared else GlobalIdOp
        if isinstance(op, base):
            return frozenset({op.dimension.data})
        if isinstance(op, CASTS) and not (
            isinstance(op, arith.IndexCastOp)
            and isinstance(op.operands[0].type, IndexType)
        ):  # a widening cast (index_cast from index may truncate)
            return self.dims(op.operands[0], where, shared)
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            lhs, rhs = op.operands
            if self.uniform(rhs, shared):
                return self.dims(lhs, where, shared)
            if isinstance(op, arith.AddiOp) and self.uniform(lhs, shared):
                return self.dims(rhs, where, shared)
            if isinstance(op, arith.AddiOp):
                return self.row_major(lhs, rhs, where, shared) or self.row_major(
                    rhs, lhs, where, shared
                )
        return None

    def row_major(
        self, product: SSAValue, a: SSAValue, where: Operation, shared: bool
    ) -> frozenset[Dim] | None:
        """`product + a` with `product` = `b * w` and `a < w` guarded."""
        mul = product.owner
        if not isinstance(mul, arith.MuliOp):
            return None
        for b, w in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
            if not self.uniform(w, shared) or not self.below(a, w, where):
                continue
            da, db = self.dims(a, where, shared), self.dims(b, where, shared)
            if da is not None and db is not None:
                return da | db
        return None

    def below(self, a: SSAValue, w: SSAValue, where: Operation) -> bool:
        """Whether an `scf.if` around `where` runs it only where 0 <= a < w."""
        for cond in guards(where):
            for fact in conjuncts(cond):
                if not isinstance(fact, arith.CmpiOp):
                    continue
                kind = fact.predicate.value.data
                lhs, rhs = fact.lhs, fact.rhs
                if kind in (8, 4):  # ugt, sgt: w > a
                    lhs, rhs = rhs, lhs
                    kind = 6 if kind == 8 else 2
                unsigned = kind == 6  # ult
                signed = kind == 2 and isinstance(  # slt of a thread index
                    a.owner, GlobalIdOp | ThreadIdOp
                )
                if (unsigned or signed) and same_value(lhs, a) and same_value(rhs, w):
                    return True
        return False

    def dims_of_root(self, root: SSAValue, shared: bool) -> frozenset[Dim] | None:
        """The dimensions that tell apart the threads touching an element of
        `root`: every access of the function to `root` is at one index
        expression, injective in them (None: not shown)."""
        accesses = [
            o
            for o in self.source.walk()
            if isinstance(o, ACCESSES) and root_of(o.ptr)[0] == root
        ]
        if not accesses:
            return None
        first = accesses[0].index
        found: frozenset[Dim] = ALL_DIMS
        for o in accesses:
            if o.ptr is not root or o.index is None or first is None:
                return None
            if not same_value(o.index, first):
                return None
            dims = self.dims(o.index, o, shared)
            if dims is None:
                return None
            found &= dims
        return found

    def free_dims(self, op: LoadOp | AtomicRMWOp) -> frozenset[Dim] | None:
        """Where `op`'s shadow update may be plain: the dimensions whose
        extent must be 1 for that (empty: always), or None (atomic)."""
        if not self.source.is_kernel:
            return None
        root, space = root_of(op.ptr)
        if root is None or space not in (None, AddressSpace.SHARED):
            return None
        dims = self.dims_of_root(root, space is not None)
        return None if dims is None else ALL_DIMS - dims


def guards(op: Operation) -> Iterator[SSAValue]:
    """The conditions of the `scf.if`s whose `then` region holds `op`."""
    current: Operation | None = op
    while current is not None:
        parent = current.parent_op()
        if isinstance(parent, scf.IfOp) and current.parent_region() is (
            parent.true_region
        ):
            yield parent.cond
        current = parent


def conjuncts(cond: SSAValue) -> Iterator[Operation]:
    """The ops whose results `cond` ands together (itself if not an andi)."""
    op = cond.owner
    if isinstance(op, arith.AndIOp):
        yield from conjuncts(op.lhs)
        yield from conjuncts(op.rhs)
    elif isinstance(op, Operation):
        yield op
