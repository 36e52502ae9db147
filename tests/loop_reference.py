"""A numpy reference for host code made of parallel loops.

Runs a host function of a module (func, arith, math, memref, scf: what
xDSL's stencil lowering and MLIR's linalg-to-parallel-loops emit) on numpy
arrays, every `scf.parallel` vectorized: its body runs once, each induction
variable an array over the loop's iteration space (a nested loop's axes go
in front, so values from outside broadcast), `scf.if` and lane-dependent
`scf.for` bounds as masks. Independent of gpuc's compiler and of xDSL's
interpreter, it is what the corpus bench and the frontend tests check gpuc's
kernels against. What it does not know raises Unsupported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import builtin, func, memref, scf
from xdsl.ir import Block, Operation, SSAValue

from gpuc.runtime.args import SCALAR_DTYPES
from gpuc.transforms.foreign.memref_views import kept_dims

Array = np.ndarray[Any, Any]


class Unsupported(Exception):
    """An op or a loop shape the reference does not evaluate."""


BINARY = {
    "addi": np.add,
    "addf": np.add,
    "subi": np.subtract,
    "subf": np.subtract,
    "muli": np.multiply,
    "mulf": np.multiply,
    "divf": np.divide,
    "andi": np.bitwise_and,
    "ori": np.bitwise_or,
    "xori": np.bitwise_xor,
    "maxsi": np.maximum,
    "minsi": np.minimum,
    "maximumf": np.maximum,
    "minimumf": np.minimum,
    "maxnumf": np.fmax,
    "minnumf": np.fmin,
    "maxf": np.maximum,
    "minf": np.minimum,
}
COMPARE = {
    "eq": np.equal,
    "ne": np.not_equal,
    "slt": np.less,
    "sle": np.less_equal,
    "sgt": np.greater,
    "sge": np.greater_equal,
    "ult": np.less,
    "ule": np.less_equal,
    "ugt": np.greater,
    "uge": np.greater_equal,
    "oeq": np.equal,
    "one": np.not_equal,
    "olt": np.less,
    "ole": np.less_equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "ueq": np.equal,
    "une": np.not_equal,
}
MATH = {"exp": np.exp, "sqrt": np.sqrt, "absf": np.abs, "log": np.log}
PREDICATES_I = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
PREDICATES_F = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
]  # fmt: skip


def dtype(kind: Any) -> np.dtype[Any]:
    if isinstance(kind, builtin.IndexType):
        return np.dtype(np.int64)
    found = SCALAR_DTYPES.get(str(kind))
    if found is None:
        raise Unsupported(f"values of type {kind}")
    return found


@dataclass(frozen=True)
class Buffer:
    """A memref as MLIR addresses it: element `offset + sum(i * stride)` of
    the flat memory of the array it views (so an index outside a view but
    inside its buffer reads the buffer, as the compiled code does)."""

    flat: Array
    offset: int
    strides: tuple[int, ...]

    @staticmethod
    def of(array: Array) -> Buffer:
        strides = tuple(s // array.itemsize for s in array.strides)
        return Buffer(array.reshape(-1), 0, strides)

    def address(self, indices: tuple[Any, ...]) -> Any:
        where = self.offset + sum(
            (
                np.asarray(i, np.int64) * s
                for i, s in zip(indices, self.strides, strict=True)
            ),
            np.int64(0),
        )
        if np.any((where < 0) | (where >= self.flat.size)):
            raise Unsupported("an access outside the buffer")
        return where


class Reference:
    """One run of a host function; `mask` is where the current lanes are live."""

    def __init__(self) -> None:
        self.env: dict[SSAValue, Any] = {}
        self.mask: Any = True
        self.depth = 0
        """How many loop axes the values of the current lanes have."""

    def run_block(self, block: Block) -> list[Any]:
        for op in block.ops:
            if op.name in ("func.return", "scf.yield", "scf.reduce"):
                return [self.env[v] for v in op.operands]
            results = self.run_op(op)
            for result, value in zip(op.results, results, strict=True):
                self.env[result] = value
        return []

    def run_op(self, op: Operation) -> list[Any]:
        args = [self.env[v] for v in op.operands]
        dialect, _, name = op.name.partition(".")
        if op.name == "arith.constant":
            value: Any = op.properties["value"]
            if not isinstance(value, builtin.IntegerAttr | builtin.FloatAttr):
                raise Unsupported(f"arith.constant {value}")
            return [dtype(op.results[0].type).type(value.value.data)]
        if dialect == "arith" and name in BINARY:
            with np.errstate(all="ignore"):
                return [BINARY[name](args[0], args[1])]
        if op.name in ("arith.cmpi", "arith.cmpf"):
            code = op.properties["predicate"].value.data  # type: ignore[attr-defined]
            names = PREDICATES_I if name == "cmpi" else PREDICATES_F
            predicate = names[code]
            if predicate not in COMPARE:
                raise Unsupported(f"{op.name} {predicate}")
            return [COMPARE[predicate](args[0], args[1])]
        if op.name == "arith.select":
            return [np.where(args[0], args[1], args[2])]
        if op.name in (
            "arith.index_cast",
            "arith.sitofp",
            "arith.extf",
            "arith.truncf",
            "arith.fptosi",
        ):
            return [np.asarray(args[0]).astype(dtype(op.results[0].type))]
        if dialect == "math" and name in MATH:
            with np.errstate(all="ignore"):
                return [MATH[name](args[0])]
        if dialect == "memref":
            return self.run_memref(op, name, args)
        if isinstance(op, scf.ParallelOp):
            self.run_parallel(op, args)
            return []
        if isinstance(op, scf.ForOp):
            return self.run_for(op, args)
        if isinstance(op, scf.IfOp):
            return self.run_if(op, args[0])
        raise Unsupported(op.name)

    def run_memref(self, op: Operation, name: str, args: list[Any]) -> list[Any]:
        if name == "cast":
            return [args[0]]
        if name == "dealloc":
            return []
        if name == "dim":
            raise Unsupported("memref.dim")
        if name in ("alloc", "alloca"):
            kind = op.results[0].type
            assert isinstance(kind, builtin.MemRefType)
            sizes = iter(args)
            shape = [
                int(next(sizes)) if d == builtin.DYNAMIC_INDEX else d
                for d in kind.get_shape()
            ]
            buffer = Buffer.of(np.zeros(shape, dtype(kind.element_type)))
            layout = kind.layout
            if isinstance(layout, builtin.StridedLayoutAttr):
                # MLIR allocates the elements of the shape and addresses them
                # with the layout's strides and offset.
                strides, offset = layout.get_strides(), layout.get_offset()
                if builtin.DYNAMIC_INDEX in (*strides, offset) or None in strides:
                    raise Unsupported(f"memref.alloc of {kind}")
                buffer = Buffer(buffer.flat, offset, tuple(strides))  # type: ignore[arg-type]
            return [buffer]
        if name == "subview":
            return [subview(op, args)]
        if name == "load":
            buffer, *indices = args
            return [buffer.flat[self.address(buffer, indices)]]
        if name == "store":
            value, buffer, *indices = args
            where = self.address(buffer, indices)
            value, live, where = np.broadcast_arrays(value, self.mask, where)
            buffer.flat[where[live]] = value[live]
            return []
        raise Unsupported(op.name)

    def address(self, buffer: Buffer, indices: list[Any]) -> Any:
        """The elements `indices` address, those of dead lanes (whose indices
        may be anything) element 0."""
        if self.mask is not True:
            indices = [np.where(self.mask, i, 0) for i in indices]
        return buffer.address(tuple(indices))

    def run_parallel(self, op: scf.ParallelOp, args: list[Any]) -> None:
        if op.initVals:
            raise Unsupported("scf.parallel with reductions")
        rank = len(op.lowerBound)
        if any(np.ndim(a) for a in args):
            raise Unsupported("scf.parallel with bounds that differ between lanes")
        for d, iv in enumerate(op.body.blocks[0].args):
            lo, hi, step = (int(args[d + k * rank]) for k in range(3))
            shape = [1] * (rank + self.depth)
            shape[d] = -1
            self.env[iv] = np.arange(lo, hi, step, dtype=np.int64).reshape(shape)
        self.depth += rank
        self.run_block(op.body.blocks[0])
        self.depth -= rank

    def run_for(self, op: scf.ForOp, args: list[Any]) -> list[Any]:
        lo, hi, step, *carried = args
        if np.ndim(step):
            raise Unsupported("scf.for with a step that differs between lanes")
        outer = self.mask
        body = op.body.blocks[0]
        if np.ndim(lo) == 0 and np.ndim(hi) == 0:
            lo, hi = int(lo), int(hi)
        iv = int(np.min(lo))
        while iv < int(np.max(hi)):
            live = (lo <= iv) & (iv < hi) & ((iv - lo) % step == 0)
            self.mask = outer & live if outer is not True else live
            if self.mask is np.True_:
                self.mask = True
            self.env[body.args[0]] = np.int64(iv)
            for arg, value in zip(body.args[1:], carried, strict=True):
                self.env[arg] = value
            new = self.run_block(body)
            carried = [
                n
                if self.mask is True or isinstance(n, Buffer)
                else np.where(self.mask, n, c)
                for n, c in zip(new, carried, strict=True)
            ]
            iv += int(step)
        self.mask = outer
        return carried

    def run_if(self, op: scf.IfOp, condition: Any) -> list[Any]:
        outer = self.mask
        self.mask = outer & condition
        then = self.run_block(op.true_region.blocks[0])
        otherwise: list[Any] = []
        if op.false_region.blocks:
            self.mask = outer & ~np.asarray(condition)
            otherwise = self.run_block(op.false_region.blocks[0])
        self.mask = outer
        return [np.where(condition, t, e) for t, e in zip(then, otherwise, strict=True)]


def subview(op: Operation, args: list[Any]) -> Buffer:
    assert isinstance(op, memref.SubviewOp)
    buffer, *dynamic = args
    if any(np.ndim(a) for a in dynamic):
        raise Unsupported("memref.subview with offsets that differ between lanes")
    values = iter(dynamic)

    def mixed(static: Any) -> list[int]:
        return [
            int(next(values)) if v == builtin.DYNAMIC_INDEX else v
            for v in static.get_values()
        ]

    offsets, _sizes, steps = (
        mixed(op.static_offsets),
        mixed(op.static_sizes),
        mixed(op.static_strides),
    )
    result = op.result.type
    assert isinstance(result, builtin.MemRefType)
    kept = kept_dims(op.static_sizes.get_values(), result.get_shape())
    offset = buffer.offset + sum(
        o * s for o, s in zip(offsets, buffer.strides, strict=True)
    )
    strides = tuple(
        s * step
        for d, (s, step) in enumerate(zip(buffer.strides, steps, strict=True))
        if kept is None or d in kept
    )
    return Buffer(buffer.flat, offset, strides)


def run(module: builtin.ModuleOp, name: str, args: list[Any]) -> None:
    """Run host function @`name` of `module` on `args` (arrays changed in place)."""
    function = next(
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    reference = Reference()
    for arg, value in zip(function.body.blocks[0].args, args, strict=True):
        is_memref = isinstance(arg.type, builtin.MemRefType)
        reference.env[arg] = Buffer.of(value) if is_memref else value
    reference.run_block(function.body.blocks[0])


def _uses(value: SSAValue) -> list[Operation]:
    """The ops using `value` or a view of it (subview, cast, reinterpret_cast)."""
    found: list[Operation] = []
    for use in value.uses:
        found.append(use.operation)
        if use.operation.name in VIEWS:
            found += _uses(use.operation.results[0])
    return found


VIEWS = (
    "memref.subview",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.expand_shape",
    "memref.collapse_shape",
)


def arguments(
    module: builtin.ModuleOp, name: str, rng: np.random.Generator
) -> list[Any]:
    """Fresh arguments for host function @`name`: random arrays for the
    memrefs it reads, NaN for those it only writes (a dynamic size from the
    `memref.cast` to a static shape the function makes of it), random
    scalars."""
    function = next(
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    args: list[Any] = []
    for arg in function.body.blocks[0].args:
        kind = arg.type
        if not isinstance(kind, builtin.MemRefType):
            args.append(dtype(kind).type(rng.standard_normal()))
            continue
        shape = kind.get_shape()
        uses = _uses(arg)
        if builtin.DYNAMIC_INDEX in shape:
            casts = [
                u.results[0].type
                for u in uses
                if u.name == "memref.cast"
                and isinstance(u.results[0].type, builtin.MemRefType)
                and builtin.DYNAMIC_INDEX not in u.results[0].type.get_shape()
            ]
            if not casts:
                raise Unsupported(f"argument {arg.index}'s size")
            shape = casts[0].get_shape()  # type: ignore[union-attr]
        kind_of = dtype(kind.element_type)
        read = any(u.name == "memref.load" for u in uses)
        size = int(np.prod(shape))
        # Memory after the array, as an allocator may leave: xDSL's stencil
        # lowering takes views that reach past the end of a buffer (and
        # reads only inside it), which gpuc run makes while they stay in
        # memory.
        memory = np.full(2 * size, np.nan, kind_of)
        if read or kind_of.kind not in "fc":
            memory[:size] = rng.standard_normal(size)
        args.append(memory[:size].reshape(shape))
    return args


def copied(args: list[Any]) -> list[Any]:
    """A copy of `arguments`' arguments, each array with its memory after it."""
    found: list[Any] = []
    for a in args:
        if isinstance(a, np.ndarray) and isinstance(a.base, np.ndarray):
            a = a.base.copy()[: a.size].reshape(a.shape)
        elif isinstance(a, np.ndarray):
            a = a.copy()
        found.append(a)
    return found
