"""The functions an emitted artefact defines, read from the artefact itself:
what `explain` reports a symbol became. PTX text (`.entry`/`.func` and their
visibility), a SPIR-V binary (`OpFunction`, its `OpName`, `OpEntryPoint` and
`LinkageAttributes` decoration) and ELF objects (the native target's object,
an AMDGPU code object: `FUNC` symbols and their binding) are recognized by
their contents, so a target that emits one of these formats is read the same
way whichever target it is.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class ArtefactSymbol:
    """One function of an artefact."""

    name: str
    kind: str
    """`.entry` / `.func` (PTX), `OpFunction` (SPIR-V), `FUNC` (ELF)."""
    linkage: str
    """As the artefact spells it: `.visible`, `internal` (PTX without a
    visibility directive), `.extern`; `Export`, `Import`, `none` (SPIR-V);
    `GLOBAL`, `LOCAL`, `WEAK`, `undefined` (ELF)."""
    entry_point: bool = False
    """A SPIR-V `OpEntryPoint` (a kernel the runtime can launch)."""

    def describe(self) -> str:
        if self.kind in (".entry", ".func"):
            shown = "" if self.linkage == "internal" else f"{self.linkage} "
            note = " (internal: no .visible)" if self.linkage == "internal" else ""
            return f"PTX {shown}{self.kind} {self.name}{note}"
        if self.kind == "OpFunction":
            what = "OpEntryPoint Kernel, " if self.entry_point else ""
            link = (
                f"LinkageAttributes {self.linkage}"
                if self.linkage != "none"
                else "no linkage decoration"
            )
            return f"SPIR-V OpFunction %{self.name} ({what}{link})"
        return f"{self.kind} symbol {self.name} ({self.linkage})"


_PTX_FUNCTION = re.compile(
    r"^(?P<vis>(?:\.visible|\.extern|\.weak)\s+)?(?P<kind>\.entry|\.func)\s+"
    r"(?:\([^)]*\)\s*)?(?P<name>[\w$]+)",
    re.M,
)


def ptx_symbols(ptx: str) -> dict[str, ArtefactSymbol]:
    symbols: dict[str, ArtefactSymbol] = {}
    for m in _PTX_FUNCTION.finditer(ptx):
        vis = (m.group("vis") or "").strip() or "internal"
        name = m.group("name")
        if name not in symbols or symbols[name].linkage == ".extern":
            symbols[name] = ArtefactSymbol(name, m.group("kind"), vis)
    return symbols


SPIRV_MAGIC = 0x07230203
_OP_NAME, _OP_ENTRY_POINT, _OP_DECORATE, _OP_FUNCTION = 5, 15, 71, 54
_LINKAGE_ATTRIBUTES = 41
_LINKAGE_TYPES = {0: "Export", 1: "Import", 2: "LinkOnceODR"}


def _spirv_string(words: tuple[int, ...]) -> tuple[str, int]:
    """A literal string at the start of `words`, and how many words it takes."""
    data = b"".join(struct.pack("<I", w) for w in words)
    end = data.index(b"\0")
    return data[:end].decode("utf-8", "replace"), end // 4 + 1


def spirv_symbols(binary: bytes) -> dict[str, ArtefactSymbol]:
    count = len(binary) // 4
    words = struct.unpack(f"<{count}I", binary[: count * 4])
    names: dict[int, str] = {}
    entries: dict[int, str] = {}
    linkage: dict[int, tuple[str, str]] = {}
    functions: list[int] = []
    i = 5  # after the header
    while i < count:
        length, opcode = words[i] >> 16, words[i] & 0xFFFF
        operands = words[i + 1 : i + length]
        if opcode == _OP_NAME:
            names[operands[0]] = _spirv_string(operands[1:])[0]
        elif opcode == _OP_ENTRY_POINT:
            entries[operands[1]] = _spirv_string(operands[2:])[0]
        elif opcode == _OP_DECORATE and operands[1] == _LINKAGE_ATTRIBUTES:
            name, used = _spirv_string(operands[2:])
            kind = _LINKAGE_TYPES.get(operands[2 + used], str(operands[2 + used]))
            linkage[operands[0]] = (name, kind)
        elif opcode == _OP_FUNCTION:
            functions.append(operands[1])
        i += max(length, 1)
    symbols: dict[str, ArtefactSymbol] = {}
    for fid in functions:
        called = entries.get(fid) or linkage.get(fid, ("", ""))[0] or names.get(fid)
        if called:
            symbols[called] = ArtefactSymbol(
                called, "OpFunction", linkage.get(fid, ("", "none"))[1], fid in entries
            )
    return symbols


_ELF_BINDINGS = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK"}
_SHT_SYMTAB, _STT_FUNC = 2, 2


def elf_symbols(data: bytes) -> dict[str, ArtefactSymbol]:
    """The FUNC symbols of a little-endian ELF64 file (relocatable or shared)."""
    if data[4] != 2 or data[5] != 1:
        return {}
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize)
        for k in range(shnum)
    ]
    symbols: dict[str, ArtefactSymbol] = {}
    for _name, kind, _f, _a, offset, size, link, _i, _al, entsize in sections:
        if kind != _SHT_SYMTAB or not entsize:
            continue
        strtab = sections[link]
        strings = data[strtab[4] : strtab[4] + strtab[5]]
        for k in range(size // entsize):
            st_name, info, _other, shndx, _value, _size = struct.unpack_from(
                "<IBBHQQ", data, offset + k * entsize
            )
            if info & 0xF != _STT_FUNC:
                continue
            name = strings[st_name : strings.index(b"\0", st_name)].decode()
            binding = (
                "undefined" if shndx == 0 else _ELF_BINDINGS.get(info >> 4, "other")
            )
            symbols[name] = ArtefactSymbol(name, "FUNC", binding)
    return symbols


def artefact_format(artefact: bytes | str) -> str | None:
    """`ptx`, `spirv` or `elf` by the artefact's contents; None for another."""
    if isinstance(artefact, str):
        return "ptx" if re.search(r"^\.version ", artefact, re.M) else None
    if len(artefact) >= 20 and struct.unpack_from("<I", artefact)[0] == SPIRV_MAGIC:
        return "spirv"
    if artefact[:4] == b"\x7fELF" and len(artefact) >= 64:
        return "elf"
    return None


def artefact_symbols(artefact: bytes | str) -> dict[str, ArtefactSymbol] | None:
    """The functions `artefact` defines or declares, by name; None for a format
    this module cannot read."""
    kind = artefact_format(artefact)
    if kind == "ptx":
        assert isinstance(artefact, str)
        return ptx_symbols(artefact)
    if kind is not None:
        assert isinstance(artefact, bytes)
        return spirv_symbols(artefact) if kind == "spirv" else elf_symbols(artefact)
    return None
