"""The types of Python kernels: scalar dtypes (each also its own cast,
`gpuc.f32(v)`), `gpuc.Array[dtype, ndim]` and `gpuc.constexpr`.

These objects are what a kernel's annotations and calls name; the frontend
reads them from the function's globals. Importing this module imports
neither xDSL nor numpy: `@gpuc.kernel` on a function costs nothing until it
is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from xdsl.dialects.builtin import AnyFloat, IntegerType
    from xdsl.ir import Attribute


@dataclass(frozen=True, eq=False)
class DType:
    """A scalar type: `kind` is "int", "float", "bool" or "index"."""

    name: str
    kind: str
    bits: int

    @property
    def numpy(self) -> str:
        """The numpy dtype name of a value of this type."""
        if self.kind in ("bool", "index"):
            return {"bool": "bool", "index": "int64"}[self.kind]
        prefix = {"f": "float", "i": "int", "b": "uint"}[self.name[0]]
        return f"{prefix}{self.bits}"  # bf16 travels as its 16 bits

    def mlir(self) -> Attribute:
        from xdsl.dialects.builtin import (
            BFloat16Type,
            Float16Type,
            Float32Type,
            Float64Type,
            IndexType,
            IntegerType,
        )

        if self.kind == "index":
            return IndexType()
        if self.kind in ("int", "bool"):
            return IntegerType(self.bits)
        if self.name == "f16":
            return Float16Type()
        if self.name == "bf16":
            return BFloat16Type()
        return Float32Type() if self.name == "f32" else Float64Type()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled by name: each type is one object (`eq=False`), and the copy
        must be that object."""
        return dtype_named, (self.name,)

    def float_type(self) -> AnyFloat:
        """The MLIR type of a float dtype."""
        t = self.mlir()
        assert self.kind == "float"
        return cast("AnyFloat", t)

    def int_type(self) -> IntegerType:
        """The MLIR type of a sized integer or bool dtype."""
        from xdsl.dialects.builtin import IntegerType

        assert self.kind in ("int", "bool")
        return IntegerType(self.bits)

    def __call__(self, value: Any) -> Any:
        """Outside a kernel, a cast is numpy's: `gpuc.f32(2)` is np.float32(2)."""
        import numpy as np

        if self.name == "bf16":
            raise TypeError("gpuc.bf16(...) converts values only inside a kernel")
        return np.dtype(self.numpy).type(value)

    def __repr__(self) -> str:
        return f"gpuc.{self.name}"


f16 = DType("f16", "float", 16)
bf16 = DType("bf16", "float", 16)
f32 = DType("f32", "float", 32)
f64 = DType("f64", "float", 64)
i8 = DType("i8", "int", 8)
i16 = DType("i16", "int", 16)
i32 = DType("i32", "int", 32)
i64 = DType("i64", "int", 64)
index = DType("index", "index", 64)
boolean = DType("bool", "bool", 1)

DTYPES = {t.name: t for t in (f16, bf16, f32, f64, i8, i16, i32, i64, index, boolean)}


def dtype_named(name: str) -> DType:
    """The scalar type called `name` (how a pickled DType comes back)."""
    return DTYPES[name]


@dataclass(frozen=True)
class ArrayType:
    """`gpuc.Array[dtype, ndim]`: an n-D array parameter (1 to 3 dimensions)
    that knows its shape and strides."""

    dtype: DType
    ndim: int

    def __repr__(self) -> str:
        return f"gpuc.Array[{self.dtype!r}, {self.ndim}]"


class _ArrayFactory:
    """`gpuc.Array[dtype, ndim]`."""

    def __getitem__(self, key: tuple[DType, int]) -> ArrayType:
        if (
            not isinstance(key, tuple)
            or len(key) != 2
            or not isinstance(key[0], DType)
            or not isinstance(key[1], int)
            or not 1 <= key[1] <= 3
        ):
            raise TypeError(
                "write gpuc.Array[dtype, ndim] with a gpuc dtype and 1 to 3 "
                f"dimensions, got gpuc.Array[{key!r}]"
            )
        return ArrayType(key[0], key[1])

    def __repr__(self) -> str:
        return "gpuc.Array"


Array = _ArrayFactory()


class _Constexpr:
    """`gpuc.constexpr`: a parameter whose value, given at launch, is compiled
    into the kernel (one compiled variant per value), as Triton's."""

    def __repr__(self) -> str:
        return "gpuc.constexpr"


constexpr = _Constexpr()
