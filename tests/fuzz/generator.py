"""Random valid gpuc programs, reproducible from a seed.

A program is one module of one to three kernels, private helpers of every
inline kind (called directly or as deferred jobs, through mock_autodiff's
wrapper too) and sometimes a library module whose helpers kernels reach
only as deferred jobs. Kernel bodies mix arith (i1-i64, index, f16-f64),
math, scf.if/for/while, loads through offsets and address-space casts,
shared memory with barriers at uniform points only (top level, or a loop of
constant trip count at top level), integer and float atomics and cmpxchg.

Every program is free of undefined behaviour by construction: divisors and
shift amounts are masked, float-to-int conversions only see small integers,
shared memory is written and read in barrier-separated phases, atomics whose
order matters only touch the thread's own slot. The reference interpreter
checks that anyway (it raises `UndefinedBehaviour`).

The program is a tree of `Node`s so that `driver.minimize` can delete parts:
a deleted node that defined values defines them as zero constants instead.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

INTS = ("i1", "i8", "i16", "i32", "i64")
FLOATS = ("f16", "f32", "f64")
WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
FLOAT_BITS = {"f16": 16, "f32": 32, "f64": 64}
OUT_INT = {"i1": "i8", "index": "i64"}
"""Integer types stored through a wider output array."""
PAD = 8
"""Input arrays hold PAD elements past the last thread's: loads may add < PAD."""
ATOMIC_TYPES = ("i32", "i64", "f32", "f64")

# Comparison modes of an output slot (the driver's `compare`).
BITS, VALUE, NOZERO, APPROX = "bits", "value", "nozero", "approx"
_RANK = {BITS: 0, VALUE: 1}


def ptr(ty: str, space: str = "global") -> str:
    return f"!gpuc.ptr<{ty}, {space}>"


def is_float(ty: str) -> bool:
    return ty in FLOATS


@dataclass
class Value:
    name: str
    ty: str
    kind: str = BITS
    """BITS: a copy of some input's bits; VALUE: IEEE's value (NaNs alike)."""
    constant: int | None = None
    """An integer constant's (unsigned) value."""


@dataclass
class Node:
    """Lines of a body, defining `results`; `removed` renders zero constants."""

    lines: list[str] = field(default_factory=list)
    results: list[tuple[str, str]] = field(default_factory=list)
    removed: bool = False

    def children(self) -> list[list[Node]]:
        return []

    def render(self, indent: str) -> list[str]:
        if self.removed:
            return [indent + zero_constant(n, t) for n, t in self.results]
        return self.body(indent)

    def body(self, indent: str) -> list[str]:
        return [indent + line for line in self.lines]


def zero_constant(name: str, ty: str) -> str:
    if ty == "i1":
        return f"%{name} = arith.constant false"
    zero = "0.0" if is_float(ty) else "0"
    return f"%{name} = arith.constant {zero} : {ty}"


def render_nodes(nodes: list[Node], indent: str) -> list[str]:
    return [line for node in nodes for line in node.render(indent)]


def _types(results: list[tuple[str, str]]) -> str:
    return ", ".join(t for _, t in results)


@dataclass
class IfNode(Node):
    cond: str = ""
    then: list[Node] = field(default_factory=list)
    then_yield: list[str] = field(default_factory=list)
    other: list[Node] = field(default_factory=list)
    other_yield: list[str] = field(default_factory=list)

    def children(self) -> list[list[Node]]:
        return [self.then, self.other]

    def body(self, indent: str) -> list[str]:
        inner = indent + "  "
        names = ", ".join(f"%{n}" for n, _ in self.results)
        head = f"{names} = " if self.results else ""
        out = [f"{indent}{head}scf.if %{self.cond}"]
        out[0] += f" -> ({_types(self.results)}) {{" if self.results else " {"
        out += render_nodes(self.then, inner) + _yield(inner, self.then_yield, self)
        if self.results or self.other:
            out.append(indent + "} else {")
            out += render_nodes(self.other, inner)
            out += _yield(inner, self.other_yield, self)
        return [*out, indent + "}"]


def _yield(indent: str, names: list[str], node: Node) -> list[str]:
    if not names:
        return []
    values = ", ".join(f"%{n}" for n in names)
    return [f"{indent}scf.yield {values} : {_types(node.results)}"]


@dataclass
class ForNode(Node):
    lb: str = ""
    ub: str = ""
    step: str = ""
    iv: str = ""
    carried: list[tuple[str, str]] = field(default_factory=list)
    """(block argument, initial value) per result."""
    loop: list[Node] = field(default_factory=list)
    yields: list[str] = field(default_factory=list)

    def children(self) -> list[list[Node]]:
        return [self.loop]

    def body(self, indent: str) -> list[str]:
        names = ", ".join(f"%{n}" for n, _ in self.results)
        head = f"{indent}{names} = " if self.results else indent
        head += f"scf.for %{self.iv} = %{self.lb} to %{self.ub} step %{self.step}"
        if self.carried:
            args = ", ".join(f"%{a} = %{i}" for a, i in self.carried)
            head += f" iter_args({args}) -> ({_types(self.results)})"
        out = [head + " {", *render_nodes(self.loop, indent + "  ")]
        return [*out, *_yield(indent + "  ", self.yields, self), indent + "}"]


@dataclass
class WhileNode(Node):
    """`for (i = 0; i < bound; i++)` as scf.while, carrying `carried` too."""

    bound: str = ""
    counter: tuple[str, str, str] = ("", "", "")
    """Names of the counter: before-region argument, after-region one, init."""
    carried: list[tuple[str, str, str]] = field(default_factory=list)
    loop: list[Node] = field(default_factory=list)
    yields: list[str] = field(default_factory=list)
    one: str = ""

    def children(self) -> list[list[Node]]:
        return [self.loop]

    def body(self, indent: str) -> list[str]:
        i = indent + "  "
        before, after, init = self.counter
        tys = ["i32"] + [t for _, t in self.results[1:]]
        ty_list = ", ".join(tys)
        inits = ", ".join(
            [f"%{before} = %{init}"] + [f"%{b} = %{v}" for b, _, v in self.carried]
        )
        before_args = ", ".join([f"%{before}"] + [f"%{b}" for b, _, _ in self.carried])
        after_args = ", ".join(
            [f"%{after}: i32"]
            + [
                f"%{a}: {t}"
                for (_, a, _), (_, t) in zip(
                    self.carried, self.results[1:], strict=True
                )
            ]
        )
        names = ", ".join(f"%{n}" for n, _ in self.results)
        more = f"{before}.more"
        nxt = f"{after}.next"
        values = ", ".join([f"%{nxt}"] + [f"%{y}" for y in self.yields])
        return [
            f"{indent}{names} = scf.while ({inits}) : ({ty_list}) -> ({ty_list}) {{",
            f"{i}%{more} = arith.cmpi slt, %{before}, %{self.bound} : i32",
            f"{i}scf.condition(%{more}) {before_args} : {ty_list}",
            f"{indent}}} do {{",
            f"{indent}^bb0({after_args}):",
            *render_nodes(self.loop, i),
            f"{i}%{nxt} = arith.addi %{after}, %{self.one} : i32",
            f"{i}scf.yield {values} : {ty_list}",
            f"{indent}}}",
        ]


@dataclass
class Param:
    name: str
    ty: str
    role: str
    """in, out, acc (shared counters of the grid), slot (one per thread), scalar."""
    elem: str
    length: int = 0


@dataclass
class Function:
    name: str
    params: list[Param]
    role: str
    """kernel, or the helper's spelling after `helper` (inline hint)."""
    nodes: list[Node] = field(default_factory=list)
    prologue: list[str] = field(default_factory=list)
    ret: Value | None = None
    grid: tuple[int, ...] = (1,)
    block: tuple[int, ...] = (1,)
    slots: dict[str, list[str]] = field(default_factory=dict)
    """Output element type -> the comparison mode of each slot of a thread."""
    public: bool = False

    @property
    def threads(self) -> int:
        n = 1
        for d in (*self.grid, *self.block):
            n *= d
        return n

    def render(self) -> list[str]:
        params = ", ".join(f"%{p.name}: {p.ty}" for p in self.params)
        if self.role == "kernel":
            head = f"gpuc.func @{self.name}({params}) kernel {{"
        else:
            vis = "" if self.public else "private "
            hint = f" {self.role}" if self.role else ""
            assert self.ret is not None
            head = (
                f"gpuc.func {vis}@{self.name}({params}) -> {self.ret.ty} "
                f"helper{hint} {{"
            )
        lines = [head, *("  " + line for line in self.prologue)]
        lines += render_nodes(self.nodes, "  ")
        if self.ret is not None:
            lines.append(f"  gpuc.return %{self.ret.name} : {self.ret.ty}")
        else:
            lines.append("  gpuc.return")
        return [*lines, "}"]

    def all_nodes(self) -> Iterator[Node]:
        def walk(nodes: list[Node]) -> Iterator[Node]:
            for node in nodes:
                yield node
                for child in node.children():
                    yield from walk(child)

        return walk(self.nodes)


@dataclass
class Program:
    seed: int
    opt_level: int
    helpers: list[Function] = field(default_factory=list)
    kernels: list[Function] = field(default_factory=list)
    library: list[Function] = field(default_factory=list)
    avoid: frozenset[str] = frozenset()
    """The known bugs (KNOWN) it was made not to show."""

    def text(self) -> str:
        lines = [f"// gpuc fuzz program, seed {self.seed}, -O{self.opt_level}"]
        for f in (*self.kernels, *self.helpers):
            lines += [*f.render(), ""]
        return "\n".join(lines)

    def library_text(self) -> str | None:
        if not self.library:
            return None
        lines = [f"// gpuc fuzz library, seed {self.seed}"]
        for f in self.library:
            lines += [*f.render(), ""]
        return "\n".join(lines)

    def functions(self) -> Iterator[Function]:
        yield from self.kernels
        yield from self.helpers
        yield from self.library


# Values a program starts from: each type's extremes, zeros, NaNs with payloads.
def special_floats(ty: str) -> list[int]:
    if ty == "f16":
        return [
            0x0000,
            0x8000,
            0x3C00,
            0xBC00,
            0x7C00,
            0xFC00,
            0x7E00,
            0x7E01,
            0xFD55,
            0x0001,
            0x03FF,
            0x7BFF,
            0xFBFF,
            0x0400,
            0x3555,
        ]
    if ty == "f32":
        return [
            0x00000000,
            0x80000000,
            0x3F800000,
            0xBF800000,
            0x7F800000,
            0xFF800000,
            0x7FC00000,
            0x7FA00001,
            0xFFC12345,
            0x00000001,
            0x007FFFFF,
            0x7F7FFFFF,
            0xFF7FFFFF,
            0x00800000,
            0x4B800001,
        ]
    return [
        0,
        1 << 63,
        0x3FF0000000000000,
        0xBFF0000000000000,
        0x7FF0000000000000,
        0xFFF0000000000000,
        0x7FF8000000000000,
        0x7FF4000000000001,
        0xFFF8000000ABCDEF,
        1,
        0x000FFFFFFFFFFFFF,
        0x7FEFFFFFFFFFFFFF,
        0xFFEFFFFFFFFFFFFF,
        0x0010000000000000,
        0x4340000000000001,
    ]


def random_float_bits(rng: random.Random, ty: str) -> int:
    bits = FLOAT_BITS[ty]
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(special_floats(ty))
    if roll < 0.6:  # a small number with few digits, the common case
        value = rng.choice([-1, 1]) * rng.randint(0, 64) / rng.choice([1, 2, 4, 8])
        fmt = {"f16": "<e", "f32": "<f", "f64": "<d"}[ty]
        code = {16: "<H", 32: "<I", 64: "<Q"}[bits]
        return struct.unpack(code, struct.pack(fmt, value))[0]
    return rng.getrandbits(bits)


def random_int(rng: random.Random, width: int) -> int:
    """An unsigned representative of a `width`-bit integer."""
    mask = (1 << width) - 1
    roll = rng.random()
    if roll < 0.35:
        return rng.choice([0, 1, mask, 1 << (width - 1), mask >> 1, 2, 7]) & mask
    if roll < 0.7:
        return rng.randint(-20, 20) & mask
    return rng.getrandbits(width)


def int_literal(value: int, ty: str) -> str:
    if ty == "i1":
        return "true" if value & 1 else "false"
    w = WIDTH[ty]
    value &= (1 << w) - 1
    if value >= 1 << (w - 1):
        value -= 1 << w
    return f"{value} : {ty}"


def float_literal(bits: int, ty: str, rng: random.Random) -> str:
    """The constant as hex bits, or as a decimal where that is exact."""
    fmt = {"f16": ("<H", "<e"), "f32": ("<I", "<f"), "f64": ("<Q", "<d")}[ty]
    (value,) = struct.unpack(fmt[1], struct.pack(fmt[0], bits))
    finite = value == value and abs(value) != float("inf")
    if finite and rng.random() < 0.5 and float(value).is_integer() and abs(value) < 1e6:
        return f"{float(value)!r} : {ty}"
    return f"0x{bits:0{FLOAT_BITS[ty] // 4}X} : {ty}"


INT_BINARY = (
    "addi",
    "subi",
    "muli",
    "andi",
    "ori",
    "xori",
    "minsi",
    "maxsi",
    "minui",
    "maxui",
)
SHIFTS = ("shli", "shrui", "shrsi")
DIVISIONS = ("divui", "remui", "divsi", "remsi", "ceildivsi", "floordivsi", "ceildivui")
CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF = (
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
FLOAT_BINARY = ("addf", "subf", "mulf", "divf", "maximumf", "minimumf")
EXACT_MATH = ("floor", "ceil", "trunc", "roundeven", "round")
APPROX_MATH = (
    "sqrt",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "exp2",
    "log2",
    "erf",
    "atan",
    "cbrt",
    "expm1",
    "log1p",
)
INT_MATH = ("absi", "ctlz", "cttz", "ctpop")
RMW_INT = ("add", "and", "or", "xor", "max", "min", "umax", "umin")
RMW_FLOAT = ("add", "max", "min")
JOBS = (
    "#gpuc.job<helper>",
    "#gpuc.job<helper, always_inline>",
    "#gpuc.job<helper, no_inline>",
    '#gpuc.job<helper, generator = "mock_autodiff">',
    '#gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}>',
)
HINTS = ("", "always_inline", "no_inline")

KNOWN: dict[str, str] = {
    "intel-slt-minus-one": "Intel's OpenCL CPU runtime folds `i ult n && i slt "
    "-1` wrongly (its bug, not gpuc's): no signed comparison with a constant -1",
    "spirv-value-across-barrier": "Intel's OpenCL CPU runtime (its bug, not "
    "gpuc's: the same OpenCL C through pyopencl does it too, seed 60110): a "
    "value loaded from global memory before a barrier and stored after it gets "
    "the value of a thread of the block's last 16-wide chunk (seen with blocks "
    "of 2, 3, 64 and 4 x 4 threads): avoided by one-thread blocks",
}
"""Known bugs a run can `avoid` (by not generating what shows them), so that
it finds others; tests/test_fuzz.py checks that each still reproduces."""


class Builder:
    """Generates the body of one function into nested node lists."""

    def __init__(self, gen: Generator, func: Function, kernel: bool) -> None:
        self.gen, self.rng, self.func, self.kernel = gen, gen.rng, func, kernel
        self.nodes: list[Node] = func.nodes
        self.pool: dict[str, list[Value]] = {}
        self.depth = 0
        self.uniform = True
        """Whether every thread of a block reaches this point (barriers allowed)."""
        self.index_consts: dict[int, str] = {}

    # -- names and values --------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        return self.gen.fresh(hint)

    def add(self, value: Value) -> Value:
        self.pool.setdefault(value.ty, []).append(value)
        return value

    def emit(self, lines: list[str], results: list[tuple[str, str]]) -> Node:
        node = Node(lines, results)
        self.nodes.append(node)
        return node

    def const(self, ty: str, value: int | None = None) -> Value:
        name = self.fresh("c")
        if is_float(ty):
            bits = random_float_bits(self.rng, ty) if value is None else value
            lit = float_literal(bits, ty, self.rng)
        else:
            raw = random_int(self.rng, WIDTH[ty]) if value is None else value
            lit = int_literal(raw, ty)
            self.emit([f"%{name} = arith.constant {lit}"], [(name, ty)])
            return Value(name, ty, constant=raw & ((1 << WIDTH[ty]) - 1))
        self.emit([f"%{name} = arith.constant {lit}"], [(name, ty)])
        return Value(name, ty)

    def index_const(self, value: int) -> str:
        """An index constant defined in the function's prologue."""
        if value not in self.index_consts:
            name = self.fresh("k")
            self.func.prologue.append(f"%{name} = arith.constant {value} : index")
            self.index_consts[value] = name
        return self.index_consts[value]

    def pick(self, ty: str) -> Value:
        values = self.pool.get(ty, [])
        if values and self.rng.random() < 0.9:
            return self.rng.choice(values)
        return self.add(self.const(ty))

    def pick_type(self, choices: tuple[str, ...] | None = None) -> str:
        choices = choices or (*INTS, "index", *FLOATS)
        present = [t for t in choices if self.pool.get(t)]
        if present and self.rng.random() < 0.8:
            return self.rng.choice(present)
        return self.rng.choice(choices)

    def op(self, text: str, ty: str, kind: str = BITS, hint: str = "v") -> Value:
        name = self.fresh(hint)
        self.emit([f"%{name} = {text}"], [(name, ty)])
        return self.add(Value(name, ty, kind))

    @staticmethod
    def joined(*values: Value) -> str:
        worst = max(_RANK[v.kind] for v in values)
        return BITS if worst == 0 else VALUE

    def masked(self, v: Value, mask: int) -> Value:
        """`v & mask` (a fresh node, not in the pool)."""
        m = self.const(v.ty, mask)
        name = self.fresh("m")
        self.emit(
            [f"%{name} = arith.andi %{v.name}, %{m.name} : {v.ty}"], [(name, v.ty)]
        )
        return Value(name, v.ty)

    def small_int(self) -> Value:
        """An i8 value, for conversions that must stay in range."""
        v = self.pick(self.rng.choice(("i8", "i16", "i32")))
        if v.ty == "i8":
            return v
        name = self.fresh("t")
        self.emit([f"%{name} = arith.trunci %{v.name} : {v.ty} to i8"], [(name, "i8")])
        return Value(name, "i8")

    def integral_float(self, ty: str) -> Value:
        """A float holding a small integer (atomics whose order must not matter)."""
        s = self.small_int()
        name = self.fresh("f")
        self.emit([f"%{name} = arith.sitofp %{s.name} : i8 to {ty}"], [(name, ty)])
        return Value(name, ty)

    # -- statements ----------------------------------------------------------
    def statements(self, count: int) -> None:
        for _ in range(count):
            self.statement()

    def statement(self) -> None:
        choices: list[tuple[float, object]] = [
            (10, self.int_binary),
            (3, self.shift),
            (3, self.division),
            (4, self.cmpi),
            (4, self.select),
            (4, self.int_cast),
            (2, self.mul_extended),
            (2, self.int_math),
            (8, self.float_binary),
            (3, self.cmpf),
            (3, self.float_cast),
            (3, self.math_op),
            (1, self.bitcast),
            (2, self.constant),
        ]
        if self.gen.callable_helpers(self.func):
            choices.append((4, self.call))
        if self.depth < 2:
            choices += [(2, self.if_), (2, self.for_), (1, self.while_)]
        if self.kernel:
            choices += [
                (5, self.load),
                (3, self.store),
                (2, self.global_atomic),
                (2, self.own_slot_atomic),
            ]
            if self.uniform and self.depth <= 1:
                choices += [(2, self.shared_exchange), (1, self.shared_counter)]
        total = sum(w for w, _ in choices)
        roll = self.rng.random() * total
        for weight, fn in choices:
            roll -= weight
            if roll <= 0:
                fn()  # type: ignore[operator]
                return

    def int_type(self, allow_index: bool = True, allow_i1: bool = True) -> str:
        choices = tuple(
            t
            for t in (*INTS, "index")
            if (allow_index or t != "index") and (allow_i1 or t != "i1")
        )
        return self.pick_type(choices)

    def constant(self) -> None:
        self.add(self.const(self.pick_type()))

    def int_binary(self) -> None:
        ty = self.int_type()
        a, b = self.pick(ty), self.pick(ty)
        op = self.rng.choice(INT_BINARY)
        self.op(f"arith.{op} %{a.name}, %{b.name} : {ty}", ty)

    def shift(self) -> None:
        ty = self.int_type()
        a, b = self.pick(ty), self.pick(ty)
        amount = self.masked(b, WIDTH[ty] - 1)  # a shift by the width is poison
        op = self.rng.choice(SHIFTS)
        self.op(f"arith.{op} %{a.name}, %{amount.name} : {ty}", ty)

    def division(self) -> None:
        ty = self.int_type(allow_i1=False)
        a, b = self.pick(ty), self.pick(ty)
        op = self.rng.choice(DIVISIONS)
        # A divisor in 1..63 (or 1..127 unsigned): never zero, never -1.
        mask = 0x7F if op in ("divui", "remui", "ceildivui") else 0x3F
        low = self.masked(b, mask)
        one = self.const(ty, 1)
        name = self.fresh("d")
        self.emit(
            [f"%{name} = arith.ori %{low.name}, %{one.name} : {ty}"], [(name, ty)]
        )
        self.op(f"arith.{op} %{a.name}, %{name} : {ty}", ty)

    def cmpi(self) -> None:
        ty = self.int_type()
        a, b = self.pick(ty), self.pick(ty)
        pred = self.rng.choice(CMPI)
        all_ones = (1 << WIDTH[ty]) - 1
        if (
            "intel-slt-minus-one" in self.gen.avoid
            and pred[0] == "s"
            and all_ones
            in (
                a.constant,
                b.constant,
            )
        ):
            pred = "u" + pred[1:]
        self.op(f"arith.cmpi {pred}, %{a.name}, %{b.name} : {ty}", "i1")

    def select(self) -> None:
        ty = self.pick_type()
        c, a, b = self.pick("i1"), self.pick(ty), self.pick(ty)
        self.op(
            f"arith.select %{c.name}, %{a.name}, %{b.name} : {ty}",
            ty,
            self.joined(a, b),
        )

    def int_cast(self) -> None:
        src = self.int_type()
        v = self.pick(src)
        if src == "index":
            dst = self.rng.choice(INTS[1:])
            self.op(f"arith.index_cast %{v.name} : index to {dst}", dst)
            return
        if src != "i1" and self.rng.random() < 0.25:
            self.op(f"arith.index_cast %{v.name} : {src} to index", "index")
            return
        wider = [t for t in INTS if WIDTH[t] > WIDTH[src]]
        narrower = [t for t in INTS if WIDTH[t] < WIDTH[src]]
        if wider and (not narrower or self.rng.random() < 0.5):
            op = self.rng.choice(("extsi", "extui"))
            dst = self.rng.choice(wider)
        else:
            op, dst = "trunci", self.rng.choice(narrower)
        self.op(f"arith.{op} %{v.name} : {src} to {dst}", dst)

    def mul_extended(self) -> None:
        ty = self.pick_type(("i8", "i16", "i32", "i64"))
        a, b = self.pick(ty), self.pick(ty)
        op = self.rng.choice(("mului_extended", "mulsi_extended", "addui_extended"))
        lo, hi = self.fresh("lo"), self.fresh("hi")
        hi_ty = "i1" if op == "addui_extended" else ty
        self.emit(
            [
                f"%{lo}, %{hi} = arith.{op} %{a.name}, %{b.name} : {ty}, {hi_ty}"
                if op == "addui_extended"
                else f"%{lo}, %{hi} = arith.{op} %{a.name}, %{b.name} : {ty}"
            ],
            [(lo, ty), (hi, hi_ty)],
        )
        self.add(Value(lo, ty))
        self.add(Value(hi, hi_ty))

    def int_math(self) -> None:
        ty = self.pick_type(INTS[1:])
        v = self.pick(ty)
        self.op(f"math.{self.rng.choice(INT_MATH)} %{v.name} : {ty}", ty)

    def float_binary(self) -> None:
        ty = self.pick_type(FLOATS)
        a, b = self.pick(ty), self.pick(ty)
        roll = self.rng.random()
        if roll < 0.1:
            self.op(f"arith.negf %{a.name} : {ty}", ty, a.kind)
        elif roll < 0.15:
            self.terminal(
                f"arith.{self.rng.choice(('maxnumf', 'minnumf'))} "
                f"%{a.name}, %{b.name} : {ty}",
                ty,
                NOZERO,
            )
        else:
            op = self.rng.choice(FLOAT_BINARY)
            self.op(f"arith.{op} %{a.name}, %{b.name} : {ty}", ty, VALUE)

    def cmpf(self) -> None:
        ty = self.pick_type(FLOATS)
        a, b = self.pick(ty), self.pick(ty)
        self.op(
            f"arith.cmpf {self.rng.choice(CMPF)}, %{a.name}, %{b.name} : {ty}", "i1"
        )

    def float_cast(self) -> None:
        roll = self.rng.random()
        if roll < 0.35:
            src = self.pick_type(FLOATS)
            dst = self.rng.choice([t for t in FLOATS if t != src])
            op = "extf" if FLOAT_BITS[dst] > FLOAT_BITS[src] else "truncf"
            v = self.pick(src)
            self.op(
                f"arith.{op} %{v.name} : {src} to {dst}",
                dst,
                VALUE,  # LLVM leaves the payload of a NaN it converts unspecified
            )
        elif roll < 0.75:
            src = self.int_type(allow_index=False)
            dst = self.rng.choice(FLOATS)
            op = self.rng.choice(("sitofp", "uitofp"))
            v = self.pick(src)
            self.op(f"arith.{op} %{v.name} : {src} to {dst}", dst, VALUE)
        else:  # fptosi/fptoui of a float that holds a small integer
            fty = self.rng.choice(FLOATS)
            f = self.integral_float(fty)
            if self.rng.random() < 0.5:
                dst = self.rng.choice(("i8", "i16", "i32", "i64"))
                self.op(f"arith.fptosi %{f.name} : {fty} to {dst}", dst)
            else:
                m = self.fresh("a")
                self.emit([f"%{m} = math.absf %{f.name} : {fty}"], [(m, fty)])
                dst = self.rng.choice(("i8", "i16", "i32", "i64"))
                self.op(f"arith.fptoui %{m} : {fty} to {dst}", dst)

    def math_op(self) -> None:
        ty = self.pick_type(FLOATS[1:])  # gpuc has no math on half
        a = self.pick(ty)
        roll = self.rng.random()
        if roll < 0.3:
            self.op(f"math.{self.rng.choice(EXACT_MATH)} %{a.name} : {ty}", ty, VALUE)
        elif roll < 0.4:
            self.op(f"math.absf %{a.name} : {ty}", ty, a.kind)
        elif roll < 0.5:
            b = self.pick(ty)
            self.op(f"math.copysign %{a.name}, %{b.name} : {ty}", ty, self.joined(a, b))
        elif roll < 0.6:
            b, c = self.pick(ty), self.pick(ty)
            self.op(f"math.fma %{a.name}, %{b.name}, %{c.name} : {ty}", ty, VALUE)
        elif ty != "f16":
            fn = self.rng.choice(APPROX_MATH)
            self.terminal(f"math.{fn} %{a.name} : {ty}", ty, APPROX)

    def bitcast(self) -> None:
        pairs = (("i16", "f16"), ("i32", "f32"), ("i64", "f64"))
        src, dst = self.rng.choice(pairs)
        if self.rng.random() < 0.5:
            src, dst = dst, src
        v = self.pick(src)
        self.op(f"arith.bitcast %{v.name} : {src} to {dst}", dst)

    def terminal(self, text: str, ty: str, mode: str) -> None:
        """A value compared only as stored (with a tolerance, or with either
        zero sign), never computed with: a kernel stores it at once."""
        if not self.kernel:
            return
        name = self.fresh("r")
        self.emit([f"%{name} = {text}"], [(name, ty)])
        self.store_value(Value(name, ty), mode)

    # -- calls ---------------------------------------------------------------
    def call(self) -> None:
        helper = self.rng.choice(self.gen.callable_helpers(self.func))
        args = [self.pick(p.ty) for p in helper.params]
        assert helper.ret is not None
        arg_text = ", ".join(f"%{a.name}" for a in args)
        sig = f"({', '.join(p.ty for p in helper.params)}) -> {helper.ret.ty}"
        if helper in self.gen.program.library or self.rng.random() < 0.5:
            job = self.rng.choice(JOBS)
            text = f"gpuc.deferred_call @{helper.name}({arg_text}) {job} : {sig}"
        else:
            text = f"gpuc.call @{helper.name}({arg_text}) : {sig}"
        # What the helper returns may be an argument: as exact as the least one.
        self.op(text, helper.ret.ty, self.joined(helper.ret, *args), "call")

    # -- control flow --------------------------------------------------------
    def nested(
        self,
        nodes: list[Node],
        uniform: bool,
        count: int,
        extra: dict[str, list[Value]] | None = None,
    ) -> dict[str, list[Value]]:
        """Generate `count` statements into `nodes` in a child scope; its pool."""
        saved = (self.nodes, self.pool, self.uniform)
        self.nodes = nodes
        self.pool = {t: list(vs) for t, vs in saved[1].items()}
        for ty, values in (extra or {}).items():
            self.pool.setdefault(ty, []).extend(values)
        self.uniform = uniform and saved[2]
        self.depth += 1
        try:
            self.statements(count)
            return self.pool
        finally:
            self.nodes, self.pool, self.uniform = saved
            self.depth -= 1

    def yield_values(
        self, pool: dict[str, list[Value]], types: list[str]
    ) -> list[Value]:
        saved = self.pool
        self.pool = pool
        try:
            return [self.pick(t) for t in types]
        finally:
            self.pool = saved

    def if_(self) -> None:
        cond = self.pick("i1")
        types = [self.pick_type() for _ in range(self.rng.randint(0, 2))]
        node = IfNode(cond=cond.name)
        self.nodes.append(node)
        # The yielded values are generated inside the branch, so that the
        # branch's nodes may define them.
        then_pool = self.nested(node.then, False, self.rng.randint(1, 4))
        then_vals = self.yield_in(node.then, then_pool, types)
        else_vals: list[Value] = []
        if types or self.rng.random() < 0.5:
            else_pool = self.nested(node.other, False, self.rng.randint(0, 3))
            else_vals = self.yield_in(node.other, else_pool, types)
        node.then_yield = [v.name for v in then_vals]
        node.other_yield = [v.name for v in else_vals]
        for i, ty in enumerate(types):
            name = self.fresh("if")
            node.results.append((name, ty))
            self.add(Value(name, ty, self.joined(then_vals[i], else_vals[i])))

    def yield_in(
        self, nodes: list[Node], pool: dict[str, list[Value]], types: list[str]
    ) -> list[Value]:
        saved = self.nodes
        self.nodes = nodes
        try:
            return self.yield_values(pool, types)
        finally:
            self.nodes = saved

    def for_(self) -> None:
        uniform = self.rng.random() < 0.6
        node = ForNode()
        if uniform:
            node.lb = self.index_const(self.rng.randint(0, 1))
            node.ub = self.index_const(self.rng.randint(0, 4))
            node.step = self.index_const(self.rng.randint(1, 2))
        else:  # a trip count of 0..7 that differs between threads
            v = self.pick(self.int_type(allow_index=False, allow_i1=False))
            m = self.masked(v, 7)
            ub = self.fresh("ub")
            self.emit(
                [f"%{ub} = arith.index_cast %{m.name} : {m.ty} to index"],
                [(ub, "index")],
            )
            node.lb, node.ub = self.index_const(0), ub
            node.step = self.index_const(self.rng.randint(1, 2))
        node.iv = self.fresh("iv")
        types = [self.pick_type() for _ in range(self.rng.randint(0, 2))]
        inits = [self.pick(t) for t in types]
        args = [
            Value(self.fresh("acc"), t, i.kind)
            for t, i in zip(types, inits, strict=True)
        ]
        node.carried = [(a.name, i.name) for a, i in zip(args, inits, strict=True)]
        self.nodes.append(node)
        extra: dict[str, list[Value]] = {"index": [Value(node.iv, "index")]}
        for a in args:
            extra.setdefault(a.ty, []).append(a)
        pool = self.nested(node.loop, uniform, self.rng.randint(1, 5), extra)
        yields = self.yield_in(node.loop, pool, types)
        node.yields = [y.name for y in yields]
        for t, y, a in zip(types, yields, args, strict=True):
            name = self.fresh("for")
            node.results.append((name, t))
            self.add(Value(name, t, self.joined(y, a)))

    def while_(self) -> None:
        node = WhileNode()
        if self.rng.random() < 0.5:
            bound = self.const("i32", self.rng.randint(0, 4))
        else:
            v = self.pick("i32")
            bound = self.masked(v, 7)
        node.bound = bound.name
        node.one = self.const("i32", 1).name
        init = self.const("i32", 0)
        node.counter = (self.fresh("wi"), self.fresh("wj"), init.name)
        types = [self.pick_type() for _ in range(self.rng.randint(1, 2))]
        inits = [self.pick(t) for t in types]
        befores = [self.fresh("wb") for _ in types]
        afters = [
            Value(self.fresh("wa"), t, i.kind)
            for t, i in zip(types, inits, strict=True)
        ]
        node.carried = [
            (b, a.name, i.name) for b, a, i in zip(befores, afters, inits, strict=True)
        ]
        self.nodes.append(node)
        extra: dict[str, list[Value]] = {}
        for a in afters:
            extra.setdefault(a.ty, []).append(a)
        pool = self.nested(node.loop, False, self.rng.randint(1, 4), extra)
        yields = self.yield_in(node.loop, pool, types)
        node.yields = [y.name for y in yields]
        node.results.append((self.fresh("wn"), "i32"))
        for t, y, a in zip(types, yields, afters, strict=True):
            name = self.fresh("while")
            node.results.append((name, t))
            self.add(Value(name, t, self.joined(y, a)))

    # -- memory --------------------------------------------------------------
    def load(self) -> None:
        kg = self.gen.kernel_state
        ty = self.rng.choice(kg.in_types)
        base = kg.param("in", ty)
        roll = self.rng.random()
        pty = ptr(ty)
        if roll < 0.3:  # a data-dependent offset below PAD
            v = self.pick(self.int_type(allow_index=False, allow_i1=False))
            m = self.masked(v, PAD - 1)
            k = self.fresh("o")
            i = self.fresh("i")
            self.emit(
                [
                    f"%{k} = arith.index_cast %{m.name} : {m.ty} to index",
                    f"%{i} = arith.addi %{kg.gid}, %{k} : index",
                ],
                [(k, "index"), (i, "index")],
            )
            self.op(f"gpuc.load %{base}[%{i}] : {pty}", ty, hint="ld")
            return
        k = self.index_const(self.rng.randrange(PAD))
        p = self.fresh("p")
        if roll < 0.6:
            self.emit([f"%{p} = gpuc.offset %{base}[%{k}] : {pty}"], [])
            self.op(f"gpuc.load %{p}[%{kg.gid}] : {pty}", ty, hint="ld")
        else:
            i = self.fresh("i")
            g = ptr(ty, "generic")
            self.emit(
                [
                    f"%{i} = arith.addi %{kg.gid}, %{k} : index",
                    f"%{p} = gpuc.addrspace_cast %{base} : {pty} to {g}",
                ],
                [(i, "index")],
            )
            self.op(f"gpuc.load %{p}[%{i}] : {g}", ty, hint="ld")

    def store(self) -> None:
        ty = self.pick_type()
        if not self.pool.get(ty):
            return
        v = self.rng.choice(self.pool[ty])
        self.store_value(v, v.kind if is_float(ty) else BITS)

    def store_value(self, v: Value, mode: str) -> None:
        """Store `v` into the thread's next slot of its type's output."""
        kg = self.gen.kernel_state
        lines: list[str] = []
        name, ty = v.name, v.ty
        if ty in OUT_INT:
            wide = OUT_INT[ty]
            conv = self.fresh("w")
            op = "extui" if ty == "i1" else "index_cast"
            lines.append(f"%{conv} = arith.{op} %{name} : {ty} to {wide}")
            name, ty = conv, wide
        base = kg.out_base(ty)
        slot = self.index_const(kg.next_slot(ty, mode))
        lines.append(f"gpuc.store %{name}, %{base}[%{slot}] : {ptr(ty)}")
        self.emit(lines, [])

    def global_atomic(self) -> None:
        kg = self.gen.kernel_state
        ty = self.rng.choice(ATOMIC_TYPES)
        acc = kg.param("acc", ty)
        k = self.index_const(self.rng.randrange(4))
        if is_float(ty):
            v = self.integral_float(ty)
            kind = self.rng.choice(RMW_FLOAT)
        else:
            v = self.pick(ty)
            kind = self.rng.choice(RMW_INT)
        old = self.fresh("old")
        self.emit(
            [
                f"%{old} = gpuc.atomic_rmw {kind} %{acc}[%{k}], %{v.name} "
                f"{self.ordering()}: {ptr(ty)}"
            ],
            [(old, ty)],
        )

    def ordering(self) -> str:
        return self.rng.choice(("", "", "seq_cst ", "acq_rel ", "relaxed "))

    def own_slot_atomic(self) -> None:
        """An atomic on the thread's own slot: its old value is deterministic."""
        kg = self.gen.kernel_state
        ty = self.rng.choice(ATOMIC_TYPES)
        slot = kg.param("slot", ty)
        p = self.fresh("sp")
        lines = [f"%{p} = gpuc.offset %{slot}[%{kg.gid}] : {ptr(ty)}"]
        old = self.fresh("old")
        roll = self.rng.random()
        if roll < 0.4 and not is_float(ty):  # compare-exchange is integer-only
            cur = self.fresh("cur")
            lines.append(f"%{cur} = gpuc.load %{p} : {ptr(ty)}")
            if self.rng.random() < 0.6:
                expected = cur
            else:
                expected = self.pick(ty).name
            desired = self.pick(ty)
            self.emit(lines, [])
            self.emit(
                [
                    f"%{old} = gpuc.atomic_cmpxchg %{p}, %{expected}, "
                    f"%{desired.name} {self.ordering()}: {ptr(ty)}"
                ],
                [(old, ty)],
            )
        else:
            kinds = ("exchange", *(RMW_FLOAT if is_float(ty) else RMW_INT))
            kind = self.rng.choice(kinds)
            self.emit(lines, [])
            if is_float(ty) and kind in ("min", "max"):
                v = self.integral_float(ty)
            else:
                v = self.pick(ty)
            self.emit(
                [
                    f"%{old} = gpuc.atomic_rmw {kind} %{p}, %{v.name} "
                    f"{self.ordering()}: {ptr(ty)}"
                ],
                [(old, ty)],
            )
        if is_float(ty):
            # A float atomic's result is a computed value (its NaN payload is
            # unspecified), and min/max may keep either zero of equal ones.
            self.store_value(Value(old, ty), NOZERO)
        else:
            self.add(Value(old, ty))

    def shared_exchange(self) -> None:
        """s[tid] = v; barrier; w = s[(tid + k) % threads]; barrier — in a
        loop of constant trip count carrying v, or once."""
        kg = self.gen.kernel_state
        ty = self.pick_type((*INTS[1:], *FLOATS))
        s = kg.shared(ty, kg.block_threads)
        k = self.index_const(self.rng.randint(1, 3))
        via_generic = self.rng.random() < 0.3
        node_lines: list[str] = []
        j, jm, w = self.fresh("j"), self.fresh("jm"), self.fresh("sh")
        src = s
        if via_generic:
            src = self.fresh("gs")
            node_lines.append(
                f"%{src} = gpuc.addrspace_cast %{s} : {ptr(ty, 'shared')}"
                f" to {ptr(ty, 'generic')}"
            )
        space = "generic" if via_generic else "shared"
        v = self.pick(ty)
        if self.depth == 0 and self.rng.random() < 0.4:
            node = ForNode(
                lb=self.index_const(0),
                ub=self.index_const(self.rng.randint(1, 3)),
                step=self.index_const(1),
                iv=self.fresh("iv"),
            )
            acc = self.fresh("acc")
            node.carried = [(acc, v.name)]
            cur = acc
        else:
            node = None
            cur = v.name
        body = [
            *node_lines,
            f"gpuc.store %{cur}, %{s}[%{kg.tid}] : {ptr(ty, 'shared')}",
            "gpuc.barrier",
            f"%{j} = arith.addi %{kg.tid}, %{k} : index",
            f"%{jm} = arith.remui %{j}, %{kg.bsize} : index",
            f"%{w} = gpuc.load %{src}[%{jm}] : {ptr(ty, space)}",
            "gpuc.barrier",
        ]
        if node is None:
            self.emit(body, [(w, ty)])
            self.add(Value(w, ty, v.kind))
            return
        nxt = self.fresh("nx")
        op = "xori" if not is_float(ty) else "addf"
        body.append(f"%{nxt} = arith.{op} %{w}, %{cur} : {ty}")
        node.loop = [Node(body, [(w, ty), (nxt, ty)])]
        node.yields = [nxt]
        res = self.fresh("for")
        node.results = [(res, ty)]
        self.nodes.append(node)
        self.add(Value(res, ty, BITS if not is_float(ty) else VALUE))

    def shared_counter(self) -> None:
        """Thread 0 sets shared counters, every thread updates one at a
        constant index atomically, everyone reads it back."""
        kg = self.gen.kernel_state
        ty = self.rng.choice(ATOMIC_TYPES)
        count = self.rng.randint(1, 4)
        s = kg.shared(ty, count)
        pty = ptr(ty, "shared")
        is0 = self.fresh("first")
        init = [
            self.const(ty) if not is_float(ty) else self.integral_float(ty)
            for _ in range(count)
        ]
        node = IfNode(cond=is0)
        node.then = [
            Node(
                [
                    f"gpuc.store %{c.name}, %{s}[%{self.index_const(i)}] : {pty}"
                    for i, c in enumerate(init)
                ],
                [],
            )
        ]
        k = self.index_const(self.rng.randrange(count))
        if is_float(ty):
            v = self.integral_float(ty)
            kind = self.rng.choice(RMW_FLOAT)
        else:
            v = self.pick(ty)
            kind = self.rng.choice(RMW_INT)
        old, r = self.fresh("old"), self.fresh("cnt")
        self.emit(
            [f"%{is0} = arith.cmpi eq, %{kg.tid}, %{self.index_const(0)} : index"],
            [(is0, "i1")],
        )
        # The phase is one node: deleting part of it would race.
        phase = PhaseNode(parts=[node], results=[(r, ty)])
        phase.tail = [
            "gpuc.barrier",
            f"%{old} = gpuc.atomic_rmw {kind} %{s}[%{k}], %{v.name} "
            f"{self.ordering()}: {pty}",
            "gpuc.barrier",
            f"%{r} = gpuc.load %{s}[%{k}] : {pty}",
            "gpuc.barrier",
        ]
        self.nodes.append(phase)
        self.add(Value(r, ty, BITS if not is_float(ty) else VALUE))


@dataclass
class PhaseNode(Node):
    """Nodes, then lines, deleted only as a whole."""

    parts: list[Node] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)

    def body(self, indent: str) -> list[str]:
        return render_nodes(self.parts, indent) + [indent + t for t in self.tail]


class KernelState:
    """What one kernel's generation has asked for: parameters, outputs, shared."""

    def __init__(self, gen: Generator, func: Function, b: Builder) -> None:
        self.gen, self.func, self.b = gen, func, b
        rng = gen.rng
        self.in_types = rng.sample((*INTS[1:], *FLOATS), rng.randint(2, 5))
        self.params: dict[tuple[str, str], Param] = {}
        self.shared_allocs: list[str] = []
        self.block_threads = 1
        for d in func.block:
            self.block_threads *= d
        self.tid, self.gid, self.bsize = "tid", "gid", "bsize"

    def param(self, role: str, ty: str) -> str:
        key = (role, ty)
        if key not in self.params:
            length = {
                "in": self.func.threads + PAD,
                "acc": 4,
                "slot": self.func.threads,
            }.get(role, 0)
            pty = ty if role == "scalar" else ptr(ty)
            self.params[key] = Param(f"{role}_{ty}", pty, role, ty, length)
        return self.params[key].name

    def out_base(self, ty: str) -> str:
        self.param("out", ty)
        self.func.slots.setdefault(ty, [])
        return f"ob_{ty}"

    def next_slot(self, ty: str, mode: str) -> int:
        slots = self.func.slots.setdefault(ty, [])
        slots.append(mode)
        return len(slots) - 1

    def shared(self, ty: str, count: int) -> str:
        name = self.gen.fresh("shared")
        self.shared_allocs.append(
            f"%{name} = gpuc.shared_alloc {count} : {ptr(ty, 'shared')}"
        )
        return name

    def prologue(self) -> list[str]:
        """Index computations and output bases (rendered once the body is done)."""
        lines: list[str] = []
        if (
            len(self.func.block) == 1
            and len(self.func.grid) == 1
            and self.gen.rng.random() < 0.5
        ):
            lines += [
                "%gid = gpuc.global_id x",
                "%tid = gpuc.thread_id x",
                "%bsize = gpuc.block_dim x",
            ]
        else:
            for d in "xyz":
                lines += [
                    f"%t{d} = gpuc.thread_id {d}",
                    f"%bd{d} = gpuc.block_dim {d}",
                    f"%b{d} = gpuc.block_id {d}",
                    f"%gd{d} = gpuc.grid_dim {d}",
                ]
            lines += [
                "%tyx = arith.muli %ty, %bdx : index",
                "%bdxy = arith.muli %bdx, %bdy : index",
                "%tzxy = arith.muli %tz, %bdxy : index",
                "%tid0 = arith.addi %tx, %tyx : index",
                "%tid = arith.addi %tid0, %tzxy : index",
                "%bsize = arith.muli %bdxy, %bdz : index",
                "%byx = arith.muli %by, %gdx : index",
                "%gdxy = arith.muli %gdx, %gdy : index",
                "%bzxy = arith.muli %bz, %gdxy : index",
                "%blin0 = arith.addi %bx, %byx : index",
                "%blin = arith.addi %blin0, %bzxy : index",
                "%gfirst = arith.muli %blin, %bsize : index",
                "%gid = arith.addi %gfirst, %tid : index",
            ]
        lines += [
            "%tid_i32 = arith.index_cast %tid : index to i32",
            "%gid_i64 = arith.index_cast %gid : index to i64",
        ]
        for ty, slots in self.func.slots.items():
            k = max(len(slots), 1)
            lines += [
                f"%ok_{ty} = arith.constant {k} : index",
                f"%oi_{ty} = arith.muli %gid, %ok_{ty} : index",
                f"%ob_{ty} = gpuc.offset %out_{ty}[%oi_{ty}] : {ptr(ty)}",
            ]
        return lines + self.shared_allocs


class Generator:
    """`Generator(seed).program()`: the program of that seed."""

    def __init__(
        self, seed: int, size: int = 12, avoid: frozenset[str] = frozenset()
    ) -> None:
        self.avoid = avoid
        self.rng = random.Random(seed)
        self.seed = seed
        self.size = size
        self.counter = 0
        self.program = Program(seed, self.rng.choice((0, 1, 2, 3, 3)), avoid=avoid)
        self.kernel_state: KernelState

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"{hint}{self.counter}"

    def callable_helpers(self, func: Function) -> list[Function]:
        """Helpers `func` may call: those made before it (so no recursion)."""
        found: list[Function] = []
        for h in (*self.program.library, *self.program.helpers):
            if h is func:
                break
            found.append(h)
        return found

    def helper(self, library: bool) -> Function:
        rng = self.rng
        types = [
            rng.choice((*INTS, "index", *FLOATS)) for _ in range(rng.randint(1, 3))
        ]
        params = [Param(self.fresh("a"), t, "arg", t) for t in types]
        prefix = "lib" if library else "h"
        hint = "" if library else rng.choice(HINTS)
        func = Function(self.fresh(prefix), params, hint, public=library)
        b = Builder(self, func, kernel=False)
        for p in params:
            b.add(Value(p.name, p.ty))
        if not library and rng.random() < 0.2:  # reads the kernel state
            t = self.fresh("ht")
            func.prologue.append(f"%{t} = gpuc.thread_id x")
            b.add(Value(t, "index"))
        b.statements(rng.randint(1, 6))
        ret_ty = b.pick_type()
        func.ret = b.pick(ret_ty)
        return func

    def kernel(self, index: int) -> Function:
        rng = self.rng
        ndim = rng.choice((1, 1, 2, 3))
        block = tuple(rng.choice((1, 2, 3, 4, 8)) for _ in range(ndim))
        if ndim == 1:
            block = (rng.choice((1, 7, 16, 32, 33, 64)),)
        if "spirv-value-across-barrier" in self.avoid and math.prod(block) > 1:
            # The runtime's bug needs a block of several threads; which shapes
            # are safe is not known (16 in 1-D is, 4 x 4 is not).
            block = (1,) * ndim
        grid = tuple(rng.choice((1, 1, 2, 3)) for _ in range(ndim))
        func = Function(f"k{index}", [], "kernel", grid=grid, block=block)
        b = Builder(self, func, kernel=True)
        kg = self.kernel_state = KernelState(self, func, b)
        for v in ("tid", "gid"):
            b.add(Value(v, "index"))
        b.add(Value("tid_i32", "i32"))
        b.add(Value("gid_i64", "i64"))
        scalars = [*INTS[1:], *FLOATS]
        for ty in rng.sample(scalars, rng.randint(0, 3)):
            b.add(Value(kg.param("scalar", ty), ty))
        for _ in range(rng.randint(1, 3)):
            b.load()
        b.statements(rng.randint(self.size // 2, self.size))
        for ty in list(b.pool):  # every value type reaches an output once
            if rng.random() < 0.8:
                v = rng.choice(b.pool[ty])
                b.store_value(v, v.kind if is_float(ty) else BITS)
        if not func.slots:
            b.store_value(Value("gid_i64", "i64"), BITS)
        order = {"in": 0, "scalar": 1, "slot": 2, "acc": 3, "out": 4}
        func.params = sorted(kg.params.values(), key=lambda p: (order[p.role], p.elem))
        func.prologue = kg.prologue() + func.prologue
        return func

    def generate(self) -> Program:
        rng = self.rng
        for _ in range(rng.choice((0, 0, 1, 2))):
            self.program.library.append(self.helper(library=True))
        for _ in range(rng.randint(0, 3)):
            self.program.helpers.append(self.helper(library=False))
        for i in range(rng.choice((1, 1, 2, 3))):
            self.program.kernels.append(self.kernel(i))
        return self.program


def generate(seed: int, size: int = 12, avoid: frozenset[str] = frozenset()) -> Program:
    return Generator(seed, size, avoid).generate()
