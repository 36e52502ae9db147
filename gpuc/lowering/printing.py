"""Printing the translated llvmlite module: once, to the text the link stage
parses. Function bodies are printed here, not by llvmlite: llvmlite's
printing goes through a string cache and a `str.format` per instruction,
about a third of translating a module of thousands of kernels
(bench/scale.py). The instructions gpuc builds most are printed by one
function per class, each writing exactly what llvmlite's `descr` writes
(tests/test_lowering_print.py compares the two on every example, for every
target, and on each class's variants); any other instruction as llvmlite
prints it."""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir
from llvmlite.ir import instructions as li

from gpuc.lowering.names import NameScope

Printer = Callable[[ir.Instruction], str]
"""An instruction -> what llvmlite's `descr` writes for it (its text after
the `%name = `)."""


def _metadata(i: ir.Instruction) -> str:
    if not i.metadata:
        return ""
    return "".join([f", !{k} {v.get_reference()}" for k, v in i.metadata.items()])


def _plain(i: ir.Instruction) -> str:
    """Binary operations, `fneg`, `freeze`: the opname, its flags, the
    type and the operands."""
    opname = " ".join([i.opname, *i.flags]) if i.flags else i.opname
    operands = ", ".join([op.get_reference() for op in i.operands])
    return f"{opname} {i.type} {operands}{_metadata(i)}"


def _call(i: li.CallInstr) -> str:
    callee, *args = i.operands
    fnty = callee.function_type
    if i.arg_attributes:
        listed = [_call_argument(i, n, a) for n, a in enumerate(args)]
    else:
        listed = [f"{a.type} {a.get_reference()}" for a in args]
    called = f"{fnty if fnty.var_arg else fnty.return_type} {callee.get_reference()}"
    if i.cconv:
        called = f"{i.cconv} {called}"
    tail = f"{i.tail} " if i.tail else ""
    fastmath = (
        " " + " ".join(i.fastmath._to_list(fnty.return_type))  # noqa: SLF001
        if i.fastmath
        else ""
    )
    attributes = (
        " " + " ".join(i.attributes._to_list(fnty.return_type))  # noqa: SLF001
        if i.attributes
        else ""
    )
    return (
        f"{tail}{i.opname}{fastmath} {called}({', '.join(listed)}){attributes}"
        f"{_metadata(i)}"
    )


def _call_argument(i: li.CallInstr, n: int, a: ir.Value) -> str:
    attrs = i.arg_attributes.get(n)
    listed = (
        " ".join(attrs._to_list(a.type)) + " "  # noqa: SLF001
        if attrs is not None
        else ""
    )
    return f"{a.type} {listed}{a.get_reference()}"


def _terminator(i: ir.Instruction) -> str:
    """`br` (either kind): the operands with their types."""
    operands = ", ".join([f"{op.type} {op.get_reference()}" for op in i.operands])
    return f"{i.opname} {operands}{_metadata(i)}"


def _ret(i: li.Ret) -> str:
    if i.operands:
        value = i.operands[0]
        return f"{i.opname} {value.type} {value.get_reference()}{_metadata(i)}"
    return f"{i.opname}{_metadata(i)}"


def _compare(i: li.CompareInstr) -> str:
    lhs, rhs = i.operands
    flags = "".join([" " + flag for flag in i.flags])
    return (
        f"{i.opname}{flags} {i.op} {lhs.type} {lhs.get_reference()}, "
        f"{rhs.get_reference()} {_metadata(i)}"
    )


def _cast(i: li.CastInstr) -> str:
    [value] = i.operands
    return f"{i.opname} {value.type} {value.get_reference()} to {i.type} {_metadata(i)}"


def _align(i: li.LoadInstr | li.StoreInstr) -> str:
    return "" if i.align is None else ", align %d" % i.align  # noqa: UP031  # llvmlite's


def _load(i: li.LoadInstr) -> str:
    [ptr] = i.operands
    return f"load {i.type}, {ptr.type} {ptr.get_reference()}{_align(i)}{_metadata(i)}"


def _store(i: li.StoreInstr) -> str:
    value, ptr = i.operands
    return (
        f"store {value.type} {value.get_reference()}, {ptr.type} "
        f"{ptr.get_reference()}{_align(i)}{_metadata(i)}"
    )


def _gep(i: li.GEPInstr) -> str:
    indices = ", ".join([f"{n.type} {n.get_reference()}" for n in i.indices])
    op = "getelementptr inbounds" if i.inbounds else "getelementptr"
    return (
        f"{op} {i.source_etype}, {i.pointer.type} {i.pointer.get_reference()}, "
        f"{indices} {_metadata(i)}"
    )


def _phi(i: li.PhiInstr) -> str:
    incomings = ", ".join(
        [f"[{v.get_reference()}, {b.get_reference()}]" for v, b in i.incomings]
    )
    return f"phi {' '.join(i.flags)} {i.type} {incomings} {_metadata(i)}"


def _by_descr(i: ir.Instruction) -> str:
    buf: list[str] = []
    i.descr(buf)
    return "".join(buf)


_PRINTERS: dict[type, Printer | None] = {
    ir.Instruction: _plain,
    li.CallInstr: _call,
    li.Branch: _terminator,
    li.ConditionalBranch: _terminator,
    li.Ret: _ret,
    li.ICMPInstr: _compare,
    li.FCMPInstr: _compare,
    li.CastInstr: _cast,
    li.LoadInstr: _load,
    li.StoreInstr: _store,
    li.GEPInstr: _gep,
    li.PhiInstr: _phi,
}
"""Instruction class (exactly: a subclass may print itself otherwise) -> its
printer; other classes are added on first use: `_by_descr` where llvmlite
prints them as `NamedValue` does (`descr` after the reference), None where
they print themselves some other way (their `str`)."""


def _line(instruction: ir.Instruction) -> str:
    cls = type(instruction)
    try:
        printer = _PRINTERS[cls]
    except KeyError:
        printer = _PRINTERS[cls] = (
            _by_descr
            if cls._to_string is ir.NamedValue._to_string  # noqa: SLF001
            and cls.__str__ is ir.NamedValue.__str__
            else None
        )
    if printer is None:
        return f"  {instruction}\n"
    if isinstance(instruction.type, ir.VoidType):
        return f"  {printer(instruction)}".rstrip() + "\n"
    reference = (
        instruction.get_reference()
        if printer is _by_descr
        else _defined_reference(instruction)
    )
    return f"  {reference} = {printer(instruction)}".rstrip() + "\n"


_CACHED_REFERENCE = "_StringReferenceCaching__cached_refstr"
"""Where llvmlite caches a value's reference (`get_reference`)."""


def _defined_reference(instruction: ir.Instruction) -> str:
    """The reference of an instruction of one of llvmlite's classes, as its
    `_get_reference` makes it, left where llvmlite caches it for the uses
    printed after it: llvmlite's `get_reference` first fails to find it there
    (an exception caught) before making it, a fifth of printing a module.
    A name that needs escaping is left to llvmlite. Printing comes after
    all naming, so the reference cannot go stale."""
    name = instruction.name
    if "\\" in name or '"' in name:
        return str(instruction.get_reference())
    reference: str = vars(instruction).setdefault(_CACHED_REFERENCE, f'%"{name}"')
    return reference


class Function(ir.Function):  # type: ignore[misc]  # untyped
    """An llvmlite function whose values are named (`names.NameScope`) and
    whose body prints (`_PRINTERS`) as llvmlite's, faster."""

    def __init__(self, module: ir.Module, ftype: ir.FunctionType, name: str):
        super().__init__(module, ftype, name)
        self.scope: NameScope = NameScope.taking_over(vars(self)["scope"])

    def descr_body(self, buf: list[str]) -> None:
        for block in self.blocks:
            buf.append(f"{block._format_name()}:\n")  # noqa: SLF001
            buf += [_line(instruction) for instruction in block.instructions]


def printed(module: ir.Module) -> str:
    """The text of `module`, which is taken apart after printing: its values
    point at their parents (instruction to block to function to module) and
    back, so once unreferenced it would be cyclic garbage, a few hundred
    objects per function, left to Python's cycle collector to find after
    the compile (bench/scale.py). With the links cut, reference counting frees
    it at once."""
    text = str(module)
    for value in module.globals.values():
        if isinstance(value, ir.Function):
            for block in value.blocks:
                # Past the blocks, only a phi can be in a cycle (a loop's
                # value feeding it); phis lead their block.
                for instruction in block.instructions:
                    if not isinstance(instruction, ir.PhiInstr):
                        break
                    instruction.incomings.clear()
                vars(block).clear()
        vars(value).clear()
    for node in module.metadata:  # alias scopes refer to themselves
        vars(node).clear()
    vars(module).clear()
    return text
