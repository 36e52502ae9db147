"""Warp-level matrix ops (MLIR's `gpu.subgroup_mma_*`, CUDA's wmma): the
fragment type `!gpuc.fragment<16x16xf16, a>` and the ops that load, store,
multiply-accumulate, fill and combine fragments.

A fragment is one operand of `D = A * B + C` held by a whole subgroup; every
thread of the subgroup must reach a matrix op together, with the same
operands (as CUDA's wmma requires). How a fragment is spread over the
threads is the target's: the registers of NVVM's wmma intrinsics on ptx, a
copy of the whole tile in every thread elsewhere (docs/frontends.md, "Warp
matrices"). The shape is m16n16k16: A and B of f16, C and D of f16 or f32.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    IndexType,
    IntAttr,
    UnitAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from gpuc.dialects.attrs import AddressSpace, PtrType, parse_enum_keyword
from gpuc.dialects.index import require_function_ancestor
from gpuc.dialects.traits import ReadsKernelState


class MatrixOperand(StrEnum):
    """Which operand of `D = A * B + C` a fragment holds (D is a C)."""

    A = auto()
    B = auto()
    C = auto()


@irdl_attr_definition
class MatrixOperandAttr(EnumAttribute[MatrixOperand], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.matrix_operand"


TILE = 16
"""The m, n and k of the one supported shape, m16n16k16."""
SUPPORTED = (
    "m16n16k16: !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b> and "
    "!gpuc.fragment<16x16xf16, c> or !gpuc.fragment<16x16xf32, c>"
)
MATRIX_SPACES = (AddressSpace.GLOBAL, AddressSpace.SHARED, AddressSpace.GENERIC)
"""Where a fragment is loaded from and stored to (wmma's state spaces)."""


def fragment_problem(
    rows: int, cols: int, element: Attribute, operand: MatrixOperand
) -> str | None:
    """Why a fragment of this shape cannot be had, if it cannot."""
    elements: tuple[type[Attribute], ...] = (
        (Float16Type, Float32Type) if operand is MatrixOperand.C else (Float16Type,)
    )
    if (rows, cols) == (TILE, TILE) and isinstance(element, elements):
        return None
    return (
        f"a {rows}x{cols}x{element} fragment of operand {operand.value} is not "
        f"supported; the supported shape is {SUPPORTED}"
    )


@irdl_attr_definition
class FragmentType(ParametrizedAttribute, TypeAttribute):
    """`!gpuc.fragment<16x16xf32, c>`: a `rows` x `cols` tile of `element`,
    operand `operand` of a subgroup's multiply-accumulate."""

    name = "gpuc.fragment"

    rows: IntAttr
    cols: IntAttr
    element: Attribute
    operand: MatrixOperandAttr

    def __init__(
        self, rows: int, cols: int, element: Attribute, operand: MatrixOperand
    ):
        super().__init__(
            IntAttr(rows), IntAttr(cols), element, MatrixOperandAttr(operand)
        )

    @property
    def kind(self) -> MatrixOperand:
        return self.operand.data

    @property
    def count(self) -> int:
        """The tile's number of elements."""
        return self.rows.data * self.cols.data

    def verify(self) -> None:
        problem = fragment_problem(
            self.rows.data, self.cols.data, self.element, self.kind
        )
        if problem is not None:
            raise VerifyException(problem)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pos = parser.pos
        shape = parser.parse_shape()
        dims, element = shape
        if dims is None or len(dims) != 2 or min(dims) < 1:
            parser.raise_error(
                "a fragment has two static dimensions, such as 16x16xf16", pos
            )
        parser.parse_punctuation(",")
        operand = parse_enum_keyword(parser, MatrixOperand, "matrix operand")
        parser.parse_punctuation(">")
        return (IntAttr(dims[0]), IntAttr(dims[1]), element, MatrixOperandAttr(operand))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.rows.data}x{self.cols.data}x")
        printer.print_attribute(self.element)
        printer.print_string(f", {self.kind.value}>")


class ElementwiseKind(StrEnum):
    """What `gpuc.matrix_elementwise` computes in each element (MLIR's
    `MMAElementwiseOp` on floats)."""

    ADDF = auto()
    SUBF = auto()
    MULF = auto()
    DIVF = auto()
    MAXF = auto()
    MINF = auto()
    NEGATEF = auto()
    EXTF = auto()


UNARY_KINDS = frozenset({ElementwiseKind.NEGATEF, ElementwiseKind.EXTF})


@irdl_attr_definition
class ElementwiseKindAttr(EnumAttribute[ElementwiseKind], SpacedOpaqueSyntaxAttribute):
    name = "gpuc.elementwise_kind"


def fragment_of(value: SSAValue) -> FragmentType:
    """The type of `value`, a fragment."""
    assert isinstance(value.type, FragmentType)
    return value.type


def _check_memory(fragment: FragmentType, ptr: SSAValue) -> None:
    """A fragment's memory: a pointer to its element type in a wmma space."""
    ty = ptr.type
    if not isinstance(ty, PtrType):
        raise VerifyException(f"the matrix's memory is {ty}, not a !gpuc.ptr")
    if ty.element != fragment.element:
        raise VerifyException(
            f"the matrix's memory holds {ty.element} but the fragment "
            f"{fragment} holds {fragment.element}; they must be the same"
        )
    if ty.address_space not in MATRIX_SPACES:
        spaces = ", ".join(s.value for s in MATRIX_SPACES)
        raise VerifyException(
            f"the matrix's memory is in {ty.address_space.value} memory; a "
            f"fragment is loaded from and stored to {spaces} memory"
        )


@irdl_op_definition
class MatrixLoadOp(IRDLOperation):
    """`%a = gpuc.matrix_load %p[%i], %stride : !gpuc.ptr<f16, global> ->
    !gpuc.fragment<16x16xf16, a>`: the subgroup loads the tile whose element
    (r, c) is `%p[%i + r * %stride + c]` (`transpose`: `%p[%i + c * %stride +
    r]`)."""

    name = "gpuc.matrix_load"
    ptr = operand_def(PtrType)
    index = operand_def(IndexType)
    stride = operand_def(IndexType)
    transpose = opt_prop_def(UnitAttr)
    result = result_def(FragmentType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$ptr `[` $index `]` `,` $stride (`transpose` $transpose^)? attr-dict `:` "
        "type($ptr) `->` type($result)"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        index: SSAValue | Operation,
        stride: SSAValue | Operation,
        fragment: FragmentType,
        transpose: bool = False,
    ):
        super().__init__(
            operands=[ptr, index, stride],
            result_types=[fragment],
            properties={"transpose": UnitAttr()} if transpose else {},
        )

    @property
    def fragment(self) -> FragmentType:
        return fragment_of(self.result)

    def verify_(self) -> None:
        require_function_ancestor(self)
        _check_memory(self.fragment, self.ptr)


@irdl_op_definition
class MatrixStoreOp(IRDLOperation):
    """`gpuc.matrix_store %d, %p[%i], %stride : !gpuc.fragment<16x16xf32, c>,
    !gpuc.ptr<f32, global>`: the subgroup stores the accumulator tile, element
    (r, c) to `%p[%i + r * %stride + c]` (`transpose`: `%p[%i + c * %stride +
    r]`)."""

    name = "gpuc.matrix_store"
    value = operand_def(FragmentType)
    ptr = operand_def(PtrType)
    index = operand_def(IndexType)
    stride = operand_def(IndexType)
    transpose = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryWriteEffect(), ReadsKernelState())
    assembly_format = (
        "$value `,` $ptr `[` $index `]` `,` $stride (`transpose` $transpose^)? "
        "attr-dict `:` type($value) "
        "`,` type($ptr)"
    )

    def __init__(
        self,
        value: SSAValue | Operation,
        ptr: SSAValue | Operation,
        index: SSAValue | Operation,
        stride: SSAValue | Operation,
        transpose: bool = False,
    ):
        super().__init__(
            operands=[value, ptr, index, stride],
            properties={"transpose": UnitAttr()} if transpose else {},
        )

    @property
    def fragment(self) -> FragmentType:
        return fragment_of(self.value)

    def verify_(self) -> None:
        require_function_ancestor(self)
        if self.fragment.kind is not MatrixOperand.C:
            raise VerifyException(
                f"stores {self.fragment}; only accumulator fragments (operand c, "
                "what gpuc.matrix_mma returns) are stored"
            )
        _check_memory(self.fragment, self.ptr)


ACCUMULATOR = VarConstraint("ACCUMULATOR", base(FragmentType))
"""C and D of a multiply-accumulate have one type."""


@irdl_op_definition
class MatrixMmaOp(IRDLOperation):
    """`%d = gpuc.matrix_mma %a, %b, %c : !gpuc.fragment<16x16xf16, a>,
    !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>`: `D = A * B +
    C`. `a_transpose` (`b_transpose`) says that A (B) was loaded with
    `transpose`, as the hardware's operand layouts need."""

    name = "gpuc.matrix_mma"
    a = operand_def(FragmentType)
    b = operand_def(FragmentType)
    c = operand_def(ACCUMULATOR)
    a_transpose = opt_prop_def(UnitAttr)
    b_transpose = opt_prop_def(UnitAttr)
    result = result_def(ACCUMULATOR)
    traits = traits_def(Pure())
    assembly_format = (
        "$a `,` $b `,` $c (`a_transpose` $a_transpose^)? "
        "(`b_transpose` $b_transpose^)? attr-dict `:` type($a) `,` type($b) `,` "
        "type($c)"
    )

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        a_transpose: bool = False,
        b_transpose: bool = False,
    ):
        flags = {"a_transpose": a_transpose, "b_transpose": b_transpose}
        super().__init__(
            operands=[a, b, c],
            result_types=[SSAValue.get(c).type],
            properties={name: UnitAttr() for name, on in flags.items() if on},
        )

    def verify_(self) -> None:
        a, b, c = (fragment_of(v) for v in (self.a, self.b, self.c))
        for name, fragment, kind in (
            ("A", a, MatrixOperand.A),
            ("B", b, MatrixOperand.B),
            ("C", c, MatrixOperand.C),
        ):
            if fragment.kind is not kind:
                raise VerifyException(
                    f"takes {fragment} as {name}; {name} is a fragment of "
                    f"operand {kind.value}"
                )
        if a.element != b.element:
            raise VerifyException(
                f"multiplies {a.element} by {b.element}; A and B hold the same type"
            )
        if (a.cols, b.rows, a.rows, b.cols) != (b.rows, a.cols, c.rows, c.cols):
            raise VerifyException(
                f"multiplies {a.rows.data}x{a.cols.data} by {b.rows.data}x"
                f"{b.cols.data} into {c.rows.data}x{c.cols.data}; A is MxK, B KxN "
                "and C MxN"
            )
        if self.result.type != c:
            raise VerifyException(
                f"returns {self.result.type} but accumulates into {c}; D has C's type"
            )
        for name, value, flag in (
            ("A", self.a, self.a_transpose),
            ("B", self.b, self.b_transpose),
        ):
            load = value.owner
            if isinstance(load, MatrixLoadOp) and (load.transpose is None) != (
                flag is None
            ):
                loaded = "with" if load.transpose is not None else "without"
                attr = f"{name.lower()}_transpose"
                fix = "add" if flag is None else "remove"
                raise VerifyException(
                    f"{name} was loaded {loaded} transpose but the op "
                    f"{'lacks' if flag is None else 'has'} {attr}; {fix} {attr} "
                    "(it says how A and B were loaded)"
                )


@irdl_op_definition
class MatrixSplatOp(IRDLOperation):
    """`%c = gpuc.matrix_splat %x : f32 -> !gpuc.fragment<16x16xf32, c>`: a fragment
    whose every element is `%x` (MLIR's `gpu.subgroup_mma_constant_matrix`)."""

    name = "gpuc.matrix_splat"
    value = operand_def()
    result = result_def(FragmentType)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($value) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, fragment: FragmentType):
        super().__init__(operands=[value], result_types=[fragment])

    def verify_(self) -> None:
        fragment = fragment_of(self.result)
        if self.value.type != fragment.element:
            raise VerifyException(
                f"fills {fragment} with a {self.value.type}; the value is a "
                f"{fragment.element}"
            )


@irdl_op_definition
class MatrixElementwiseOp(IRDLOperation):
    """`%r = gpuc.matrix_elementwise addf %x, %y : !gpuc.fragment<16x16xf32, c>,
    !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>`: the kind
    applied to each element (MLIR's `gpu.subgroup_mma_elementwise`; maxf and
    minf return NaN where an operand is NaN, as MLIR's lowering does; extf
    widens an f16 fragment to f32)."""

    name = "gpuc.matrix_elementwise"
    kind = prop_def(ElementwiseKindAttr)
    args = var_operand_def(FragmentType)
    result = result_def(FragmentType)
    traits = traits_def(Pure())
    assembly_format = "$kind $args attr-dict `:` type($args) `->` type($result)"

    def __init__(
        self,
        kind: ElementwiseKind,
        args: Sequence[SSAValue | Operation],
        result: FragmentType,
    ):
        super().__init__(
            operands=[args],
            result_types=[result],
            properties={"kind": ElementwiseKindAttr(kind)},
        )

    def verify_(self) -> None:
        kind = self.kind.data
        arity = 1 if kind in UNARY_KINDS else 2
        if len(self.args) != arity:
            raise VerifyException(
                f"{kind.value} takes {arity} operand{'s' if arity > 1 else ''}, "
                f"not {len(self.args)}"
            )
        first = fragment_of(self.args[0])
        for arg in self.args[1:]:
            if arg.type != first:
                raise VerifyException(
                    f"combines {first} with {arg.type}; the operands have one type"
                )
        result = fragment_of(self.result)
        expected = first
        if kind is ElementwiseKind.EXTF:
            if not isinstance(first.element, Float16Type):
                raise VerifyException(
                    f"extf widens an f16 fragment to f32, not {first}"
                )
            expected = FragmentType(
                first.rows.data, first.cols.data, Float32Type(), first.kind
            )
        if result != expected:
            raise VerifyException(
                f"{kind.value} of {first} returns {expected}, not {result}"
            )


MATRIX_OPS = (
    MatrixLoadOp,
    MatrixStoreOp,
    MatrixMmaOp,
    MatrixSplatOp,
    MatrixElementwiseOp,
)
"""The ops that use fragments (a function reaching one uses fragments)."""
