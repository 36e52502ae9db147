"""A reference interpreter for gpuc modules with MLIR's semantics.

It runs a parsed module (gpuc, arith, math, scf ops) for a grid and block
on numpy arrays: each thread is a Python generator that yields at
`gpuc.barrier`; a block's threads run in turn up to the next barrier, and a
barrier not reached by all of them, a read of shared memory nobody wrote,
an access out of bounds, a data race between two threads (no barrier in
between, one of them writing, not both atomic), a division by zero or a
shift by the width raise `UndefinedBehaviour`. Integers are Python ints
(the unsigned representative of their width); floats numpy scalars of
their type (so IEEE rounding is numpy's, i.e. the hardware's), except where
numpy would round twice (conversions, fma), which are rounded from exact
rationals here.

Deferred jobs are resolved as gpuc defines them: the source is looked up
in the module, then in the libraries; `mock_autodiff`'s wrapper calls it.
A float constant written as hex bits keeps those bits (xDSL's parser
converts through a double, which quiets signalling NaNs): its location
points at the source text.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

NP_FLOAT = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
FLOAT_FORMAT = {"f16": (10, 5), "f32": (23, 8), "f64": (52, 11)}
"""Mantissa and exponent bits."""


class UndefinedBehaviour(Exception):
    """The program's behaviour is undefined (so there is nothing to compare)."""


@dataclass
class Ptr:
    buffer: Buffer
    offset: int

    def at(self, index: int) -> tuple[Buffer, int]:
        i = self.offset + index
        if not 0 <= i < len(self.buffer.data):
            raise UndefinedBehaviour(
                f"access {i} out of bounds of {self.buffer.name} "
                f"({len(self.buffer.data)} elements)"
            )
        return self.buffer, i


@dataclass(eq=False)
class Buffer:
    name: str
    data: np.ndarray[Any, Any]
    ty: str
    initialized: np.ndarray[Any, Any] | None = None
    """Shared memory: which elements were written."""
    accesses: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Element -> (thread, how: r, w, a) in the current barrier interval;
    thread -1: several readers."""


def type_name(ty: Attribute) -> str:
    if isinstance(ty, IndexType):
        return "index"
    return str(ty)


def width(ty: str) -> int:
    return 64 if ty == "index" else int(ty[1:])


def signed(v: int, w: int) -> int:
    return v - (1 << w) if v >> (w - 1) & 1 else v


def wrap(v: int, w: int) -> int:
    return v & ((1 << w) - 1)


def float_of_bits(bits: int, ty: str) -> Any:
    code = {"f16": "<H", "f32": "<I", "f64": "<Q"}[ty]
    return np.frombuffer(struct.pack(code, bits), NP_FLOAT[ty])[0]


def bits_of_float(value: Any, ty: str) -> int:
    code = {"f16": "<H", "f32": "<I", "f64": "<Q"}[ty]
    return int(struct.unpack(code, NP_FLOAT[ty](value).tobytes())[0])


def round_exact(q: Fraction, ty: str, negative_zero: bool = False) -> Any:
    """The float of `ty` nearest to `q` (ties to even), overflowing to inf."""
    mant, exp_bits = FLOAT_FORMAT[ty]
    if q == 0:
        return NP_FLOAT[ty](-0.0 if negative_zero else 0.0)
    sign = -1 if q < 0 else 1
    a = abs(q)
    bias = (1 << (exp_bits - 1)) - 1
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, 1 - bias)  # subnormals share the smallest exponent
    scaled = a / Fraction(2) ** (e - mant)
    n = scaled.numerator // scaled.denominator
    rest = scaled - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n & 1):
        n += 1
    value = Fraction(n) * Fraction(2) ** (e - mant)
    if n >= 1 << (mant + 1) and e + 1 > bias or e > bias:
        return NP_FLOAT[ty](sign * math.inf)
    return (
        NP_FLOAT[ty](sign * float(value))
        if ty != "f64"
        else np.float64(sign * float(value))
    )


def exact(x: Any) -> Fraction:
    return Fraction(float(x))


def is_nan(x: Any) -> bool:
    return bool(np.isnan(x))


# ---------------------------------------------------------------------------
# Integer and float semantics, by op name.


def int_binary(name: str, a: int, b: int, w: int) -> int:
    sa, sb = signed(a, w), signed(b, w)
    if (
        name
        in ("divui", "remui", "ceildivui", "divsi", "remsi", "ceildivsi", "floordivsi")
        and b == 0
    ):
        raise UndefinedBehaviour(f"arith.{name} by zero")
    if (
        name in ("divsi", "ceildivsi", "floordivsi")
        and sa == -(1 << (w - 1))
        and sb == -1
        and w > 1
    ):
        raise UndefinedBehaviour(f"arith.{name} overflows")
    if name in ("shli", "shrui", "shrsi") and b >= w:
        raise UndefinedBehaviour(f"arith.{name} by {b} >= {w}")
    match name:
        case "addi":
            r = a + b
        case "subi":
            r = a - b
        case "muli":
            r = a * b
        case "andi":
            r = a & b
        case "ori":
            r = a | b
        case "xori":
            r = a ^ b
        case "minsi":
            r = min(sa, sb)
        case "maxsi":
            r = max(sa, sb)
        case "minui":
            r = min(a, b)
        case "maxui":
            r = max(a, b)
        case "shli":
            r = a << b
        case "shrui":
            r = a >> b
        case "shrsi":
            r = sa >> b
        case "divui":
            r = a // b
        case "remui":
            r = a % b
        case "ceildivui":
            r = -(-a // b)
        case "divsi":
            r = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        case "remsi":
            q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
            r = sa - q * sb
        case "ceildivsi":
            r = -(-sa // sb)
        case "floordivsi":
            r = sa // sb
        case _:
            raise NotImplementedError(name)
    return wrap(r, w)


CMPI: dict[str, Callable[[int, int, int], bool]] = {
    "eq": lambda a, b, w: a == b,
    "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: signed(a, w) < signed(b, w),
    "sle": lambda a, b, w: signed(a, w) <= signed(b, w),
    "sgt": lambda a, b, w: signed(a, w) > signed(b, w),
    "sge": lambda a, b, w: signed(a, w) >= signed(b, w),
    "ult": lambda a, b, w: a < b,
    "ule": lambda a, b, w: a <= b,
    "ugt": lambda a, b, w: a > b,
    "uge": lambda a, b, w: a >= b,
}
CMPI_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF_NAMES = (
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
)


def cmpf(pred: str, a: Any, b: Any) -> bool:
    unordered = is_nan(a) or is_nan(b)
    if pred == "false":
        return False
    if pred == "true":
        return True
    if pred == "ord":
        return not unordered
    if pred == "uno":
        return unordered
    rel = pred[1:]
    if unordered:
        return pred[0] == "u"
    fa, fb = float(a), float(b)
    return {
        "eq": fa == fb,
        "gt": fa > fb,
        "ge": fa >= fb,
        "lt": fa < fb,
        "le": fa <= fb,
        "ne": fa != fb,
    }[rel]


def float_minmax(name: str, a: Any, b: Any, ty: str) -> Any:
    t = NP_FLOAT[ty]
    if name in ("maximumf", "minimumf"):
        if is_nan(a):
            return a
        if is_nan(b):
            return b
    else:  # maxnumf, minnumf: a NaN operand loses
        if is_nan(a):
            return b
        if is_nan(b):
            return a
    fa, fb = float(a), float(b)
    if fa == fb == 0.0:
        neg_a, neg_b = math.copysign(1, fa) < 0, math.copysign(1, fb) < 0
        want_neg = (neg_a or neg_b) if name.startswith("min") else (neg_a and neg_b)
        return t(-0.0) if want_neg else t(0.0)
    big = name.startswith("max")
    return t(a) if (fa > fb) == big else t(b)


def int_to_float(v: int, ty: str) -> Any:
    return round_exact(Fraction(v), ty)


def float_to_int(x: Any, w: int, is_signed: bool) -> int:
    if is_nan(x) or math.isinf(float(x)):
        raise UndefinedBehaviour("fptosi/fptoui of NaN or inf")
    v = math.trunc(float(x))
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if is_signed else (0, (1 << w) - 1)
    if not lo <= v <= hi:
        raise UndefinedBehaviour(f"float {float(x)} out of range of i{w}")
    return wrap(v, w)


MANTISSA = {"f16": 10, "f32": 23, "f64": 52}


def convert_float(x: Any, src: str, dst: str) -> Any:
    if is_nan(x):
        # MLIR leaves the payload unspecified; this is what the CPUs gpuc runs
        # on do (x86's conversions, so native and Intel's OpenCL runtime):
        # quieted, the payload's top bits kept, its sign kept. A result only
        # compared as a float matches any NaN anyway; one bitcast to an
        # integer needs the bits.
        bits = bits_of_float(x, src)
        sm, dm = MANTISSA[src], MANTISSA[dst]
        total = {"f16": 16, "f32": 32, "f64": 64}
        sign = bits >> (total[src] - 1)
        payload = bits & ((1 << sm) - 1)
        payload = payload << (dm - sm) if dm >= sm else payload >> (sm - dm)
        payload |= 1 << (dm - 1)  # quiet
        exponent = ((1 << (total[dst] - 1 - dm)) - 1) << dm
        return float_of_bits((sign << (total[dst] - 1)) | exponent | payload, dst)
    if math.isinf(float(x)):
        return NP_FLOAT[dst](float(x))
    neg = math.copysign(1, float(x)) < 0
    return round_exact(exact(x), dst, negative_zero=neg)


def fma(a: Any, b: Any, c: Any, ty: str) -> Any:
    t = NP_FLOAT[ty]
    fa, fb, fc = float(a), float(b), float(c)
    if math.isfinite(fa) and math.isfinite(fb) and math.isinf(fc):
        return t(fc)  # the exact product is finite
    if not all(map(math.isfinite, (fa, fb, fc))):
        with np.errstate(all="ignore"):  # an infinite or NaN product: exact
            return t(np.float64(fa) * np.float64(fb) + np.float64(fc))
    q = Fraction(fa) * Fraction(fb) + Fraction(fc)
    if q == 0:
        prod_neg = (math.copysign(1, fa) < 0) != (math.copysign(1, fb) < 0)
        prod_zero = fa == 0 or fb == 0
        if prod_zero and fc == 0:
            neg = prod_neg and math.copysign(1, fc) < 0
            return t(-0.0 if neg else 0.0)
        return t(0.0)
    return round_exact(q, ty)


def round_half_away(x: float) -> float:
    return math.copysign(math.floor(abs(x) + 0.5), x) if math.isfinite(x) else x


def math_float(name: str, args: list[Any], ty: str) -> Any:
    t = NP_FLOAT[ty]
    a = args[0]
    with np.errstate(all="ignore"):
        match name:
            case "absf":
                return t(np.abs(a))
            case "copysign":
                return t(np.copysign(a, args[1]))
            case "fma":
                return fma(a, args[1], args[2], ty)
            case "floor" | "ceil" | "trunc":
                return t(getattr(np, name)(a))
            case "roundeven":
                return t(np.rint(a))
            case "round":
                x = float(a)
                if not math.isfinite(x):
                    return t(a)
                return t(math.copysign(round_half_away(x), x))
        # Functions implementations compute within some ulps: compared with a
        # tolerance, so computed in double here.
        x = np.float64(a)
        fn: dict[str, Callable[[Any], Any]] = {
            "sqrt": np.sqrt,
            "exp": np.exp,
            "log": np.log,
            "sin": np.sin,
            "cos": np.cos,
            "tanh": np.tanh,
            "exp2": np.exp2,
            "log2": np.log2,
            "atan": np.arctan,
            "cbrt": np.cbrt,
            "expm1": np.expm1,
            "log1p": np.log1p,
            "erf": lambda v: math.erf(v) if math.isfinite(v) or math.isinf(v) else v,
        }
        return t(fn[name](x) if name != "erf" else fn[name](float(x)))


def int_math(name: str, a: int, w: int) -> int:
    match name:
        case "absi":
            return wrap(abs(signed(a, w)), w)
        case "ctlz":
            return w - a.bit_length()
        case "cttz":
            return w if a == 0 else (a & -a).bit_length() - 1
        case "ctpop":
            return bin(a).count("1")
    raise NotImplementedError(name)


# ---------------------------------------------------------------------------


@dataclass
class ThreadContext:
    thread: tuple[int, int, int]
    block: tuple[int, int, int]
    block_dim: tuple[int, int, int]
    grid_dim: tuple[int, int, int]
    shared: dict[Operation, Buffer]
    linear: int
    """The thread's number in the grid (races are between numbers)."""


Env = dict[SSAValue, Any]
Gen = Generator[None, None, list[Any]]

HEX_CONSTANT = re.compile(r"arith\.constant\s+(0x[0-9A-Fa-f]+)\s*:\s*(f16|f32|f64)")


class Interpreter:
    """Runs kernels of `module` (its deferred jobs resolved against `libraries`)."""

    def __init__(
        self,
        module: ModuleOp,
        libraries: Sequence[ModuleOp] = (),
        sources: dict[str, str] | None = None,
    ) -> None:
        from gpuc.dialects.functions import FuncOp

        self.funcs: dict[str, Any] = {}
        for m in (*reversed(libraries), module):  # the module's own win
            for op in m.ops:
                if isinstance(op, FuncOp):
                    self.funcs[op.sym_name.data] = op
        self.sources = {
            name: text.split("\n") for name, text in (sources or {}).items()
        }
        self.steps = 0
        self.max_steps = 2_000_000

    # -- launching -----------------------------------------------------------
    def launch(
        self, name: str, grid: Sequence[int], block: Sequence[int], args: Sequence[Any]
    ) -> None:
        func = self.funcs[name]
        g = (*grid, 1, 1, 1)[:3]
        b = (*block, 1, 1, 1)[:3]
        values: list[Any] = []
        buffers: list[Buffer] = []
        for i, (arg, ty) in enumerate(
            zip(args, func.function_type.inputs.data, strict=True)
        ):
            if isinstance(arg, np.ndarray):
                elem = type_name(ty.element)  # type: ignore[attr-defined]
                buf = Buffer(f"argument {i}", arg, elem)
                buffers.append(buf)
                values.append(Ptr(buf, 0))
            else:
                values.append(self.scalar(arg, type_name(ty)))
        block_count = 0
        for bz in range(g[2]):
            for by in range(g[1]):
                for bx in range(g[0]):
                    shared: dict[Operation, Buffer] = {}
                    threads = []
                    for tz in range(b[2]):
                        for ty_ in range(b[1]):
                            for tx in range(b[0]):
                                linear = (
                                    block_count * b[0] * b[1] * b[2]
                                    + tx
                                    + b[0] * (ty_ + b[1] * tz)
                                )
                                ctx = ThreadContext(
                                    (tx, ty_, tz), (bx, by, bz), b, g, shared, linear
                                )
                                threads.append(self.call(func, values, ctx))
                    self.run_block(threads, shared)
                    block_count += 1

    @staticmethod
    def scalar(arg: Any, ty: str) -> Any:
        if ty in NP_FLOAT:
            return NP_FLOAT[ty](arg)
        return wrap(int(arg), width(ty))

    def run_block(self, threads: list[Gen], shared: dict[Operation, Buffer]) -> None:
        live = threads
        while live:
            at_barrier: list[Gen] = []
            finished = 0
            for t in live:
                try:
                    next(t)
                    at_barrier.append(t)
                except StopIteration:
                    finished += 1
            if at_barrier and finished:
                raise UndefinedBehaviour(
                    f"a barrier reached by {len(at_barrier)} of "
                    f"{len(at_barrier) + finished} threads of a block"
                )
            for buf in shared.values():
                buf.accesses.clear()
            live = at_barrier

    # -- memory --------------------------------------------------------------
    def access(self, buf: Buffer, i: int, how: str, ctx: ThreadContext) -> None:
        me = ctx.linear
        prev = buf.accesses.get(i)
        if prev is not None:
            who, what = prev
            if who != me and not (what == how == "r") and not (what == how == "a"):
                raise UndefinedBehaviour(
                    f"data race on {buf.name}[{i}]: threads {who} ({what}) and "
                    f"{me} ({how})"
                )
            if what == "r" and how == "r" and who != me:
                buf.accesses[i] = (-1, "r")
                return
            if what == "w" and who == me:
                return  # the thread's own write dominates its later reads
            if who == -1 and how != "r":
                raise UndefinedBehaviour(f"data race on {buf.name}[{i}]")
        buf.accesses[i] = (me, how)

    def load(self, p: Ptr, index: int, ctx: ThreadContext) -> Any:
        buf, i = p.at(index)
        if buf.initialized is not None and not buf.initialized[i]:
            raise UndefinedBehaviour(f"read of unwritten {buf.name}[{i}]")
        self.access(buf, i, "r", ctx)
        return self.read(buf, i)

    @staticmethod
    def read(buf: Buffer, i: int) -> Any:
        x = buf.data[i]
        if buf.ty in NP_FLOAT:
            return NP_FLOAT[buf.ty](x)
        return wrap(int(x), width(buf.ty))

    def store(
        self, p: Ptr, index: int, value: Any, ctx: ThreadContext, how: str = "w"
    ) -> None:
        buf, i = p.at(index)
        self.access(buf, i, how, ctx)
        self.write(buf, i, value)

    @staticmethod
    def write(buf: Buffer, i: int, value: Any) -> None:
        if buf.ty in NP_FLOAT:
            buf.data[i] = value
        else:
            w = width(buf.ty)
            buf.data.view(f"u{buf.data.dtype.itemsize}")[i] = wrap(value, w)
        if buf.initialized is not None:
            buf.initialized[i] = True

    # -- execution -----------------------------------------------------------
    def call(self, func: Any, args: list[Any], ctx: ThreadContext) -> Gen:
        if not func.body.blocks:
            raise UndefinedBehaviour(f"@{func.sym_name.data} has no body")
        return self.run_region_block(func.body.blocks[0], args, ctx)

    def run_region_block(
        self,
        block: Block,
        args: Sequence[Any],
        ctx: ThreadContext,
        env: Env | None = None,
    ) -> Gen:
        env = {} if env is None else env
        for a, v in zip(block.args, args, strict=True):
            env[a] = v
        for op in block.ops:
            self.steps += 1
            if self.steps > self.max_steps:
                raise UndefinedBehaviour("too many steps (a loop that does not end?)")
            name = op.name
            if name in ("gpuc.return", "scf.yield", "scf.condition"):
                return [env[o] for o in op.operands]
            operands = [env[o] for o in op.operands]
            if name in STRUCTURED:
                results = yield from STRUCTURED[name](self, op, operands, ctx, env)
            elif name == "gpuc.barrier":
                yield
                results = []
            else:
                results = self.simple(op, operands, ctx)
            for r, v in zip(op.results, results, strict=True):
                env[r] = v
        raise AssertionError("block without terminator")

    def simple(self, op: Operation, x: list[Any], ctx: ThreadContext) -> list[Any]:
        name = op.name
        dialect, _, short = name.partition(".")
        rty = type_name(op.results[0].type) if op.results else ""
        if dialect == "arith":
            return self.arith(op, short, x, rty)
        if dialect == "math":
            if rty in NP_FLOAT:
                return [math_float(short, x, rty)]
            return [int_math(short, x[0], width(rty))]
        return self.gpuc(op, short, x, ctx)

    def arith(self, op: Operation, short: str, x: list[Any], rty: str) -> list[Any]:
        if short == "constant":
            return [self.constant(op, rty)]
        oty = type_name(op.operands[0].type)
        if short in ("addf", "subf", "mulf", "divf"):
            t = NP_FLOAT[rty]
            with np.errstate(all="ignore"):
                a, b = t(x[0]), t(x[1])
                r = {
                    "addf": np.add,
                    "subf": np.subtract,
                    "mulf": np.multiply,
                    "divf": np.divide,
                }[short](a, b)
            return [t(r)]
        if short == "negf":
            return [NP_FLOAT[rty](-x[0])]
        if short in ("maximumf", "minimumf", "maxnumf", "minnumf"):
            return [float_minmax(short, x[0], x[1], rty)]
        if short == "cmpi":
            pred = CMPI_NAMES[self.predicate(op)]
            return [int(CMPI[pred](x[0], x[1], width(oty)))]
        if short == "cmpf":
            return [int(cmpf(CMPF_NAMES[self.predicate(op)], x[0], x[1]))]
        if short == "select":
            return [x[1] if x[0] else x[2]]
        if short in ("extsi", "index_cast"):
            return [wrap(signed(x[0], width(oty)), width(rty))]
        if short in ("extui", "trunci", "index_castui"):
            return [wrap(x[0], width(rty))]
        if short == "sitofp":
            return [int_to_float(signed(x[0], width(oty)), rty)]
        if short == "uitofp":
            return [int_to_float(x[0], rty)]
        if short in ("fptosi", "fptoui"):
            return [float_to_int(x[0], width(rty), short == "fptosi")]
        if short in ("extf", "truncf"):
            return [convert_float(x[0], oty, rty)]
        if short == "bitcast":
            if rty in NP_FLOAT:
                return [float_of_bits(x[0], rty)]
            return [bits_of_float(x[0], oty)]
        if short in ("mului_extended", "mulsi_extended"):
            w = width(oty)
            a, b = x
            if short == "mulsi_extended":
                a, b = signed(a, w), signed(b, w)
            p = a * b
            return [wrap(p, w), wrap(p >> w, w)]
        if short == "addui_extended":
            w = width(oty)
            s = x[0] + x[1]
            return [wrap(s, w), int(s >> w != 0)]
        return [int_binary(short, x[0], x[1], width(rty))]

    @staticmethod
    def predicate(op: Operation) -> int:
        attr = op.properties["predicate"]
        assert isinstance(attr, IntegerAttr)
        return int(attr.value.data)

    def constant(self, op: Operation, rty: str) -> Any:
        attr = op.properties["value"]
        if isinstance(attr, IntegerAttr):
            return wrap(int(attr.value.data), width(rty))
        assert isinstance(attr, FloatAttr)
        bits = self.hex_bits(op)
        if bits is not None:
            return float_of_bits(bits, rty)
        value = float(attr.value.data)
        if math.isnan(value) or math.isinf(value):
            return NP_FLOAT[rty](value)
        return round_exact(
            Fraction(value), rty, negative_zero=math.copysign(1, value) < 0
        )

    def hex_bits(self, op: Operation) -> int | None:
        """The bits of a hex float literal at the op's location in its source."""
        from xdsl.dialects.builtin import FileLineColLoc

        loc = op.location
        if not isinstance(loc, FileLineColLoc):
            return None
        lines = self.sources.get(loc.filename.data)
        if lines is None:
            return None
        m = HEX_CONSTANT.match(lines[loc.line.data - 1][loc.column.data - 1 :])
        return int(m.group(1), 16) if m else None

    def gpuc(
        self, op: Operation, short: str, x: list[Any], ctx: ThreadContext
    ) -> list[Any]:
        dims = "xyz"
        if short in ("thread_id", "block_id", "block_dim", "grid_dim", "global_id"):
            d = dims.index(str(op.properties["dimension"].data.value).lower()[-1])  # type: ignore[attr-defined]
            if short == "global_id":
                return [ctx.block[d] * ctx.block_dim[d] + ctx.thread[d]]
            return [
                {
                    "thread_id": ctx.thread,
                    "block_id": ctx.block,
                    "block_dim": ctx.block_dim,
                    "grid_dim": ctx.grid_dim,
                }[short][d]
            ]
        if short == "load":
            return [self.load(x[0], x[1] if len(x) > 1 else 0, ctx)]
        if short == "store":
            self.store(x[1], x[2] if len(x) > 2 else 0, x[0], ctx)
            return []
        if short == "offset":
            p = x[0]
            return [Ptr(p.buffer, p.offset + signed(x[1], 64))]
        if short == "addrspace_cast":
            return [x[0]]
        if short == "shared_alloc":
            if op not in ctx.shared:
                count = int(op.properties["count"].value.data)  # type: ignore[attr-defined]
                elem = type_name(op.results[0].type.element)  # type: ignore[attr-defined]
                dtype = (
                    NP_FLOAT[elem]
                    if elem in NP_FLOAT
                    else np.dtype(f"i{max(width(elem), 8) // 8}")
                )
                ctx.shared[op] = Buffer(
                    f"shared {elem}[{count}]",
                    np.zeros(count, dtype),
                    elem,
                    np.zeros(count, bool),
                )
            return [Ptr(ctx.shared[op], 0)]
        if short == "atomic_rmw":
            return [self.atomic_rmw(op, x, ctx)]
        if short == "atomic_cmpxchg":
            p, index = x[0], (x[1] if len(x) == 4 else 0)
            expected, desired = x[-2], x[-1]
            buf, i = p.at(index)
            self.access(buf, i, "a", ctx)
            old = self.read(buf, i)
            if self.same_bits(old, expected, buf.ty):
                self.write(buf, i, desired)
            return [old]
        raise NotImplementedError(op.name)

    @staticmethod
    def same_bits(a: Any, b: Any, ty: str) -> bool:
        if ty in NP_FLOAT:
            return bits_of_float(a, ty) == bits_of_float(b, ty)
        return bool(a == b)

    def atomic_rmw(self, op: Operation, x: list[Any], ctx: ThreadContext) -> Any:
        p, index = x[0], (x[1] if len(x) == 3 else 0)
        value = x[-1]
        kind = str(op.properties["kind"].data.value)  # type: ignore[attr-defined]
        buf, i = p.at(index)
        self.access(buf, i, "a", ctx)
        old = self.read(buf, i)
        ty = buf.ty
        if ty in NP_FLOAT:
            t = NP_FLOAT[ty]
            with np.errstate(all="ignore"):
                new = {
                    "add": lambda: t(old + value),
                    "exchange": lambda: value,
                    "max": lambda: float_minmax("maxnumf", old, value, ty),
                    "min": lambda: float_minmax("minnumf", old, value, ty),
                }[kind]()
        else:
            w = width(ty)
            new = {
                "exchange": value,
                "add": wrap(old + value, w),
                "and": old & value,
                "or": old | value,
                "xor": old ^ value,
                "max": max(signed(old, w), signed(value, w)),
                "min": min(signed(old, w), signed(value, w)),
                "umax": max(old, value),
                "umin": min(old, value),
            }[kind]
            new = wrap(new, w)
        self.write(buf, i, new)
        return old

    # -- structured ops ------------------------------------------------------
    def scf_if(self, op: Operation, x: list[Any], ctx: ThreadContext, env: Env) -> Gen:
        region = op.regions[0] if x[0] else op.regions[1]
        if not region.blocks:
            return []
        return (yield from self.run_region_block(region.blocks[0], [], ctx, env))

    def scf_for(self, op: Operation, x: list[Any], ctx: ThreadContext, env: Env) -> Gen:
        lb, ub, step, *carried = x
        ty = type_name(op.operands[0].type)
        w = width(ty)
        slb, sub, sstep = signed(lb, w), signed(ub, w), signed(step, w)
        if sstep <= 0:
            raise UndefinedBehaviour("scf.for with a step <= 0")
        i = slb
        body = op.regions[0].blocks[0]
        while i < sub:
            carried = yield from self.run_region_block(
                body, [wrap(i, w), *carried], ctx, env
            )
            i += sstep
        return carried

    def scf_while(
        self, op: Operation, x: list[Any], ctx: ThreadContext, env: Env
    ) -> Gen:
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        values = x
        while True:
            cond, *passed = yield from self.run_region_block(before, values, ctx, env)
            if not cond:
                return passed
            values = yield from self.run_region_block(after, passed, ctx, env)

    def gpuc_call(
        self, op: Operation, x: list[Any], ctx: ThreadContext, env: Env
    ) -> Gen:
        callee = op.properties["callee"].root_reference.data  # type: ignore[attr-defined]
        return (yield from self.call(self.funcs[callee], x, ctx))

    def deferred_call(
        self, op: Operation, x: list[Any], ctx: ThreadContext, env: Env
    ) -> Gen:
        source = op.properties["source"].root_reference.data  # type: ignore[attr-defined]
        return (yield from self.call(self.funcs[source], x, ctx))


STRUCTURED: dict[str, Callable[..., Gen]] = {
    "scf.if": Interpreter.scf_if,
    "scf.for": Interpreter.scf_for,
    "scf.while": Interpreter.scf_while,
    "gpuc.call": Interpreter.gpuc_call,
    "gpuc.deferred_call": Interpreter.deferred_call,
}


def parse(text: str, name: str) -> ModuleOp:
    """`text` parsed as gpuc parses it, with locations."""
    from gpuc.context import make_context
    from gpuc.diagnostics import LocatingParser

    return LocatingParser(make_context(), text, name).parse_module()
