"""Line tables for SPIR-V: OpString and OpLine, added to the binary LLVM emits.

LLVM 22's SPIR-V back-end drops instructions' debug locations (with
`--spv-emit-nonsemantic-debug-info` it writes a compile unit and types, never
a line, and adds constants, which renumbers the ids), so gpuc adds the line
table itself, after emission, touching nothing else: one OpString per file
(new ids, past the old bound) and an OpLine where the line changes. The
lines come from the LLVM IR that was emitted: within each function, the
SPIR-V instructions are aligned with the LLVM instructions they were
selected from by kind (a load with OpLoad, a `br` with OpBranch, a block with
its OpLabel) and in order, and an instruction LLVM has no counterpart for
(a built-in variable's load, a bitcast the back-end adds) is on the line
before it. OpLine has no call site: an inlined helper's code is on the
helper's lines.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from difflib import SequenceMatcher

OP_STRING, OP_LINE, OP_NAME, OP_FUNCTION, OP_FUNCTION_END = 7, 8, 5, 54, 56
OP_LABEL, OP_VARIABLE, OP_PHI = 248, 59, 245
MERGES = frozenset({246, 247})
"""OpLoopMerge, OpSelectionMerge: their branch must follow them directly."""
PREAMBLE = frozenset({17, 10, 11, 14, 15, 16, 331})
"""OpCapability, OpExtension, OpExtInstImport, OpMemoryModel, OpEntryPoint,
OpExecutionMode(Id): what precedes the debug instructions."""
NO_LINE_BEFORE = frozenset(
    {OP_LABEL, OP_VARIABLE, OP_PHI, 55, OP_FUNCTION, OP_FUNCTION_END}
)
"""Where an OpLine may not go (or need not: a parameter, the function's end)."""

SPIRV_KINDS: dict[int, str] = {
    61: "load",
    62: "store",
    **dict.fromkeys((65, 66, 67, 70), "gep"),
    **dict.fromkeys((249, 250), "br"),
    251: "switch",
    **dict.fromkeys((253, 254, 255), "ret"),
    **dict.fromkeys((57, 12, 224), "call"),
    128: "add",
    129: "fadd",
    130: "sub",
    131: "fsub",
    132: "mul",
    133: "fmul",
    134: "udiv",
    135: "sdiv",
    136: "fdiv",
    137: "urem",
    138: "srem",
    140: "frem",
    127: "fneg",
    196: "shl",
    194: "lshr",
    195: "ashr",
    **dict.fromkeys((197, 166), "or"),
    198: "xor",
    **dict.fromkeys((199, 167), "and"),
    **dict.fromkeys(range(162, 169), "cmp"),
    **dict.fromkeys(range(170, 192), "cmp"),
    169: "select",
    **dict.fromkeys(range(109, 116), "conv"),
    **dict.fromkeys((117, 120, 121, 122, 124), "cast"),
    **dict.fromkeys((*range(227, 243), 6035), "atomic"),
    **dict.fromkeys((77, 78, 79, 80, 81, 82), "vector"),
    OP_PHI: "phi",
    OP_VARIABLE: "alloca",
}
"""SPIR-V opcode -> the kind of LLVM instruction it is selected from."""
LLVM_KINDS: dict[str, str] = {
    "getelementptr": "gep",
    "unreachable": "ret",
    **dict.fromkeys(("icmp", "fcmp"), "cmp"),
    **dict.fromkeys(
        ("zext", "sext", "trunc", "fptoui", "fptosi", "uitofp", "sitofp"), "conv"
    ),
    **dict.fromkeys(("fpext", "fptrunc"), "conv"),
    **dict.fromkeys(("bitcast", "ptrtoint", "inttoptr", "addrspacecast"), "cast"),
    **dict.fromkeys(("atomicrmw", "cmpxchg"), "atomic"),
    **dict.fromkeys(
        ("extractvalue", "insertvalue", "extractelement", "insertelement"), "vector"
    ),
    "shufflevector": "vector",
}
"""LLVM opcodes whose kind is not their own name."""

DEFINE = re.compile(r'^define [^@]*@("[^"]*"|[-\w.$]+)\(')
INSTRUCTION = re.compile(
    r"^\s+(?:%[-\w.$\"]+ = )?(?:(?:tail|musttail|notail) )?([a-z]+)"
)
DBG = re.compile(r", !dbg !(\d+)")
LOCATION = re.compile(
    r"^!(\d+) = (?:distinct )?!DILocation\(line: (\d+)(?:, column: (\d+))?, "
    r"scope: !(\d+)"
)
SCOPE_FILE = re.compile(r"^!(\d+) = (?:distinct )?!DI(?:Subprogram|LexicalBlockFile)\(")
FILE = re.compile(r'^!(\d+) = !DIFile\(filename: "((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Line:
    file: str
    line: int
    column: int


Kinds = list[tuple[str, "Line | None"]]
"""A block's instructions: their kinds and source lines."""
Blocks = list[tuple[str | None, Kinds]]
"""A function's blocks in order: each block's name (None: unnamed) and
instructions."""
LABEL_LINE = re.compile(r'^("(?:[^"\\]|\\.)*"|[-\w.$]+):')


def llvm_lines(text: str) -> dict[str, Blocks]:
    """Each defined function of the LLVM IR `text`: its blocks, with their
    instructions' kinds and source lines, in order."""
    files: dict[str, str] = {}
    scope_files: dict[str, str] = {}
    locations: dict[str, tuple[int, int, str]] = {}
    for line in text.splitlines():
        if not line.startswith("!"):
            continue
        if m := LOCATION.match(line):
            locations[m[1]] = (int(m[2]), int(m[3] or 0), m[4])
        elif m := FILE.match(line):
            files[m[1]] = m[2].encode().decode("unicode_escape")
        elif m := SCOPE_FILE.match(line):
            found = re.search(r"[(,] ?file: !(\d+)", line)
            if found:
                scope_files[m[1]] = found[1]

    def source(dbg: str) -> Line | None:
        loc = locations.get(dbg)
        if loc is None or loc[0] == 0:
            return None
        file = files.get(scope_files.get(loc[2], ""))
        return Line(file, loc[0], loc[1]) if file is not None else None

    functions: dict[str, Blocks] = {}
    blocks: Blocks | None = None
    for line in text.splitlines():
        if blocks is None:
            if m := DEFINE.match(line):
                blocks = functions.setdefault(m[1].strip('"'), [])
            continue
        if line == "}":
            blocks = None
        elif m := LABEL_LINE.match(line):
            name = m[1].strip('"')
            blocks.append((None if name.isdigit() else name, []))
        elif m := INSTRUCTION.match(line):
            if not blocks:
                blocks.append((None, []))  # an entry block without a name
            dbg = DBG.search(line)
            opcode = m[1]
            blocks[-1][1].append(
                (LLVM_KINDS.get(opcode, opcode), source(dbg[1]) if dbg else None)
            )
    return functions


def add_line_table(binary: bytes, llvm_ir: str) -> bytes:
    """`binary` with OpString and OpLine instructions for the lines of the
    LLVM IR `llvm_ir` it was emitted from."""
    words = list(struct.unpack(f"<{len(binary) // 4}I", binary))
    header, body = words[:5], words[5:]
    instructions: list[list[int]] = []
    i = 0
    while i < len(body):
        count = body[i] >> 16
        instructions.append(body[i : i + count])
        i += count
    names = {
        inst[1]: decode_string(inst[2:])
        for inst in instructions
        if inst[0] & 0xFFFF == OP_NAME
    }
    lines = llvm_lines(llvm_ir)
    bound = header[3]
    strings: dict[str, int] = {}
    out: list[list[int]] = []
    function: list[list[int]] | None = None
    for inst in instructions:
        opcode = inst[0] & 0xFFFF
        if opcode == OP_FUNCTION:
            function = [inst]
            continue
        if function is None:
            out.append(inst)
            continue
        function.append(inst)
        if opcode != OP_FUNCTION_END:
            continue
        source = lines.get(names.get(function[0][2], ""))
        located = locate(function, source, names) if source else {}
        current: Line | None = None
        for fi, finst in enumerate(function):
            fop = finst[0] & 0xFFFF
            line = located.get(fi)
            if fop == OP_LABEL:
                current = None  # an OpLine ends with its block
            elif (
                line is not None
                and line != current
                and fop not in NO_LINE_BEFORE
                and function[fi - 1][0] & 0xFFFF not in MERGES
            ):
                if line.file not in strings:
                    strings[line.file] = bound
                    bound += 1
                out.append(
                    [(4 << 16) | OP_LINE, strings[line.file], line.line, line.column]
                )
                current = line
            out.append(finst)
        function = None
    if not strings:
        return binary
    at = next(k for k, inst in enumerate(out) if inst[0] & 0xFFFF not in PREAMBLE)
    for name, ident in sorted(strings.items(), key=lambda item: item[1]):
        literal = encode_string(name)
        out.insert(at, [((2 + len(literal)) << 16) | OP_STRING, ident, *literal])
        at += 1
    header[3] = bound
    flat = header + [w for inst in out for w in inst]
    return struct.pack(f"<{len(flat)}I", *flat)


def locate(
    function: list[list[int]], source: Blocks, names: dict[int, str]
) -> dict[int, Line]:
    """The source line of the instructions of a SPIR-V function (OpFunction
    to OpFunctionEnd, by index), from its LLVM function's blocks `source`.

    The back-end orders blocks so that each comes after its dominators, so
    blocks are paired by name (OpName of the label) where LLVM named them,
    and the rest in order; within a pair, instructions by kind and order."""
    spirv: list[tuple[str | None, list[int]]] = []
    for k, inst in enumerate(function):
        if inst[0] & 0xFFFF == OP_LABEL:
            spirv.append((names.get(inst[1]), []))
        elif spirv:
            spirv[-1][1].append(k)
    llvm = {name: kinds for name, kinds in source if name is not None}
    paired = [(indices, llvm[name]) for name, indices in spirv if name in llvm]
    rest_spirv = [indices for name, indices in spirv if name not in llvm]
    rest_llvm = [
        kinds
        for name, kinds in source
        if name is None or name not in {n for n, _ in spirv}
    ]
    if rest_spirv and rest_llvm:
        paired += [
            (
                sum(([-1, *b] for b in rest_spirv), []),
                sum(([("label", None), *b] for b in rest_llvm), []),
            )
        ]
    located: dict[int, Line] = {}
    for indices, kinds in paired:
        located.update(align(function, indices, kinds))
    return located


def align(
    function: list[list[int]], indices: list[int], source: Kinds
) -> dict[int, Line]:
    """Lines for the SPIR-V instructions `function[i]` for i in `indices`
    (-1: a block boundary) from the LLVM instructions `source` they were
    selected from: equal kinds in order match; instructions selected
    differently (a built-in's call became a load of its variable) take the
    lines of the LLVM ones they replace; the rest, the line before them in
    their block."""
    kinds = [
        "label"
        if k < 0
        else SPIRV_KINDS.get(
            function[k][0] & 0xFFFF, f"spirv:{function[k][0] & 0xFFFF}"
        )
        for k in indices
    ]
    matched: list[Line | None] = [None] * len(indices)
    matcher = SequenceMatcher(None, kinds, [k for k, _ in source], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                matched[i1 + k] = source[j1 + k][1]
        elif tag == "replace":
            for k in range(i2 - i1):
                matched[i1 + k] = source[j1 + k * (j2 - j1) // (i2 - i1)][1]
    located: dict[int, Line] = {}
    previous: Line | None = None
    for k, kind, line in zip(indices, kinds, matched, strict=True):
        if kind == "label":
            previous = None
            continue
        previous = line if line is not None else previous
        if previous is not None:
            located[k] = previous
    return located


def encode_string(text: str) -> list[int]:
    data = text.encode() + b"\0"
    data += b"\0" * (-len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def decode_string(words: list[int]) -> str:
    data = struct.pack(f"<{len(words)}I", *words)
    return data.split(b"\0", 1)[0].decode()
