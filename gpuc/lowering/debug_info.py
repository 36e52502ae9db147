"""Line tables: the module's source locations as LLVM debug info.

One DICompileUnit, a DIFile per file named by a location, a DISubprogram per
function and a DILocation per instruction, from the location of the op it was
translated from. Frontend locations are understood as MLIR's translation to
LLVM IR understands them: a name location stands for the location it wraps,
a fused one for its first known part, and `callsite(callee at caller)` is the
callee's line inlined at the caller's (`inlinedAt`). The callee's scope is the
function a name location in callee position names (gpuc's inliner writes
`callsite("helper"(loc) at call)`), else an inlined scope named after the
callee's file and line. Only metadata is added: no intrinsic, no change of a
pass or an attribute, so the code is the same with and without line tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from llvmlite import ir
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    NameLoc,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation

if TYPE_CHECKING:
    from gpuc.dialects.functions import FuncOp
    from gpuc.lowering.context import ModuleLowering

PRODUCER = "gpuc"
DEBUG_INFO_VERSION = 3


def file_locations(loc: Attribute) -> Iterator[FileLineColLoc]:
    """The file locations inside `loc`, outermost (callee-most) first."""
    if isinstance(loc, FileLineColLoc):
        yield loc
    elif isinstance(loc, NameLoc):
        yield from file_locations(loc.location)
    elif isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
        for part in loc.locations.data:
            yield from file_locations(part)
    elif isinstance(loc, CallSiteLoc):
        yield from file_locations(loc.callee)
        yield from file_locations(loc.caller)


class LineTables:
    """The debug metadata of one module being translated (`ModuleLowering.debug`)."""

    def __init__(self, ml: ModuleLowering, *, optimized: bool):
        self.ml = ml
        module = ml.llvm
        self.module = module
        self.files: dict[str, ir.DIValue] = {}
        self.scopes: dict[tuple[str, str], ir.DIValue] = {}
        """(subprogram name, file) -> the subprogram or its lexical block file."""
        self.subprograms: dict[str, ir.DIValue] = {}
        self.names: dict[str, str] = {}
        """LLVM function -> the name its subprogram is recorded under."""
        first = next(file_locations(ml.module.location), None)
        if first is None:
            first = next(
                (f for op in ml.module.walk() for f in file_locations(op.location)),
                None,
            )
        self.main_file = first.filename.data if first is not None else "<unknown>"
        self.cu = module.add_debug_info(
            "DICompileUnit",
            {
                "language": ir.DIToken("DW_LANG_C99"),
                "file": self.file(self.main_file),
                "producer": PRODUCER,
                "isOptimized": optimized,
                "runtimeVersion": 0,
                "emissionKind": ir.DIToken(ml.target.debug_emission_kind),
            },
            is_distinct=True,
        )
        module.add_named_metadata("llvm.dbg.cu", self.cu)
        i32 = ir.IntType(32)
        warning = ir.Constant(i32, 2)
        flags = "llvm.module.flags"
        module.add_named_metadata(
            flags, [warning, "Debug Info Version", ir.Constant(i32, DEBUG_INFO_VERSION)]
        )
        version = ml.target.dwarf_version
        module.add_named_metadata(
            flags, [warning, "Dwarf Version", ir.Constant(i32, version)]
        )
        self.signature = module.add_debug_info(
            "DISubroutineType", {"types": module.add_metadata([])}
        )

    def file(self, name: str) -> ir.DIValue:
        found = self.files.get(name)
        if found is None:
            found = self.module.add_debug_info(
                "DIFile", {"filename": name, "directory": ""}
            )
            self.files[name] = found
        return found

    def subprogram(
        self,
        name: str,
        loc: Attribute,
        linkage_name: str = "",
        *,
        artificial: bool = False,
        declared: bool = True,
    ) -> ir.DIValue:
        """The DISubprogram of function `name` (made once), declared at `loc`
        (not `declared`: in `loc`'s file, at no line; a function gone by
        the time it is lowered, whose declaration is unknown)."""
        found = self.subprograms.get(name)
        if found is not None:
            return found
        where = next(file_locations(loc), None)
        filename = where.filename.data if where else self.main_file
        file = self.file(filename)
        line = where.line.data if where and declared else 0
        operands: dict[str, object] = {
            "name": name,
            "scope": file,
            "file": file,
            "line": line,
            "type": self.signature,
            "scopeLine": line,
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.cu,
        }
        if linkage_name and linkage_name != name:
            operands["linkageName"] = linkage_name
        if artificial:
            operands["flags"] = ir.DIToken("DIFlagArtificial")
        found = self.module.add_debug_info("DISubprogram", operands, is_distinct=True)
        self.subprograms[name] = found
        self.scopes[(name, filename)] = found
        return found

    def function(self, func: FuncOp, fn: ir.Function) -> ir.DIValue:
        """Attach `func`'s subprogram to its LLVM function."""
        sp = self.subprogram(func.sym_name.data, func.location, fn.name)
        fn.set_metadata("dbg", sp)
        self.names[fn.name] = func.sym_name.data
        return sp

    def scope_in(self, function: str, file: str) -> ir.DIValue:
        """`function`'s subprogram, or a lexical block file of it for lines of
        another file (as C's lines from an included file)."""
        found = self.scopes.get((function, file))
        if found is None:
            found = self.module.add_debug_info(
                "DILexicalBlockFile",
                {
                    "scope": self.subprograms[function],
                    "file": self.file(file),
                    "discriminator": 0,
                },
            )
            self.scopes[(function, file)] = found
        return found

    def location(
        self, loc: Attribute, function: str, inlined_at: ir.DIValue | None = None
    ) -> ir.DIValue | None:
        """The DILocation of `loc` in `function`'s scope (None: nothing known)."""
        if isinstance(loc, FileLineColLoc):
            operands: dict[str, object] = {
                "line": loc.line.data,
                "column": loc.column.data,
                "scope": self.scope_in(function, loc.filename.data),
            }
            if inlined_at is not None:
                operands["inlinedAt"] = inlined_at
            return self.module.add_debug_info("DILocation", operands)
        if isinstance(loc, NameLoc):
            return self.location(loc.location, function, inlined_at)
        if isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
            for part in loc.locations.data:
                found = self.location(part, function, inlined_at)
                if found is not None:
                    return found
            return None
        if isinstance(loc, CallSiteLoc):
            caller = self.location(loc.caller, function, inlined_at)
            if caller is None:
                caller = self.line_zero(function, inlined_at)
            return self.location(loc.callee, self.inlined_scope(loc.callee), caller)
        return None

    def inlined_scope(self, callee: Attribute) -> str:
        """The name of the function whose lines `callee` (a call site's callee
        location) are: the one a name location names, else one named after
        the callee's file and line."""
        if isinstance(callee, NameLoc) and callee.desc.data:
            name = callee.desc.data
            func = self.ml.funcs.get(name)
            linkage = self.ml.target.symbol_name(name)
            if func is not None:
                self.subprogram(name, func.location, linkage)
            else:
                self.subprogram(name, callee.location, linkage, declared=False)
            return name
        where = next(file_locations(callee), None)
        name = f"{where.filename.data}:{where.line.data}" if where else "<inlined>"
        self.subprogram(name, callee, declared=False)
        return name

    def line_zero(
        self, function: str, inlined_at: ir.DIValue | None = None
    ) -> ir.DIValue:
        """A location in `function` with no line (code no op of the input made)."""
        operands: dict[str, object] = {
            "line": 0,
            "scope": self.subprograms[function],
        }
        if inlined_at is not None:
            operands["inlinedAt"] = inlined_at
        return self.module.add_debug_info("DILocation", operands)

    def op_location(self, op: Operation, function: str) -> ir.DIValue | None:
        return self.location(op.location, function)

    def finish(self) -> None:
        """Functions the target made (the native launch entries) get an
        artificial subprogram, and their calls a line-0 location: LLVM inlines
        a function with line tables only through a call that has one."""
        for fn in self.module.functions:
            if fn.is_declaration:
                continue
            name = self.names.get(fn.name)
            if name is None:
                name = fn.name
                sp = self.subprogram(name, UnknownLoc(), name, artificial=True)
                fn.set_metadata("dbg", sp)
            for block in fn.blocks:
                for instr in block.instructions:
                    if isinstance(instr, ir.CallInstr) and "dbg" not in instr.metadata:
                        instr.set_metadata("dbg", self.line_zero(name))
