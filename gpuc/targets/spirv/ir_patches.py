"""Patches on LLVM IR text, made just before LLVM's SPIR-V back-end emits it,
for what LLVM 22's back-end miscompiles or cannot select. Each is a regular
expression rewrite of the optimized module's text, applied in `PATCHES`'s
order by `patched`; each is tested on its own (tests/test_spirv_ir_patches.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

GLOBAL = r'@(?:[-\w.$]+|"[^"]*")'
POINTER = r"ptr(?: addrspace\(\d+\))?"
BYTE_OFFSET_EXPR = re.compile(
    rf"getelementptr((?: \w+)*) \(i8, ({POINTER}) ({GLOBAL}), i64 (-?\d+)\)"
)
"""A constant expression: a constant byte offset from a global."""
BYTE_OFFSET_INST = re.compile(
    rf"^(\s+)(%[-\w.$]+) = getelementptr((?: \w+)*) i8, ({POINTER}) ({GLOBAL}), "
    r"i64 (-?\d+)((?:, ![-\w.]+ !\d+)*)$",
    re.MULTILINE,
)
"""The same as an instruction (with its metadata attachments: `!dbg`)."""
LABEL = re.compile(r'^(?:[-\w.$]+|"[^"]*"):')


SITOFP_I1 = re.compile(
    r"^(\s+)(%[-\w.$]+) = sitofp i1 (%[-\w.$]+|true|false) to "
    r"(half|float|double)((?:, ![-\w.]+ !\d+)*)$",
    re.MULTILINE,
)
MINUS_ONE = {"half": "0xHBC00", "float": "-1.000000e+00", "double": "-1.000000e+00"}
ZERO = {"half": "0xH0000", "float": "0.000000e+00", "double": "0.000000e+00"}


def signed_bool_conversions(text: str) -> str:
    """LLVM IR text where `sitofp i1 %b to T` is `select i1 %b, T -1.0, T 0.0`.

    LLVM 22's SPIR-V back-end converts an i1 as if it were unsigned (true
    gives +1.0, for every float type and -O level), and LLVM's combiner makes
    such conversions of its own (`sitofp (trunc ... to i1)`), so the rewrite
    is made on the optimized IR, just before emission. Found by the fuzzer
    (tests/fuzz)."""
    return SITOFP_I1.sub(
        lambda m: (
            f"{m[1]}{m[2]} = select i1 {m[3]}, {m[4]} {MINUS_ONE[m[4]]}, "
            f"{m[4]} {ZERO[m[4]]}{m[5]}"
        ),
        text,
    )


NAME = r"%[-\w.$]+"
OPERAND = rf"(?:{NAME}|true|false)"
META = r"((?:, ![-\w.]+ !\d+)*)$"
I1_MUL = re.compile(
    rf"^(\s+)({NAME}) = mul(?: nuw| nsw)* i1 ({OPERAND}), ({OPERAND}){META}", re.M
)
I1_SHIFT = re.compile(
    rf"^(\s+)({NAME}) = (?:shl|lshr|ashr)(?: nuw| nsw| exact)* i1 ({OPERAND}), "
    rf"{OPERAND}{META}",
    re.M,
)
I1_MINMAX = re.compile(
    rf"^(\s+)({NAME}) = (?:tail )?call i1 @llvm\.([us]m(?:ax|in))\.i1\(i1 ({OPERAND}), "
    rf"i1 ({OPERAND})\){META}",
    re.M,
)
I1_TRUNC = re.compile(
    rf"^(\s+)({NAME}) = trunc(?: nuw| nsw)* (i\d+) ({OPERAND}) to i1{META}", re.M
)
BOOL_MINMAX = {"umax": "or", "umin": "and", "smax": "and", "smin": "or"}


def legal_booleans(text: str) -> str:
    """LLVM IR text where i1 arithmetic that LLVM 22's SPIR-V back-end cannot
    express is written as logic it can (LLVM folds these away above -O0, but
    at -O0 spirv-val rejects the output, or emission fails):
    `mul i1` is `and`; a shift of an i1 by an i1 is its operand (a shift by 1
    is poison, which the operand refines); `umax`/`smin` of i1 are `or` and
    `umin`/`smax` `and` (true is -1 signed); `trunc iN %x to i1` tests the low
    bit. Found by the fuzzer (tests/fuzz)."""
    text = I1_MUL.sub(lambda m: f"{m[1]}{m[2]} = and i1 {m[3]}, {m[4]}{m[5]}", text)
    text = I1_SHIFT.sub(lambda m: f"{m[1]}{m[2]} = or i1 {m[3]}, false{m[4]}", text)
    text = I1_MINMAX.sub(
        lambda m: f"{m[1]}{m[2]} = {BOOL_MINMAX[m[3]]} i1 {m[4]}, {m[5]}{m[6]}", text
    )

    def trunc(m: re.Match[str]) -> str:
        low = f'%"{m[2][1:]}.low"'  # quoted: `%1.low` would not be a name
        return (
            f"{m[1]}{low} = and {m[3]} {m[4]}, 1{m[5]}\n"
            f"{m[1]}{m[2]} = icmp ne {m[3]} {low}, 0{m[5]}"
        )

    return I1_TRUNC.sub(trunc, text)


ZEXT_LINE = re.compile(
    rf"^(\s+)({NAME}) = zext(?: nneg)? i(\d+) ({NAME}) to i(\d+){META}", re.M
)
TRUNC_DEF = re.compile(
    rf"^\s+({NAME}) = trunc(?: nuw| nsw)* i(\d+) ({NAME}) to i(\d+)(?:,|$)", re.M
)


def narrowed_zero_extensions(text: str) -> str:
    """LLVM IR text where `zext iM (trunc iK %x to iM) to iN` with K > N is
    `and iN (trunc iK %x to iN), 2^M - 1`.

    At -O0 LLVM 22's SPIR-V back-end folds the pair into one `OpBitwiseAnd`
    of the iN result type on the iK operand, which spirv-val rejects (found
    by the fuzzer: `arith.mului_extended` of i8 values truncated from i64).
    Above -O0 LLVM's combiner makes the same rewrite itself."""
    return in_each_function(text, _narrow_in_body)


def _narrow_in_body(body: str) -> str:
    truncs = {m[1]: (int(m[2]), m[3], int(m[4])) for m in TRUNC_DEF.finditer(body)}

    def narrow(m: re.Match[str]) -> str:
        source = truncs.get(m[4])
        wide, narrow_bits = int(m[5]), int(m[3])
        if source is None or source[2] != narrow_bits or source[0] <= wide:
            return m[0]
        low = f'%"{m[2][1:]}.narrow"'
        mask = (1 << narrow_bits) - 1
        return (
            f"{m[1]}{low} = trunc i{source[0]} {source[1]} to i{wide}{m[6]}\n"
            f"{m[1]}{m[2]} = and i{wide} {low}, {mask}{m[6]}"
        )

    return ZEXT_LINE.sub(narrow, body)


def freeze_global_byte_offsets(text: str) -> str:
    """LLVM IR text where each `getelementptr i8, @global, i64 C` in a function
    takes its offset C through a `freeze`, so that the back-end sees no constant.

    LLVM's O3 turns `&shared[1]` (an i64 array) into a byte offset,
    `getelementptr inbounds nuw (i8, ptr addrspace(3) @k.shared, i64 8)`.
    Above codegen level O0, LLVM 22's SPIR-V back-end folds the bitcast to the
    user's type (an atomic or load of i64) into the access chain and emits
    `OpInBoundsPtrAccessChain %_ptr_Workgroup_ulong %shared %ulong_8`: offset 8
    in elements, not bytes, so the atomic updates `shared[8]`. Constant GEPs of
    any element type from a global are lowered that way, as expression or as
    instruction; a frozen offset keeps the `uchar` access chain and a bitcast.
    The freeze costs nothing: the SPIR-V keeps the constant. A byte offset in
    another constant expression is left alone (gpuc's lowering makes none)."""
    return in_each_function(text, _freeze_in_body)


def in_each_function(text: str, rewrite: Callable[[str], str]) -> str:
    """LLVM IR text with each function's body (its blocks, between the
    `define ... {` line and the `}` line) replaced by `rewrite(body)`: value
    names are the function's own."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.startswith("define ") and line.endswith("{"):
            end = lines.index("}", i)
            out.append(rewrite("\n".join(lines[i:end])))
            i = end
    return "\n".join(out)


def _freeze_in_body(body: str) -> str:
    """`body` (a function's blocks) rewritten, the frozen offsets of byte
    offset expressions defined at the start of its entry block."""
    names: dict[str, str] = {}
    body = BYTE_OFFSET_EXPR.sub(partial(_as_value, body=body, names=names), body)
    body = BYTE_OFFSET_INST.sub(
        r"\1\2.offset = freeze i64 \6\n\1\2 = getelementptr\3 i8, \4 \5, "
        r"i64 \2.offset\7",
        body,
    )
    definitions: list[str] = []
    for expression, name in names.items():
        m = BYTE_OFFSET_EXPR.fullmatch(expression)
        assert m is not None
        flags, ptr, base, offset = m.groups()
        definitions.append(f"  {name}.offset = freeze i64 {offset}")
        definitions.append(
            f"  {name} = getelementptr{flags} i8, {ptr} {base}, i64 {name}.offset"
        )
    lines = body.split("\n")
    entry = 1 if lines and LABEL.match(lines[0]) else 0
    return "\n".join(lines[:entry] + definitions + lines[entry:])


def _as_value(match: re.Match[str], body: str, names: dict[str, str]) -> str:
    """The register to hold `match`'s byte offset expression (recorded in
    `names`), or the expression itself where it is nested in another."""
    if _in_constant_expression(body, match.start()):
        return match.group(0)
    return names.setdefault(match.group(0), f"%gpuc.byte_offset.{len(names)}")


def _in_constant_expression(body: str, position: int) -> bool:
    """Whether `position` lies inside a constant expression's parentheses:
    those follow a space (`addrspacecast (`), a call's follow its callee."""
    start = body.rfind("\n", 0, position) + 1
    opened: list[bool] = []
    for j in range(start, position):
        if body[j] == "(":
            opened.append(j > start and body[j - 1] == " ")
        elif body[j] == ")" and opened:
            opened.pop()
    return any(opened)


PATCHES: tuple[Callable[[str], str], ...] = (
    freeze_global_byte_offsets,
    signed_bool_conversions,
    legal_booleans,
    narrowed_zero_extensions,
)
"""Every patch, in the order they apply."""


def patched(text: str) -> str:
    """LLVM IR text with every patch of `PATCHES` applied."""
    for patch in PATCHES:
        text = patch(text)
    return text
