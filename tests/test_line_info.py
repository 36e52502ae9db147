"""Line tables (`gpuc compile -g`, `line_info=True`): what each target's
artefact says about the input's lines, that its validators and runtimes take
it, and that it never changes the code: for every example on ptx, spirv and
native, the instructions with and without line tables are the same.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.compiler import CompileResult, compile_module
from gpuc.driver import OptionError
from gpuc.tools import ToolError, llvm_tool, ptxas, run_spirv_dis, run_spirv_val

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from cases import EXAMPLES, run  # noqa: E402

TARGETS = ("ptx", "spirv", "native")
SAME_CODE = [
    pytest.param(name, target, id=f"{name}-{target}")
    for name, example in EXAMPLES.items()
    for target in (*TARGETS, "amdgpu")
    if target not in example.unsupported
]

PTX_DEBUG_LINE = re.compile(
    r"^\s*(?:\.loc\s|\.file\s|\$L__(?:func_begin|func_end|tmp)\d+:$)"
)
"""What line tables add to PTX: directives and the labels they refer to."""
SPIRV_DEBUG_LINE = re.compile(r"^\s*(?:%\w+ = OpString |OpLine |OpNoLine$|; )")
"""What gpuc's line tables add to SPIR-V (and spirv-dis's header comments,
whose id bound grows by the OpStrings)."""


def compiled(name: str, target: str, line_info: bool) -> CompileResult:
    return compile_module(EXAMPLES[name].path, target, line_info=line_info)


def ptx_code(ptx: str) -> list[str]:
    """PTX without line directives, their labels and debug sections."""
    kept: list[str] = []
    in_section = False
    for line in ptx.splitlines():
        if in_section:
            in_section = line.strip() != "}"
            continue
        if line.strip().startswith(".section"):
            in_section = not line.rstrip().endswith("}")
            continue
        if not PTX_DEBUG_LINE.match(line):
            kept.append(line)
    return kept


def elf_sections(obj: bytes) -> dict[str, tuple[int, bytes, int]]:
    """The sections of a 64-bit little-endian ELF object: name -> (type,
    contents, linked section index)."""
    assert obj[:4] == b"\x7fELF" and obj[4] == 2 and obj[5] == 1, "not ELF64 LE"
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
    headers = [
        struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize)
        for i in range(shnum)
    ]
    names = headers[shstrndx]
    table = obj[names[4] : names[4] + names[5]]
    sections: dict[str, tuple[int, bytes, int]] = {}
    for name, kind, _, _, offset, size, link, *_ in headers:
        title = table[name : table.index(b"\0", name)].decode()
        data = b"" if kind == 8 else obj[offset : offset + size]  # NOBITS
        sections[title] = (kind, data, link)
    return sections


def section_names(obj: bytes) -> list[str]:
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
    names = struct.unpack_from("<IIQQQQIIQQ", obj, shoff + shstrndx * shentsize)
    table = obj[names[4] : names[4] + names[5]]
    result = []
    for i in range(shnum):
        (name,) = struct.unpack_from("<I", obj, shoff + i * shentsize)
        result.append(table[name : table.index(b"\0", name)].decode())
    return result


def code_sections(obj: bytes) -> dict[str, object]:
    """Everything but the debug sections: the code and data sections' bytes,
    the relocations with their symbols by name (line tables add symbols, so
    the indices move) and the symbols that are not sections or files."""
    sections = elf_sections(obj)
    titles = section_names(obj)
    strtab = sections[".strtab"][1]
    symtab = sections[".symtab"][1]
    symbols: list[tuple[str, int, int, int, str]] = []
    for k in range(len(symtab) // 24):
        name, info, _, shndx, value, size = struct.unpack_from(
            "<IBBHQQ", symtab, k * 24
        )
        where = titles[shndx] if 0 < shndx < len(titles) else str(shndx)
        text = strtab[name : strtab.index(b"\0", name)].decode()
        symbols.append((text or where, info, value, size, where))
    debug = re.compile(r"^(?:\.rela?)?\.debug_")
    result: dict[str, object] = {
        "symbols": sorted(s for s in symbols if s[1] & 0xF not in (3, 4)),
    }
    for title, (kind, data, _) in sections.items():
        if not title or debug.match(title) or kind in (2, 3):  # SYMTAB, STRTAB
            continue
        if kind == 4:  # RELA: (offset, type, symbol, addend)
            result[title] = [
                (offset, info & 0xFFFFFFFF, symbols[info >> 32][0], addend)
                for offset, info, addend in struct.iter_unpack("<QQq", data)
            ]
        else:
            result[title] = data
    return result


@pytest.mark.parametrize(("name", "target"), SAME_CODE)
def test_line_info_never_changes_the_code(name: str, target: str) -> None:
    if target == "amdgpu":  # its code objects are linked by ld.lld
        try:
            llvm_tool("ld.lld")
        except ToolError as e:
            pytest.skip(str(e))
    plain = compiled(name, target, line_info=False).artefact
    lined = compiled(name, target, line_info=True).artefact
    assert plain != lined, "the line tables are missing"
    if target == "ptx":
        assert isinstance(plain, str) and isinstance(lined, str)
        assert ptx_code(lined) == ptx_code(plain)
        assert ".loc\t" in lined
    elif target == "spirv":
        assert isinstance(plain, bytes) and isinstance(lined, bytes)
        run_spirv_val(lined)
        with_lines = run_spirv_dis(lined).splitlines()
        without = run_spirv_dis(plain).splitlines()
        assert any(" OpLine " in line for line in with_lines)
        assert [line for line in with_lines if not SPIRV_DEBUG_LINE.match(line)] == [
            line for line in without if not line.startswith("; ")
        ]
    else:  # native object, amdgpu code object: ELF
        assert isinstance(plain, bytes) and isinstance(lined, bytes)
        sections = elf_sections(lined)
        assert ".debug_line" in sections
        assert code_sections(lined) == code_sections(plain)
        assert any(str(name).startswith(".text") for name in code_sections(plain))


def test_line_info_keeps_the_optimized_llvm_ir() -> None:
    """The same passes run: the optimized IR differs only by `!dbg` (numba
    once turned lineinfo into a debug build)."""
    strip = re.compile(r", !dbg !\d+| !dbg !\d+(?= \{)")
    for target in TARGETS:
        plain = compiled("stencil2d", target, line_info=False).llvm_ir
        lined = compiled("stencil2d", target, line_info=True).llvm_ir

        def code(ir: str) -> list[str]:
            """Instructions, metadata references unnumbered (loop metadata
            gets locations too, so its number moves)."""
            return [
                re.sub(r"!\d+", "!N", strip.sub("", s))
                for s in ir.splitlines()
                if s and s[0] != "!"
            ]

        assert code(lined) == code(plain)


def ptxas_lineinfo(ptx: str, sm: int = 90) -> str:
    """ptxas -lineinfo on `ptx` (relocatable PTX, which calls the device
    runtime, with --compile-only); its messages."""
    tool = ptxas()
    relocatable = ["--compile-only"] if ".extern .func" in ptx else []
    done = subprocess.run(
        [
            str(tool),
            f"-arch=sm_{sm}",
            "-lineinfo",
            *relocatable,
            "-",
            "-o",
            "/dev/null",
        ],
        input=ptx,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.parametrize(
    "name", [n for n, e in EXAMPLES.items() if "ptx" not in e.unsupported]
)
def test_ptxas_accepts_line_info(name: str) -> None:
    ptx = compiled(name, "ptx", line_info=True).artefact
    assert isinstance(ptx, str)
    try:
        ptxas_lineinfo(ptx)
    except ToolError as e:
        pytest.skip(str(e))


def test_ptx_lines_are_the_ops_lines() -> None:
    ptx = compiled("saxpy", "ptx", line_info=True).artefact
    assert isinstance(ptx, str)
    source = EXAMPLES["saxpy"].path.read_text().splitlines()
    assert re.search(r'\.file\t1 ".*examples/saxpy\.mlir"', ptx)
    # Each load of x and y is on the line of its gpuc.load.
    lines = ptx.splitlines()
    loads = [i for i, line in enumerate(lines) if "ld.global" in line]
    assert len(loads) == 2
    for i in loads:
        loc = next(lines[j] for j in range(i, 0, -1) if ".loc\t" in lines[j])
        line = int(loc.split()[2])
        assert "gpuc.load" in source[line - 1], (loc, source[line - 1])


def test_inlined_helper_keeps_its_lines_and_call_site() -> None:
    """deferred_inline's @poly is inlined (its wrapper by gpuc, @poly by
    LLVM): its code is on @poly's lines, inlined at the deferred call's."""
    source = EXAMPLES["deferred_inline"].path.read_text().splitlines()
    call = next(i for i, s in enumerate(source, 1) if "gpuc.deferred_call" in s)
    poly = next(i for i, s in enumerate(source, 1) if "gpuc.func private @poly" in s)
    ir = compiled("deferred_inline", "ptx", line_info=True).llvm_ir
    sites = re.findall(r"!DILocation\(line: (\d+), column: \d+, scope: !(\d+)\)", ir)
    inlined = re.findall(
        r"!DILocation\(line: (\d+), column: \d+, scope: !\d+, inlinedAt: !(\d+)\)", ir
    )
    assert inlined and all(int(line) > poly for line, _ in inlined)
    at = {
        n: line
        for n, line in re.findall(
            r"^!(\d+) = distinct !DILocation\(line: (\d+)", ir, re.M
        )
    }
    at.update(
        {
            n: line
            for n, line in re.findall(r"^!(\d+) = !DILocation\(line: (\d+)", ir, re.M)
        }
    )
    assert {int(at[site]) for _, site in inlined} == {call}
    assert sites
    obj = compiled("deferred_inline", "native", line_info=True).artefact
    assert isinstance(obj, bytes)
    dwarf = dwarfdump(obj, "--debug-info")
    assert "DW_TAG_inlined_subroutine" in dwarf
    assert f"DW_AT_call_line\t({call})" in dwarf
    ptx = compiled("deferred_inline", "ptx", line_info=True).artefact
    assert isinstance(ptx, str)
    helper_lines = {int(line) for line, _ in inlined}
    assert helper_lines <= {int(m) for m in re.findall(r"\.loc\t1 (\d+) ", ptx)}


def dwarfdump(obj: bytes, *flags: str) -> str:
    try:
        tool = llvm_tool("llvm-dwarfdump")
    except ToolError as e:
        pytest.skip(str(e))
    done = subprocess.run(
        [str(tool), *flags, "-"], input=obj, capture_output=True, check=True
    )
    return done.stdout.decode()


def test_native_object_has_a_dwarf_line_table() -> None:
    obj = compiled("saxpy", "native", line_info=True).artefact
    assert isinstance(obj, bytes)
    table = dwarfdump(obj, "--debug-line")
    assert "examples/saxpy.mlir" in table
    source = EXAMPLES["saxpy"].path.read_text().splitlines()
    rows = re.findall(r"^0x[0-9a-f]+\s+(\d+)\s+\d+\s+\d+", table, re.M)
    ops = {int(r) for r in rows if int(r)}
    assert ops and all(source[line - 1].strip() for line in ops)
    assert any("gpuc.load" in source[line - 1] for line in ops)


FRONTEND = """
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x loc("kern.py":12:3)
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
      loc(fused["kern.py":13:5, "kern.py":13:9])
  %w = arith.mulf %v, %v : f32 loc(callsite("helper.py":4:2 at "kern.py":14:1))
  gpuc.store %w, %p[%i] : !gpuc.ptr<f32, global> loc("square"("kern.py":15:7))
  gpuc.return
}
"""


def test_frontend_locations_become_lines() -> None:
    """A frontend's `loc(...)`: a file location, a fused one (its first
    part), a call site (inlined at the caller) and a name location (what it
    wraps) each become the line tables' lines."""
    for target in ("native", "ptx"):
        ir = compile_module(FRONTEND, target, line_info=True, opt_level=0).llvm_ir
        assert '!DIFile(filename: "kern.py"' in ir
        for line, column in ((12, 3), (13, 5), (14, 1), (15, 7)):
            assert f"!DILocation(line: {line}, column: {column}, scope: " in ir
        assert re.search(
            r"!DILocation\(line: 4, column: 2, scope: !\d+, inlinedAt:", ir
        )
        assert '!DIFile(filename: "helper.py"' in ir
    ptx = compile_module(FRONTEND, "ptx", line_info=True).artefact
    assert isinstance(ptx, str)
    assert re.search(r'\.file\t\d+ "kern\.py"', ptx)
    assert re.search(r'\.file\t\d+ "helper\.py"', ptx)


SPIRV_OP_SOURCES = {
    "OpStore": ("gpuc.store",),
    "OpControlBarrier": ("gpuc.barrier",),
    "OpAtomicFAddEXT": ("gpuc.atomic_rmw",),
    "OpAtomicIAdd": ("gpuc.atomic_rmw",),
    "OpFAdd": ("arith.addf",),
    "OpFMul": ("arith.mulf",),
}
"""SPIR-V instructions and the ops they can only come from in the examples."""


@pytest.mark.parametrize(
    "name", [n for n, e in EXAMPLES.items() if "spirv" not in e.unsupported]
)
def test_spirv_lines_are_the_ops_lines(name: str) -> None:
    """Each OpLine's instructions (up to the next OpLine or block) that only
    one kind of op makes are on a line with that op; every OpLine names a
    line of the example."""
    binary = compiled(name, "spirv", line_info=True).artefact
    assert isinstance(binary, bytes)
    text = run_spirv_dis(binary)
    assert re.search(rf'%\w+ = OpString ".*examples/{name}\.mlir"', text)
    source = EXAMPLES[name].path.read_text().splitlines()
    line: int | None = None
    checked = 0
    for row in text.splitlines():
        if m := re.match(r"\s+OpLine %\w+ (\d+) \d+$", row):
            line = int(m[1])
            assert source[line - 1].strip(), row
            continue
        if "OpLabel" in row:
            line = None
        op = re.match(r"\s+(?:%\w+ = )?(\w+)", row)
        if line is not None and op and op[1] in SPIRV_OP_SOURCES:
            wanted = SPIRV_OP_SOURCES[op[1]]
            assert any(w in source[line - 1] for w in wanted), (line, row)
            checked += 1
    assert checked


SEED = zlib.crc32(b"test_line_info")


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("deferred_inline", "spirv"),
        ("histogram", "spirv"),
        ("reduce", "spirv"),
        ("reduce", "native"),
        ("deferred_helper", "native"),
    ],
)
def test_kernels_with_line_info_match_numpy(name: str, target: str) -> None:
    if target == "spirv":
        pytest.importorskip("pyopencl")
        from gpuc.runtime.opencl import intel_cpu_runtime

        if intel_cpu_runtime() is None:
            pytest.skip("intel-opencl-rt not installed")
    example = EXAMPLES[name]
    mod = gpuc.compile(example.path, target=target, line_info=True)
    for i, cfg in enumerate(example.configs):
        run(example, cfg, mod.launch, np.random.default_rng(SEED + i))


def test_line_info_option_is_checked() -> None:
    with pytest.raises(OptionError, match="line_info must be True or False"):
        compile_module(EXAMPLES["saxpy"].path, "ptx", line_info="yes")


def test_cli_g_writes_line_tables(tmp_path: Path) -> None:
    from gpuc.cli.main import main

    out = tmp_path / "saxpy.ptx"
    assert main(["compile", "-g", str(EXAMPLES["saxpy"].path), "-o", str(out)]) == 0
    assert ".loc\t" in out.read_text()
    plain = tmp_path / "plain.ptx"
    assert main(["compile", str(EXAMPLES["saxpy"].path), "-o", str(plain)]) == 0
    assert ".loc" not in plain.read_text()
    assert ptx_code(out.read_text()) == ptx_code(plain.read_text())


SHARED_OFFSET = """
gpuc.func @k(%v: !gpuc.ptr<i64, global>, %out: !gpuc.ptr<i64, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %shared = gpuc.shared_alloc 4 : !gpuc.ptr<i64, shared>
  %t = gpuc.thread_id x
  %mine = gpuc.load %v[%t] : !gpuc.ptr<i64, global>
  %old = gpuc.atomic_rmw add %shared[%c1], %mine : !gpuc.ptr<i64, shared>
  gpuc.barrier
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %total = gpuc.load %shared[%c1] : !gpuc.ptr<i64, shared>
    gpuc.store %total, %out[%c0] : !gpuc.ptr<i64, global>
  }
  gpuc.return
}
"""


def test_spirv_byte_offset_workaround_holds_with_line_info() -> None:
    """The spirv target's frozen byte offsets (`freeze_global_byte_offsets`)
    are found in IR whose instructions carry `!dbg`: the same SPIR-V, whose
    access to `shared[1]` is a byte offset (a `uchar` access chain)."""
    plain = compile_module(SHARED_OFFSET, "spirv").artefact
    lined = compile_module(SHARED_OFFSET, "spirv", line_info=True).artefact
    assert isinstance(plain, bytes) and isinstance(lined, bytes)
    without = run_spirv_dis(plain).splitlines()
    with_lines = run_spirv_dis(lined).splitlines()
    assert [s for s in with_lines if not SPIRV_DEBUG_LINE.match(s)] == [
        s for s in without if not s.startswith("; ")
    ]
    assert any("_ptr_Workgroup_uchar" in s and "AccessChain" in s for s in without)


def test_frozen_byte_offset_instruction_keeps_its_line() -> None:
    """The instruction form of a byte offset from a global is frozen with
    its `!dbg` too (a trailing attachment once hid it from the rewrite)."""
    from gpuc.targets.spirv.ir_patches import freeze_global_byte_offsets

    text = (
        "define spir_kernel void @k() !dbg !4 {\n"
        "entry:\n"
        "  %p = getelementptr inbounds i8, ptr addrspace(3) @k.shared, i64 8, !dbg !7\n"
        "  ret void, !dbg !8\n"
        "}"
    )
    assert freeze_global_byte_offsets(text).splitlines()[2:4] == [
        "  %p.offset = freeze i64 8",
        "  %p = getelementptr inbounds i8, ptr addrspace(3) @k.shared, "
        "i64 %p.offset, !dbg !7",
    ]
