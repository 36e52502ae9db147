"""One Python function compiled into a `func.func`: its parameters (an
array is its buffer, offset, shape and strides), its body, its return.

A kernel's `Array[T, n]` parameter `x` is passed as `x: memref<?xT>` (the
buffer from the first element the view reaches), then `x_offset`,
`x_shape0..`, `x_stride0..` (index, in elements); the kernel indexes the
`memref.reinterpret_cast` of the buffer to that view. A device function takes
arrays the same way, its buffer in the caller's memory space.
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    MemRefType,
    StridedLayoutAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Region

from gpuc.python.calls import Calls
from gpuc.python.loops import RESULT, RETURNED
from gpuc.python.source import KernelError
from gpuc.python.types import ArrayType, DType, index
from gpuc.python.values import ArrayValue, Const, PyObj, Scalar, Value, memory_space

if TYPE_CHECKING:
    from gpuc.python.decorators import PyFunction
    from gpuc.python.module import ModuleBuilder

CAPTURABLE = (bool, int, float)


class FunctionCompiler(Calls):
    def __init__(self, unit: ModuleBuilder, fn: PyFunction) -> None:
        super().__init__(fn.source, Block())
        self.unit = unit
        self.fn = fn
        self.env = {}

    def lookup_global(self, name: str, node: ast.AST) -> Value:
        found, value = self.fn.lookup(name)
        if not found:
            if hasattr(builtins, name):
                return PyObj(getattr(builtins, name))
            raise self.error(f"name '{name}' is not defined", node)
        original = value
        if (
            hasattr(value, "item")
            and hasattr(value, "dtype")
            and getattr(value, "shape", None) == ()
        ):
            value = value.item()  # a numpy scalar
        if isinstance(value, CAPTURABLE) or (
            isinstance(value, tuple) and all(isinstance(v, CAPTURABLE) for v in value)
        ):
            self.unit.captured[self.fn, name] = original
            return self.python_value(value, name)
        from types import ModuleType

        from gpuc.python.decorators import PyFunction

        if (
            isinstance(value, ModuleType | DType | PyFunction)
            or getattr(value, "_gpuc_intrinsic", None)
            or type(value).__name__ in ("_ArrayFactory", "_Constexpr")
            or getattr(value, "__module__", None) == "math"
            or value in vars(builtins).values()
        ):
            return PyObj(value)
        raise self.error(
            f"'{name}' is {type(value).__name__!r}; a kernel reads module-level "
            "numbers and tuples of numbers (as constants), dtypes, modules and "
            "@gpuc.func functions, not other Python objects",
            node,
        )

    def compile(
        self, symbol: str, spaces: tuple[str, ...], constexprs: dict[str, object]
    ) -> func.FuncOp:
        tree = self.source.tree
        kernel = self.fn.is_kernel
        inputs: list[Attribute] = []
        names: list[str] = []
        layout: list[tuple[str, Any, ast.arg]] = []
        arrays = iter(spaces)
        for name, ptype, node in self.fn.parameters():
            layout.append((name, ptype, node))
            if isinstance(ptype, ArrayType):
                space = "global" if kernel else next(arrays)
                n = ptype.ndim
                inputs.append(
                    MemRefType(
                        ptype.dtype.mlir(),
                        [DYNAMIC_INDEX],
                        memory_space=memory_space(space),
                    )
                )
                inputs += [IndexType()] * (1 + 2 * n)
                names += [name, f"{name}_offset"]
                names += [f"{name}_shape{d}" for d in range(n)]
                names += [f"{name}_stride{d}" for d in range(n)]
            elif isinstance(ptype, DType):
                inputs.append(ptype.mlir())
                names.append(name)
        block = Block(arg_types=inputs)
        for arg, name in zip(block.args, names, strict=True):
            arg.name_hint = name
        self.block = block
        args = iter(block.args)
        arrays = iter(spaces)
        for name, ptype, node in layout:
            self.node = node
            if isinstance(ptype, ArrayType):
                space = "global" if kernel else next(arrays)
                base = next(args)
                offset = Scalar(next(args), index)
                shape = tuple(Scalar(next(args), index) for _ in range(ptype.ndim))
                given: tuple[Value, ...] = tuple(
                    Scalar(next(args), index) for _ in range(ptype.ndim)
                )
                if kernel and not self.unit.strided:
                    # The variant for arrays whose elements are consecutive
                    # along the last dimension (launch.py picks it): its
                    # stride is a constant, so accesses vectorize.
                    given = (*given[:-1], Const(1))
                self.env[name] = self.view(
                    base, ptype.dtype, offset, shape, given, space
                )
            elif isinstance(ptype, DType):
                self.env[name] = Scalar(next(args), ptype)
            else:
                value = constexprs.get(name)
                if not isinstance(value, CAPTURABLE):
                    raise self.error(
                        f"constexpr parameter '{name}' needs a value (an int, float "
                        f"or bool) at compile time, got {value!r}",
                        node,
                    )
                self.env[name] = Const(value)
        self.node = tree
        self.env[RETURNED] = Const(False)
        result = self.fn.result_type()
        self.result_type = result
        if result is not None:
            self.env[RESULT] = self.constant(0, result)
        self.body(tree.body)
        self.node = tree
        outputs = [self.scalar(self.env[RESULT], result).ssa] if result else []  # type: ignore[arg-type]
        self.emit(func.ReturnOp(*outputs))
        op = func.FuncOp(
            symbol,
            (inputs, [result.mlir()] if result else []),
            Region(block),
            visibility=None if kernel else "private",
        )
        op.location = self.location()
        if kernel:
            op.attributes["gpu.kernel"] = UnitAttr()
        elif self.fn.inline is not None:
            attr = (
                "llvm.always_inline" if self.fn.inline == "always" else "llvm.no_inline"
            )
            op.attributes[attr] = UnitAttr()
        return op

    def view(
        self,
        base: Any,
        dtype: DType,
        offset: Scalar,
        shape: tuple[Scalar, ...],
        strides: tuple[Value, ...],
        space: str,
    ) -> ArrayValue:
        """The n-D view of `base`; a literal stride is static in its type."""
        n = len(shape)
        static = [
            int(s.value) if isinstance(s, Const) else DYNAMIC_INDEX for s in strides
        ]
        t = MemRefType(
            dtype.mlir(),
            [DYNAMIC_INDEX] * n,
            StridedLayoutAttr(
                [None if s == DYNAMIC_INDEX else s for s in static], None
            ),
            memory_space(space),
        )
        op = memref.ReinterpretCastOp(
            base,
            [offset.ssa],
            [s.ssa for s in shape],
            [s.ssa for s in strides if isinstance(s, Scalar)],
            [DYNAMIC_INDEX],
            [DYNAMIC_INDEX] * n,
            static,
            t,
        )
        view = self.result(op)
        # x.strides reads index values in both variants (a literal 1 in one
        # would type differently from the other's parameter).
        known = tuple(self.index(s, "a stride") for s in strides)
        return ArrayValue(view, base, dtype, offset, shape, known, space)


def checked_constexprs(fn: PyFunction, values: dict[str, object]) -> None:
    wanted = {
        name for name, t, _ in fn.parameters() if not isinstance(t, DType | ArrayType)
    }
    unknown = set(values) - wanted
    if unknown:
        raise KernelError(
            fn.source.where(fn.source.tree),
            f"{fn.name} has no constexpr parameter {', '.join(sorted(unknown))}",
        )
