"""The pieces of vectors of several dimensions, for vector_unroll.py.

gpuc lowers 1-D vectors (gpuc/lowering/vector.py), so each n-D value becomes its
rows, each row split into 1-D vectors of 16, 8, 4 or 2 elements and a last
scalar (`vector_layout`): a vector<4x3xf32> is four vector<2xf32> and four
f32. `Unroller` holds the pieces of each unrolled value of a module while its
ops are rewritten, and moves elements between them: `element` takes one out,
`build` makes the pieces of a value from elements, reusing a piece that
lines up and splatting one that repeats a single element.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product
from math import prod

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, VectorType
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

WIDTHS = (16, 8, 4, 2)
"""The 1-D vector widths gpuc lowers on every target (SPIR-V: 2, 3, 4, 8, 16)."""


def is_nd(t: Attribute) -> bool:
    return isinstance(t, VectorType) and t.get_num_dims() >= 2


@cache
def vector_layout(t: Attribute) -> tuple[tuple[int, int], ...]:
    """The pieces of a value of type `t`, as (first element, width) in
    row-major order: a scalar or 1-D vector is one piece, an n-D vector its
    rows, each split into widths of WIDTHS and a last single element."""
    if not is_nd(t):
        return ((0, t.get_shape()[0] if isinstance(t, VectorType) else 1),)
    assert isinstance(t, VectorType)
    shape = t.get_shape()
    pieces: list[tuple[int, int]] = []
    for row in range(prod(shape[:-1])):
        start, left = row * shape[-1], shape[-1]
        while left:
            width = next((w for w in WIDTHS if w <= left), 1)
            pieces.append((start, width))
            start, left = start + width, left - width
    return tuple(pieces)


def piece_type(t: Attribute, width: int) -> Attribute:
    if not is_nd(t):
        return t
    assert isinstance(t, VectorType)
    element = t.get_element_type()
    return VectorType(element, [width]) if width > 1 else element


def element_type(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, VectorType) else t


def shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, VectorType) else ()


def flat(index: Sequence[int], dims: Sequence[int]) -> int:
    at = 0
    for i, d in zip(index, dims, strict=True):
        at = at * d + i
    return at


def points(dims: Sequence[int]) -> list[tuple[int, ...]]:
    return list(product(*(range(d) for d in dims)))


Element = SSAValue | tuple[SSAValue, int]
"""A scalar, or the element at a flat position of a (possibly unrolled) vector."""


class Unroller:
    """The pieces of each n-D value of one function while its ops are rewritten."""

    def __init__(self, rewritten: set[Operation]) -> None:
        self.rewritten = rewritten
        self.pieces: dict[SSAValue, list[SSAValue]] = {}
        self.virtual: dict[SSAValue, list[Element]] = {}
        """Results of element moves that only unrolled ops use: their
        elements, built only where an op needs the pieces (a vector<6xf32>
        between two shape_casts never is)."""
        self.dead_args: list[BlockArgument] = []
        self.at: Operation | None = None
        self.extracted: dict[tuple[SSAValue, int], SSAValue] = {}
        self.constants: dict[int, SSAValue] = {}

    def place(self, op: Operation) -> None:
        """Insert `op` before the op being rewritten, at its location."""
        assert self.at is not None
        op.location = self.at.location
        Rewriter.insert_op(op, InsertPoint.before(self.at))

    def emit(self, op: Operation) -> SSAValue:
        """`place` an op and return its result."""
        self.place(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        if value not in self.constants:
            self.constants[value] = self.emit(
                arith.ConstantOp(IntegerAttr(value, IndexType()))
            )
        return self.constants[value]

    def get(self, value: SSAValue) -> list[SSAValue]:
        """The pieces of `value` (itself, where it is not unrolled)."""
        if value in self.virtual:
            # Built where the value was defined, so that every later use
            # (in a loop or branch too) sees them.
            assert isinstance(value, OpResult)
            saved = self.at, self.extracted, self.constants
            self.at, self.extracted, self.constants = value.op, {}, {}
            self.pieces[value] = self.build(value.type, self.virtual.pop(value))
            self.at, self.extracted, self.constants = saved
        return self.pieces.get(value, [value])

    def resolve(self, ref: Element) -> Element:
        if isinstance(ref, tuple) and ref[0] in self.virtual:
            return self.virtual[ref[0]][ref[1]]
        return ref

    def element(self, ref: Element) -> SSAValue:
        """The scalar `ref` names (an extract from its piece, made once)."""
        ref = self.resolve(ref)
        if isinstance(ref, SSAValue):
            return ref
        value, at = ref
        if ref not in self.extracted:
            layout = vector_layout(value.type)
            k = next(k for k, (s, w) in enumerate(layout) if s <= at < s + w)
            piece = self.get(value)[k]
            if isinstance(piece.type, VectorType):
                t = element_type(piece.type)
                piece = self.emit(vector.ExtractOp(piece, [at - layout[k][0]], t))
            self.extracted[ref] = piece
        return self.extracted[ref]

    def build(self, t: Attribute, elements: Sequence[Element]) -> list[SSAValue]:
        """The pieces of a value of type `t` with these elements: a piece of
        an operand where one lines up, a splat where all are one scalar, else
        inserts of each element."""
        result: list[SSAValue] = []
        for start, width in vector_layout(t):
            refs = elements[start : start + width]
            result.append(self.piece(piece_type(t, width), refs))
        return result

    def piece(self, t: Attribute, refs: Sequence[Element]) -> SSAValue:
        refs = [self.resolve(r) for r in refs]
        first = refs[0]
        if not isinstance(t, VectorType):
            return self.element(first)
        if isinstance(first, tuple):
            value, at = first
            layout = vector_layout(value.type)
            if (at, len(refs)) in layout and refs == [
                (value, at + i) for i in range(len(refs))
            ]:
                found = self.get(value)[layout.index((at, len(refs)))]
                if found.type == t:
                    return found
        scalars = [self.element(r) for r in refs]
        built = self.emit(vector.BroadcastOp(scalars[0], t))
        for lane, scalar in enumerate(scalars):
            if scalar is not scalars[0]:
                built = self.emit(vector.InsertOp(scalar, built, [lane], t))
        return built

    def define(self, result: SSAValue, pieces: list[SSAValue]) -> None:
        """`result` is these pieces (one piece of its own type: that value)."""
        if is_nd(result.type):
            self.pieces[result] = pieces
        else:
            (value,) = pieces
            result.replace_all_uses_with(value)

    def elements(self, value: SSAValue) -> list[Element]:
        return [(value, i) for i in range(prod(shape(value.type)) or 1)]

    def flatten(self, values: Sequence[SSAValue]) -> list[SSAValue]:
        return [p for v in values for p in self.get(v)]

    def define_all(self, results: Sequence[SSAValue], new: Sequence[SSAValue]) -> None:
        """Each of `results` is its share of `new`, in order."""
        at = 0
        for result in results:
            count = len(vector_layout(result.type))
            self.define(result, list(new[at : at + count]))
            at += count
