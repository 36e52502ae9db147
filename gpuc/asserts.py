"""The `cf.assert`s of a module as the ptx and spirv targets report them
(docs/runtime.md, "Asserts"): each has an id, its position in the module (1
for the first; 0 in the error record means none failed), and a message that
names its source location. The lowering writes the id of the first failing
assert into the kernel's error record; the executor turns it back into the
message with the kernel's finalization record (`errors`: the id and message
of each assert it can report, written by `with_record` in finalize-kernels),
which `kernel_infos` reads.

Every failing thread also prints a line in CUDA's format
(`device_message_format`) on the targets that print. The record is
written by the dialect stage, which a cache hit runs again;
the printed line is part of the artefact, so a module with asserts is keyed
with its locations (gpuc/cache/compiling.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DictionaryAttr,
    FileLineColLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    StringAttr,
)
from xdsl.ir import Attribute, Operation

from gpuc.diagnostics import nearest_source_loc
from gpuc.dialects.attrs import FinalizedAttr
from gpuc.dialects.call_graph import ASSERT as ASSERT
from gpuc.dialects.call_graph import PRINTF as PRINTF
from gpuc.dialects.call_graph import call_graph
from gpuc.dialects.functions import FuncOp

if TYPE_CHECKING:
    from xdsl.dialects import cf

    from gpuc.dialects.analysis import KernelFacts


def module_asserts(module: ModuleOp) -> list[cf.AssertOp]:
    """The module's asserts in the order of their ids (id i is entry i - 1)."""
    return call_graph(module).ops_named(ASSERT)  # type: ignore[return-value]


def assert_message(op: cf.AssertOp) -> str:
    """`file:line:col: assertion failed: <message>`, as every executor says it."""
    loc, _ = nearest_source_loc(op)
    where = f"{loc}: " if loc is not None else ""
    return f"{where}assertion failed: {op.msg.data}"


def assert_origin(op: Operation) -> tuple[str, int, str]:
    """The file, line and function a failing `op` names in its device-side
    message: the innermost file location of its own (or its closest located
    ancestor's) location, through call-site, name and fused locations; the
    innermost name location on the way, else the enclosing function."""
    current: Operation | None = op
    while current is not None:
        loc: Attribute = current.location
        name: str | None = None
        while True:
            if isinstance(loc, NameLoc):
                name = loc.desc.data
                loc = loc.location
            elif isinstance(loc, CallSiteLoc):
                loc = loc.callee
            elif isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
                if not loc.locations.data:
                    break
                loc = loc.locations.data[0]
            else:
                break
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, name or _function_of(op)
        current = current.parent_op()
    return "<unknown>", 0, _function_of(op)


def _function_of(op: Operation) -> str:
    current = op.parent_op()
    while current is not None and not isinstance(current, FuncOp):
        current = current.parent_op()
    return current.sym_name.data if current is not None else "<unknown>"


def device_message_format(op: cf.AssertOp) -> str:
    """The C format of the line each failing thread of `op` prints, as
    CUDA's device-side assert does: `file:line: function: block: [x,y,z],
    thread: [x,y,z] Assertion `message` failed.`, the six indices as
    `%u` of 32-bit values (block x, y, z, then thread x, y, z)."""
    file, line, function = assert_origin(op)
    head = f"{file}:{line}: {function}".replace("%", "%%")
    message = op.msg.data.replace("%", "%%")
    return (
        f"{head}: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `{message}` failed.\n"
    )


def asserting_functions(module: ModuleOp) -> set[str]:
    """The functions that take the error record: those holding a `cf.assert`,
    and every caller of one. A function whose address is taken gets none (an
    indirect call passes no record), so its asserts trap instead, and it does
    not make its callers take one."""
    return functions_reaching(module, ASSERT)


def functions_reaching(module: ModuleOp, *op_names: str) -> set[str]:
    """The functions holding an op named in `op_names`, and every caller of
    one, but for functions whose address is taken (and the callers only those
    make reach it): a query on the module's one call graph."""
    graph = call_graph(module)
    if graph.op_names.isdisjoint(op_names):
        return set()
    return graph.reaching_directly(graph.holding(op_names))


def with_record(
    record: FinalizedAttr, facts: KernelFacts, module: ModuleOp
) -> FinalizedAttr:
    """`record` with `errors` set if the kernel takes the error record (on
    the targets that report asserts through one: gpuc/targets/error_record.py):
    the id and message of each assert it can report there, which is all the
    launch knows of them (`KernelInfo.asserts`)."""
    if not facts.asserts:
        return record
    ops = module_asserts(module)
    errors = DictionaryAttr(
        {str(i): StringAttr(assert_message(ops[i - 1])) for i in facts.asserts}
    )
    return FinalizedAttr.new((*record.parameters[:7], errors, *record.parameters[8:]))
