"""Calls in a Python kernel: dtype casts, gpuc's intrinsics (indices,
barrier, shared and local arrays, atomics, subgroup operations), `min`,
`max`, `abs`, `print`, the `math` module, and device functions.

Each becomes a standard op where one exists (gpu, memref, arith, math;
MLIR's `memref.generic_atomic_rmw` for a compare-and-swap); gpuc ops where
none does: `gpuc.vote`, `gpuc.ballot`. Calls of other functions (device
functions, deferred jobs) are jobs.py's.
"""

from __future__ import annotations

import ast
import builtins
import math as pymath
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith, gpu, memref
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.ir import Operation, SSAValue

from gpuc.python.jobs import DeferredJob, FunctionAddress, FunctionCalls
from gpuc.python.types import DType, boolean, f32, index
from gpuc.python.types import i32 as I32
from gpuc.python.values import (
    INT_KINDS,
    ArrayValue,
    Const,
    PyObj,
    Scalar,
    TupleValue,
    Value,
    describe,
    memory_space,
)

if TYPE_CHECKING:
    from gpuc.python.module import ModuleBuilder

MATH_OPS: dict[Any, Any] = {
    pymath.exp: mathd.ExpOp, pymath.log: mathd.LogOp, pymath.sqrt: mathd.SqrtOp,
    pymath.sin: mathd.SinOp, pymath.cos: mathd.CosOp, pymath.tan: mathd.TanOp,
    pymath.tanh: mathd.TanhOp, pymath.sinh: mathd.SinhOp, pymath.cosh: mathd.CoshOp,
    pymath.asin: mathd.AsinOp, pymath.acos: mathd.AcosOp, pymath.atan: mathd.AtanOp,
    pymath.asinh: mathd.AsinhOp, pymath.acosh: mathd.AcoshOp,
    pymath.atanh: mathd.AtanhOp, pymath.erf: mathd.ErfOp, pymath.floor: mathd.FloorOp,
    pymath.ceil: mathd.CeilOp, pymath.trunc: mathd.TruncOp, pymath.fabs: mathd.AbsFOp,
}  # fmt: skip
MATH_BINARY: dict[Any, Any] = {
    pymath.pow: mathd.PowFOp,
    pymath.copysign: mathd.CopySignOp,
}
MATH_SCALED: dict[Any, tuple[Any, float, bool]] = {
    # f(x) = op(x * k) (scale before) or op(x) * k (after)
    pymath.exp2: (mathd.ExpOp, pymath.log(2.0), True),
    pymath.log2: (mathd.LogOp, 1 / pymath.log(2.0), False),
    pymath.log10: (mathd.LogOp, 1 / pymath.log(10.0), False),
}
DIMS = {0: "x", 1: "y", 2: "z"}
INDEX_OPS: dict[str, Any] = {
    "thread_id": gpu.ThreadIdOp, "block_id": gpu.BlockIdOp,
    "block_dim": gpu.BlockDimOp, "grid_dim": gpu.GridDimOp,
    "global_id": gpu.GlobalIdOp,
}  # fmt: skip
# memref.atomic_rmw kinds (MLIR's numbers): (float, integer)
ATOMIC_KINDS = {
    "atomic_add": (0, 1), "atomic_sub": (0, 1), "atomic_max": (3, 4),
    "atomic_min": (6, 7), "atomic_exchange": (2, 2),
}  # fmt: skip


class Calls(FunctionCalls):
    """Calls, the last part of a function's compiler."""

    unit: ModuleBuilder

    def call(self, node: ast.Call) -> Value:
        callee = self.expr(node.func)
        if not isinstance(callee, PyObj):
            raise self.error(f"{describe(callee)} cannot be called", node.func)
        obj = callee.obj
        if getattr(obj, "_gpuc_intrinsic", None) == "deferred":
            return PyObj(self.deferred_job(node))
        if getattr(obj, "_gpuc_intrinsic", None) == "address":
            return self.function_address(node)
        if isinstance(obj, DeferredJob):
            return self.deferred_call(obj, node)
        if isinstance(obj, FunctionAddress):
            return self.indirect_call(obj, node)
        if node.keywords:
            raise self.error("keyword arguments are not supported in kernel calls")
        if obj is builtins.print:
            return self.print_call(node)
        args = [self.expr(a) for a in node.args]
        if isinstance(obj, DType):
            self.arity(node, args, 1)
            return self.explicit(args[0], obj)
        intrinsic = getattr(obj, "_gpuc_intrinsic", None)
        if intrinsic is not None:
            return self.intrinsic(intrinsic, node, args)
        if obj in (builtins.min, builtins.max):
            return self.min_max(obj is builtins.max, node, args)
        if obj is builtins.abs:
            return self.absolute(node, args)
        if obj in (builtins.int, builtins.float, builtins.bool):
            self.arity(node, args, 1)
            to = {builtins.int: index, builtins.float: f32, builtins.bool: boolean}[obj]
            return self.explicit(args[0], to)
        if obj is builtins.len:
            self.arity(node, args, 1)
            return self.array(args[0], "len()'s argument").shape[0]
        if obj in MATH_OPS or obj in MATH_BINARY or obj in MATH_SCALED:
            return self.math_call(obj, node, args)
        from gpuc.python.decorators import DeviceFunction, KernelFunction

        if isinstance(obj, DeviceFunction):
            return self.device_call(obj, node, args)
        if isinstance(obj, KernelFunction):
            raise self.error(
                f"@gpuc.kernel {obj.name} cannot be called from device code; "
                "make it a @gpuc.func"
            )
        if obj is builtins.range:
            raise self.error("range() is allowed only as a for loop's iterable")
        raise self.error(
            f"{getattr(obj, '__name__', obj)!r} cannot be called in a kernel"
        )

    def arity(self, node: ast.Call, args: Sequence[Value], n: int) -> None:
        if len(args) != n:
            name = ast.unparse(node.func)
            raise self.error(f"{name}() takes {n} argument(s), got {len(args)}")

    def constant_int(self, v: Value, what: str) -> int:
        if (
            not isinstance(v, Const)
            or not isinstance(v.value, int)
            or isinstance(v.value, bool)
        ):
            raise self.error(f"{what} must be an integer known at compile time")
        return v.value

    def intrinsic(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        if name in INDEX_OPS:
            self.arity(node, args, 1)
            axis = self.constant_int(args[0], f"{name}()'s axis")
            if axis not in DIMS:
                raise self.error(f"{name}()'s axis must be 0, 1 or 2, got {axis}")
            op = INDEX_OPS[name](gpu.DimensionAttr(gpu.DimensionEnum(DIMS[axis])))
            return Scalar(self.result(op), index)
        if name in ("lane_id", "subgroup_size"):
            self.arity(node, args, 0)
            op = gpu.LaneIdOp() if name == "lane_id" else gpu.SubgroupSizeOp()  # type: ignore[no-untyped-call]
            return Scalar(self.result(op), index)
        if name == "barrier":
            self.arity(node, args, 0)
            self.emit(gpu.BarrierOp())  # type: ignore[no-untyped-call]
            return Const(0)
        if name in ("shared", "local"):
            return self.allocation(name, node, args)
        if name in ATOMIC_KINDS:
            return self.atomic(name, node, args)
        if name == "atomic_cas":
            return self.compare_and_swap(node, args)
        if name.startswith("shuffle"):
            return self.shuffle(name, node, args)
        if name.startswith("subgroup_"):
            return self.subgroup_reduce(name, node, args)
        if name == "launch":
            return self.child_launch(node, args)
        if name == "ballot":
            from gpuc.dialects.subgroup import BallotOp

            self.arity(node, args, 1)
            c = self.scalar(self.truth(args[0]), boolean)
            return Scalar(self.result(BallotOp(c.ssa)), I32)
        if name.startswith("vote_"):
            from gpuc.dialects.subgroup import VoteKind, VoteOp

            self.arity(node, args, 1)
            cond = self.truth(args[0])
            c = self.scalar(cond, boolean)
            return Scalar(self.result(VoteOp(VoteKind(name[5:]), c.ssa)), boolean)
        raise self.error(f"gpuc.{name}() is not supported here")

    def allocation(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 2)
        shape_v, dtype_v = args
        items = shape_v.items if isinstance(shape_v, TupleValue) else (shape_v,)
        shape = [self.constant_int(s, f"gpuc.{name}()'s shape") for s in items]
        if not 1 <= len(shape) <= 3 or any(s < 1 for s in shape):
            raise self.error(
                f"gpuc.{name}()'s shape must be 1 to 3 positive sizes, got {shape}"
            )
        dtype = getattr(dtype_v, "obj", None)
        if not isinstance(dtype, DType) or dtype.kind == "index":
            raise self.error(f"gpuc.{name}()'s second argument must be a gpuc dtype")
        space = "shared" if name == "shared" else "local"
        t = MemRefType(dtype.mlir(), shape, memory_space=memory_space(space))
        view = self.result(
            memref.AllocaOp.get(
                t.element_type, shape=shape, memory_space=t.memory_space
            )
        )
        strides: list[Value] = []
        stride = 1
        for s in reversed(shape):
            strides.insert(0, Const(stride))
            stride *= s
        return ArrayValue(
            view,
            None,
            dtype,
            Const(0),
            tuple(Const(s) for s in shape),
            tuple(strides),
            space,
        )

    def element(
        self, array: Value, index_v: Value, what: str
    ) -> tuple[ArrayValue, list[SSAValue]]:
        a = self.array(array, what)
        indices = index_v.items if isinstance(index_v, TupleValue) else (index_v,)
        return a, self.indices(a, list(indices))

    def atomic(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        from gpuc.dialects.foreign.memref import AtomicRMWOp

        self.arity(node, args, 3)
        array, indices = self.element(
            args[0], args[1], f"gpuc.{name}()'s first argument"
        )
        if array.space == "local":
            raise self.error(
                f"gpuc.{name}() on a per-thread array; use a shared or global one"
            )
        value = self.scalar(args[2], array.dtype, f"gpuc.{name}()'s value")
        if array.dtype.kind not in ("int", "float") or array.dtype.bits < 32:
            raise self.error(
                f"gpuc.{name}() takes arrays of i32, i64, f32 or f64, "
                f"not {array.dtype.name}"
            )
        if name == "atomic_sub":
            value = self.scalar(self.unary(ast.USub(), value))
        kind = ATOMIC_KINDS[name][0 if array.dtype.kind == "float" else 1]
        op = AtomicRMWOp.create(
            operands=[value.ssa, array.view, *indices],
            result_types=[array.dtype.mlir()],
            properties={"kind": IntegerAttr(kind, i64)},
        )
        return Scalar(self.result(op), array.dtype)

    def compare_and_swap(self, node: ast.Call, args: list[Value]) -> Value:
        """MLIR's memref.generic_atomic_rmw storing `desired` where the
        element is `expected` (the import makes it a compare-exchange)."""
        from xdsl.ir import Block, Region

        from gpuc.dialects.foreign.memref import (
            AtomicYieldOp,
            GenericAtomicRMWOp,
        )

        self.arity(node, args, 4)
        what = "gpuc.atomic_cas()'s first argument"
        array, indices = self.element(args[0], args[1], what)
        if array.dtype.kind != "int" or array.dtype.bits < 32:
            raise self.error(
                f"gpuc.atomic_cas() takes i32 and i64 arrays, not {array.dtype.name}"
            )
        if array.space == "local":
            raise self.error("gpuc.atomic_cas() on a per-thread array")
        expected = self.scalar(args[2], array.dtype, "the expected value")
        desired = self.scalar(args[3], array.dtype, "the desired value")
        t = array.dtype.mlir()
        block = Block(arg_types=[t])
        current = block.args[0]
        same = arith.CmpiOp(current, expected.ssa, "eq")
        chosen = arith.SelectOp(same, desired.ssa, current)
        block.add_ops([same, chosen, AtomicYieldOp.create(operands=[chosen.result])])
        for inner in block.ops:
            inner.location = self.location()
        op = GenericAtomicRMWOp.create(
            operands=[array.view, *indices],
            result_types=[t],
            regions=[Region(block)],
        )
        return Scalar(self.result(op), array.dtype)

    def shuffle(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        from gpuc.dialects.foreign.gpu import (
            GPUShuffleMode,
            GPUShuffleModeAttr,
            ShuffleOp,
        )

        self.arity(node, args, 2)
        value = self.scalar(args[0], what=f"gpuc.{name}()'s value")
        if value.dtype.bits != 32 or value.dtype.kind not in ("int", "float"):
            raise self.error(
                f"gpuc.{name}() moves i32 and f32 values, not {value.dtype.name}"
            )
        offset = self.cast(self.index(args[1], f"gpuc.{name}()'s lane"), I32)
        size = gpu.SubgroupSizeOp()  # type: ignore[no-untyped-call]
        width = self.cast(Scalar(self.result(size), index), I32)
        mode = {
            "shuffle": "idx",
            "shuffle_xor": "xor",
            "shuffle_down": "down",
            "shuffle_up": "up",
        }[name]
        op = ShuffleOp.create(
            operands=[value.ssa, offset.ssa, width.ssa],
            result_types=[value.dtype.mlir(), boolean.mlir()],
            properties={"mode": GPUShuffleModeAttr(GPUShuffleMode(mode))},
        )
        return Scalar(self.emit(op).results[0], value.dtype)

    def subgroup_reduce(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        from gpuc.dialects.foreign.gpu import (
            GPUReduceKind,
            GPUReduceKindAttr,
            SubgroupReduceOp,
        )

        self.arity(node, args, 1)
        value = self.scalar(args[0], what=f"gpuc.{name}()'s value")
        real = value.dtype.kind == "float"
        kind = {
            "sum": "add",
            "min": "minnumf" if real else "minsi",
            "max": "maxnumf" if real else "maxsi",
        }[name[9:]]
        op = SubgroupReduceOp.create(
            operands=[value.ssa],
            result_types=[value.dtype.mlir()],
            properties={"op": GPUReduceKindAttr(GPUReduceKind(kind))},
        )
        return Scalar(self.result(op), value.dtype)

    def min_max(self, is_max: bool, node: ast.Call, args: list[Value]) -> Value:
        if len(args) < 2:
            raise self.error(f"{'max' if is_max else 'min'}() takes two or more values")
        result = args[0]
        for other in args[1:]:
            if isinstance(result, Const) and isinstance(other, Const):
                result = Const((max if is_max else min)(result.value, other.value))
                continue
            dtype = self.common(result, other, f"{'max' if is_max else 'min'}()")
            x, y = self.scalar(result, dtype).ssa, self.scalar(other, dtype).ssa
            if dtype.kind == "float":
                op: Operation = (
                    arith.MaxnumfOp(x, y) if is_max else arith.MinnumfOp(x, y)
                )
            elif dtype.kind in INT_KINDS:
                op = arith.MaxSIOp(x, y) if is_max else arith.MinSIOp(x, y)
            else:
                raise self.error(f"min() and max() take numbers, not {dtype.name}")
            result = Scalar(self.result(op), dtype)
        return result

    def absolute(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1)
        v = args[0]
        if isinstance(v, Const):
            return Const(abs(v.value))
        s = self.scalar(v, what="abs()'s argument")
        if s.dtype.kind == "float":
            return Scalar(self.result(mathd.AbsFOp(s.ssa)), s.dtype)
        if s.dtype.kind in INT_KINDS:
            return Scalar(self.result(mathd.AbsIOp(s.ssa)), s.dtype)
        raise self.error(f"abs() takes a number, not {s.dtype.name}")

    def math_call(self, fn: Any, node: ast.Call, args: list[Value]) -> Value:
        name = f"math.{fn.__name__}"
        self.arity(node, args, 2 if fn in MATH_BINARY else 1)
        if all(isinstance(a, Const) for a in args):
            return Const(fn(*(a.value for a in args)))  # type: ignore[union-attr]
        floats = [a for a in args if isinstance(a, Scalar)]
        dtype = floats[0].dtype
        for a in floats:
            if a.dtype.kind != "float":
                raise self.error(
                    f"{name}() takes a float; write gpuc.f32(...) around the "
                    f"{a.dtype.name} argument"
                )
        if len(args) == 2:
            dtype = self.common(args[0], args[1], f"{name}()")
        ssas = [self.scalar(a, dtype).ssa for a in args]
        if fn in MATH_SCALED:
            op, k, before = MATH_SCALED[fn]
            scale = self.constant(k, dtype).ssa
            x = ssas[0]
            if before:
                x = self.result(arith.MulfOp(x, scale))
            r = self.result(op(x))
            if not before:
                r = self.result(arith.MulfOp(r, scale))
            return Scalar(r, dtype)
        op_class = MATH_OPS.get(fn) or MATH_BINARY[fn]
        return Scalar(self.result(op_class(*ssas)), dtype)

    def print_call(self, node: ast.Call) -> Value:
        from xdsl.dialects.builtin import StringAttr

        from gpuc.dialects.foreign.gpu_printf import PrintfOp

        pieces: list[str] = []
        values: list[SSAValue] = []
        for a in node.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                pieces.append(a.value.replace("%", "%%"))
                continue
            v = self.expr(a)
            if isinstance(v, Const):
                pieces.append(str(v.value).replace("%", "%%"))
                continue
            s = self.scalar(v, what="a print() argument")
            if s.dtype.kind == "float":
                if s.dtype.name == "bf16":
                    s = self.cast(s, f32)
                pieces.append("%g")
            else:
                if s.dtype.kind == "bool":
                    s = self.cast(s, I32)
                pieces.append("%d" if s.dtype.bits <= 32 else "%ld")
            values.append(s.ssa)
        op = PrintfOp.create(
            operands=values, properties={"format": StringAttr(" ".join(pieces) + "\n")}
        )
        self.emit(op)
        return Const(0)
