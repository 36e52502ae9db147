"""What a Python kernel's expressions evaluate to, and the type rules.

A value is a `Const` (a Python literal, folded while it meets only
literals), a `Scalar` (an SSA value of a dtype), an `ArrayValue` (a memref
view with its shape and strides), a `TupleValue`, or a `PyObj` (a Python
object the kernel names: a dtype, a module, a device function). `Builder`
emits ops at the current Python line and holds the conversions: the
implicit ones of binary operations (docs/python.md, "Types") and the
explicit casts a dtype call writes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gpuc.python.source import FunctionSource, KernelError
from gpuc.python.types import DType, boolean, f32, i64, index

PyConst = int | float | bool


@dataclass(frozen=True, eq=False)
class Const:
    value: PyConst

    @property
    def dtype(self) -> DType:
        """The type a literal takes when nothing else decides."""
        if isinstance(self.value, bool):
            return boolean
        return index if isinstance(self.value, int) else f32


@dataclass(frozen=True, eq=False)
class Scalar:
    ssa: SSAValue
    dtype: DType


@dataclass(frozen=True, eq=False)
class ArrayValue:
    """An array: `view` is the n-D memref the kernel indexes; `base` the 1-D
    memref under it, with `offset`, `shape` and `strides` in elements (what a
    device function call passes)."""

    view: SSAValue
    base: SSAValue | None
    """None for a shared or local allocation (the view is its own base)."""
    dtype: DType
    offset: Value
    shape: tuple[Value, ...]
    strides: tuple[Value, ...]
    space: str
    """"global", "shared" or "local"."""


@dataclass(frozen=True, eq=False)
class TupleValue:
    items: tuple[Value, ...]


@dataclass(frozen=True, eq=False)
class PyObj:
    obj: Any


@dataclass(frozen=True, eq=False)
class Undefined:
    """A name that is not defined here, and why (for the diagnostic)."""

    reason: str


Value = Const | Scalar | ArrayValue | TupleValue | PyObj

INT_KINDS = ("int", "index")


def describe(v: Value) -> str:
    if isinstance(v, Scalar):
        return v.dtype.name
    if isinstance(v, Const):
        return f"the literal {v.value!r}"
    if isinstance(v, ArrayValue):
        return f"an array of {v.dtype.name}"
    if isinstance(v, TupleValue):
        return "a tuple"
    return repr(v.obj)


_CONSTANTS: dict[tuple[type, PyConst | str, DType], IntegerAttr | FloatAttr] = {}


def constant_attr(value: PyConst, dtype: DType) -> IntegerAttr | FloatAttr:
    """The `arith.constant` value of a literal as `dtype`, made once per value
    and type (attributes are immutable; a kernel's compiles make the same few
    again and again). The key holds the value's type (1, 1.0 and True are
    equal in Python) and a float's exact spelling (so are 0.0 and -0.0)."""
    key = (type(value), value.hex() if isinstance(value, float) else value, dtype)
    found = _CONSTANTS.get(key)
    if found is not None:
        return found
    attr: IntegerAttr | FloatAttr
    if dtype.kind == "float":
        attr = FloatAttr(float(value), dtype.float_type())
    else:
        number = int(value)
        if dtype.kind == "bool":
            number = -1 if number else 0
        t = IndexType() if dtype.kind == "index" else dtype.int_type()
        attr = IntegerAttr(number, t)
    if len(_CONSTANTS) < 4096:
        _CONSTANTS[key] = attr
    return attr


class Builder:
    """Emits ops into `block`, located at `node`, the Python node being
    compiled."""

    def __init__(self, source: FunctionSource, block: Block) -> None:
        self.source = source
        self.block = block
        self.node: ast.AST = source.tree

    def error(self, message: str, node: ast.AST | None = None) -> KernelError:
        return self.source.error(node or self.node, message)

    def location(self) -> FileLineColLoc:
        node = self.node
        key = (
            getattr(node, "lineno", self.source.tree.lineno),
            getattr(node, "col_offset", 0),
        )
        made: FileLineColLoc | None = self.source.locations.get(key)
        if made is None:
            where = self.source.where(node)
            made = FileLineColLoc(
                StringAttr(where.file), IntAttr(where.line), IntAttr(where.col)
            )
            self.source.locations[key] = made
        return made

    def emit(self, op: Operation) -> Operation:
        op.location = self.location()
        self.block.add_op(op)
        return op

    def result(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    def constant(self, value: PyConst, dtype: DType) -> Scalar:
        attr = constant_attr(value, dtype)
        op = arith.ConstantOp.create(
            properties={"value": attr}, result_types=[attr.type]
        )
        return Scalar(self.result(op), dtype)

    def scalar(self, v: Value, dtype: DType | None = None, what: str = "") -> Scalar:
        """`v` as a scalar (of `dtype`, converting a literal to it)."""
        if isinstance(v, Const):
            target = dtype or v.dtype
            if target.kind in INT_KINDS and isinstance(v.value, float):
                raise self.error(
                    f"{what or 'the value'} is the float {v.value!r} where "
                    f"{target.name} is needed; write an integer or {target.name}(...)"
                )
            if target.kind == "bool" and not isinstance(v.value, bool):
                return self.constant(bool(v.value), boolean)
            return self.constant(v.value, target)
        if not isinstance(v, Scalar):
            raise self.error(
                f"{what or 'this'} is {describe(v)}, where a scalar is needed"
            )
        if dtype is not None and v.dtype is not dtype:
            return self.implicit(v, dtype, what)
        return v

    def implicit(self, v: Scalar, to: DType, what: str = "") -> Scalar:
        """The conversions that need no cast: index and sized integers mix,
        a narrower integer widens."""
        if v.dtype is to:
            return v
        if v.dtype.kind in INT_KINDS and to.kind in INT_KINDS:
            if to.kind == "index" or v.dtype.kind == "index" or to.bits >= v.dtype.bits:
                return self.cast(v, to)
        raise self.error(
            f"{what or 'the value'} is {v.dtype.name} where {to.name} is needed; "
            f"write gpuc.{to.name}(...) to convert it"
        )

    def index(self, v: Value, what: str) -> Scalar:
        """`v` as an index (array indices, range bounds, sizes)."""
        if isinstance(v, Scalar) and v.dtype.kind == "bool":
            raise self.error(f"{what} is a bool; an integer is needed")
        if isinstance(v, Scalar) and v.dtype.kind == "float":
            raise self.error(
                f"{what} is {v.dtype.name}; an integer is needed (gpuc.i32(...) "
                "converts a float)"
            )
        return self.scalar(v, index, what)

    def cast(self, v: Scalar, to: DType) -> Scalar:
        """Any scalar to any dtype (`gpuc.f32(v)`), as C converts."""
        src = v.dtype
        ssa = v.ssa
        if src is to:
            return v
        if src.kind == "bool":
            if to.kind == "float":
                return Scalar(self.result(arith.UIToFPOp(ssa, to.float_type())), to)
            if to.kind == "index":
                ssa = self.result(arith.ExtUIOp(ssa, i64.int_type()))
                return Scalar(self.result(arith.IndexCastOp(ssa, to.mlir())), to)
            return Scalar(self.result(arith.ExtUIOp(ssa, to.int_type())), to)
        if to.kind == "bool":
            zero = self.constant(0, src)
            if src.kind == "float":
                return Scalar(self.result(arith.CmpfOp(ssa, zero.ssa, "une")), to)
            return Scalar(self.result(arith.CmpiOp(ssa, zero.ssa, "ne")), to)
        if src.kind == "index" or to.kind == "index":
            if src.kind == "float":
                ssa = self.result(arith.FPToSIOp(ssa, i64.int_type()))
                src = i64
            if to.kind == "float":
                ssa = self.result(arith.IndexCastOp(ssa, i64.mlir()))
                return Scalar(self.result(arith.SIToFPOp(ssa, to.float_type())), to)
            if src is to:
                return Scalar(ssa, to)
            return Scalar(self.result(arith.IndexCastOp(ssa, to.mlir())), to)
        if src.kind == "int" and to.kind == "int":
            op: Operation = (
                arith.ExtSIOp(ssa, to.int_type())
                if to.bits > src.bits
                else arith.TruncIOp(ssa, to.int_type())
            )
            return Scalar(self.result(op), to)
        if src.kind == "int":
            return Scalar(self.result(arith.SIToFPOp(ssa, to.float_type())), to)
        if to.kind == "int":
            return Scalar(self.result(arith.FPToSIOp(ssa, to.int_type())), to)
        if to.bits > src.bits or (src.name == "f16" and to.name == "bf16"):
            if {src.name, to.name} == {"f16", "bf16"}:
                ssa = self.result(arith.ExtFOp(ssa, f32.mlir()))
                return Scalar(self.result(arith.TruncFOp(ssa, to.mlir())), to)
            return Scalar(self.result(arith.ExtFOp(ssa, to.mlir())), to)
        if {src.name, to.name} == {"f16", "bf16"}:
            ssa = self.result(arith.ExtFOp(ssa, f32.mlir()))
            return Scalar(self.result(arith.TruncFOp(ssa, to.mlir())), to)
        return Scalar(self.result(arith.TruncFOp(ssa, to.mlir())), to)

    def explicit(self, v: Value, to: DType) -> Value:
        """`gpuc.T(v)`: a literal stays a literal of that type's kind."""
        if isinstance(v, Const):
            if to.kind == "float":
                return self.constant(float(v.value), to)
            if to.kind == "bool":
                return self.constant(bool(v.value), to)
            return self.constant(int(v.value), to)
        return self.cast(self.scalar(v, what=f"the argument of gpuc.{to.name}"), to)

    def common(self, a: Value, b: Value, what: str) -> DType:
        """The dtype two operands meet at (at least one not a literal)."""
        if isinstance(a, Const):
            a, b = b, a
        if not isinstance(a, Scalar):
            raise self.error(f"{what}: an operand is {describe(a)}, not a scalar")
        if isinstance(b, Const):
            if a.dtype.kind in INT_KINDS and isinstance(b.value, float):
                raise self.error(
                    f"{what} mixes {a.dtype.name} and the float literal "
                    f"{b.value!r}; write gpuc.f32(...) around the {a.dtype.name} "
                    "operand"
                )
            return a.dtype
        if not isinstance(b, Scalar):
            raise self.error(f"{what}: an operand is {describe(b)}, not a scalar")
        x, y = a.dtype, b.dtype
        if x is y:
            return x
        if x.kind in INT_KINDS and y.kind in INT_KINDS:
            if "index" in (x.kind, y.kind):
                return index
            return x if x.bits >= y.bits else y
        if x.kind == "float" and y.kind == "float":
            wide = x if x.bits >= y.bits else y
            raise self.error(
                f"{what} mixes {x.name} and {y.name}; convert one operand, "
                f"e.g. gpuc.{wide.name}(...)"
            )
        if "bool" in (x.kind, y.kind):
            raise self.error(
                f"{what} mixes {x.name} and {y.name}; convert the bool with "
                f"gpuc.{(y if x.kind == 'bool' else x).name}(...)"
            )
        integer, real = (x, y) if x.kind in INT_KINDS else (y, x)
        raise self.error(
            f"{what} mixes {integer.name} and {real.name}; write "
            f"gpuc.{real.name}(...) around the {integer.name} operand"
        )


def memory_space(space: str) -> Attribute:
    """The memref memory space of an array in `space` (global, shared, local)."""
    from xdsl.dialects.builtin import NoneAttr

    from gpuc.dialects.foreign.gpu import GPUAddressSpace, GPUAddressSpaceAttr

    if space == "global":
        return NoneAttr()
    keyword = (
        GPUAddressSpace.WORKGROUP if space == "shared" else GPUAddressSpace.PRIVATE
    )
    return GPUAddressSpaceAttr(keyword)
