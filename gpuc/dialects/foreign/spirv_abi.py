"""MLIR's SPIR-V ABI attributes, read so that a module carrying them parses.

`#spirv.entry_point_abi<workgroup_size = [x, y, z]>` on a kernel says the
block size it runs with: the import honours it as `gpu.known_block_size`
(which gpuc emits and checks at launch). `#spirv.target_env<...>` describes
the environment of MLIR's own SPIR-V path (a Vulkan shader's version,
capabilities and limits); gpuc's target is `#gpuc.target`, so the import
drops it. Both keep their text as written; gpuc registers them as the
`spirv` dialect (xDSL has none).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

_ENTRY = re.compile(r"\s*(\w+)\s*=\s*(\[[^\]]*\]|[^,]+)\s*(?:,|$)")


class _TextAttr(ParametrizedAttribute):
    """An attribute whose `<...>` body is kept as written."""

    body: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        body = parser._parse_unregistered_attr_body(None)  # pyright: ignore[reportPrivateUsage]
        parser.parse_punctuation(">")
        return (StringAttr(body.strip()),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.body.data}>")


@irdl_attr_definition
class EntryPointAbiAttr(_TextAttr):
    """`#spirv.entry_point_abi<workgroup_size = [x, y, z], ...>`."""

    name = "spirv.entry_point_abi"

    def entries(self) -> dict[str, str] | None:
        """The `key = value` entries, None if the body is not such a list."""
        text = self.body.data
        entries: dict[str, str] = {}
        pos = 0
        while pos < len(text):
            match = _ENTRY.match(text, pos)
            if match is None:
                return None
            entries[match.group(1)] = match.group(2).strip()
            pos = match.end()
        return entries


@irdl_attr_definition
class TargetEnvAttr(_TextAttr):
    """`#spirv.target_env<#spirv.vce<...>, #spirv.resource_limits<...>>`."""

    name = "spirv.target_env"


ENTRY_POINT_ABI = "spirv.entry_point_abi"
TARGET_ENV = "spirv.target_env"

SPIRV = Dialect("spirv", [], [EntryPointAbiAttr, TargetEnvAttr])


def workgroup_size(attr: Attribute) -> tuple[int, int, int] | str | None:
    """The block size an entry_point_abi gives, None where it gives none (an
    empty `#spirv.entry_point_abi<>`, what SYCL and Level Zero lowerings
    attach: any block size will do), or why it cannot be honoured."""
    if not isinstance(attr, EntryPointAbiAttr):
        return f"{attr} is not a #spirv.entry_point_abi"
    entries = attr.entries()
    if entries is None:
        return f"cannot read {attr}; expected workgroup_size = [x, y, z]"
    unknown = sorted(set(entries) - {"workgroup_size"})
    if unknown:
        return (
            f"{attr}: {', '.join(unknown)} cannot be honoured (gpuc honours "
            "workgroup_size only)"
        )
    if "workgroup_size" not in entries:
        return None
    sizes = [s.strip() for s in entries["workgroup_size"].strip("[]").split(",")]
    if not all(s.isdigit() and int(s) > 0 for s in sizes) or not 1 <= len(sizes) <= 3:
        return f"{attr}: workgroup_size must be 1 to 3 positive integers"
    values = [int(s) for s in sizes] + [1] * (3 - len(sizes))
    return values[0], values[1], values[2]
