"""A failing `cf.assert` on the ptx and spirv targets (docs/runtime.md,
"Asserts"): the failing thread prints its line in CUDA's format
(`print_failure`; the native target prints it too). The kernel takes a
hidden error record (a global `i32` buffer, gpuc/runtime/error_record.py)
as parameter 0, which the executor allocates, zeroes and reads after the
launch. The failing thread claims the record with one compare-exchange of
its word 0 from 0 to the assert's id (gpuc/asserts.py); the first to do so
writes its block and thread index after it. Then the thread returns: from a
kernel, it ends; from a helper (with a zero result), after setting its own
failure flag, which each caller of an asserting helper tests after the call
to return too. So no code after a failed assert runs in a failing thread
(the first or a later one), and every other thread runs on. The flag is the
thread's own: an `i32` on the kernel's stack, passed to helpers by pointer
(private memory; testing the shared record instead made every thread return
at its next call once any had failed).

Kernels and helpers that hold an assert, or call one that does, take the
record (`asserting_functions`), helpers the flag too, after it; a kernel's
finalization record says so, with the id and message of each assert it can
report (`errors`, gpuc/asserts.py's `with_record`), which is all the
executors read (`KernelInfo.asserts`).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from llvmlite import ir

from gpuc.asserts import asserting_functions, device_message_format, module_asserts
from gpuc.targets.launch_abi import BLOCK, THREAD

if TYPE_CHECKING:
    from xdsl.dialects import cf
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.dialects.functions import FuncOp
    from gpuc.lowering.context import FunctionLowering, ModuleLowering

I32 = ir.IntType(32)
RECORD_TYPE = ir.PointerType(addrspace=1)  # global memory on ptx and spirv
RECORD_NAME = "gpuc.errors"
FLAG_NAME = "gpuc.failed"  # on the thread's own stack (private memory)

_ids: weakref.WeakKeyDictionary[ModuleLowering, dict[int, int]] = (
    weakref.WeakKeyDictionary()
)


def plan_records(ml: ModuleLowering) -> None:
    """The error record as hidden parameter 0 of the kernels whose record
    says so and of the helpers that hold or reach an assert."""
    for name in asserting_functions(ml.module):
        record = ml.records.get(name)
        if record is None:  # a helper
            flag = ir.PointerType(addrspace=ml.target.alloca_address_space)
            ml.hidden[name] = (RECORD_TYPE, flag)
        elif record.takes_errors:
            ml.hidden[name] = (RECORD_TYPE,)


def name_record(ml: ModuleLowering, func: FuncOp, fn: ir.Function) -> None:
    hidden = len(ml.hidden.get(func.sym_name.data, ()))
    for arg, name in zip(fn.args[:hidden], (RECORD_NAME, FLAG_NAME), strict=False):
        arg.name = name


_flags: weakref.WeakKeyDictionary[FunctionLowering, ir.Value] = (
    weakref.WeakKeyDictionary()
)


def thread_flag(fl: FunctionLowering) -> ir.Value:
    """The failing thread's flag: a helper's hidden parameter, or a kernel's
    stack slot, zeroed at its entry."""
    if len(fl.hidden_args) > 1:
        return fl.hidden_args[1]
    flag = _flags.get(fl)
    if flag is None:
        flag = _flags[fl] = fl.alloca(I32, FLAG_NAME, zeroed=True)
    return flag


def hidden_call_args(fl: FunctionLowering, callee: str) -> list[ir.Value]:
    """What a call of `callee` passes before its operands: the record, and
    to a helper the caller's flag."""
    wanted = len(fl.ml.hidden.get(callee, ()))
    if wanted < 2 or not fl.hidden_args:
        return list(fl.hidden_args[:wanted])
    return [fl.hidden_args[0], thread_flag(fl)]


def assert_id(ml: ModuleLowering, op: cf.AssertOp) -> int:
    ids = _ids.get(ml)
    if ids is None:
        module: ModuleOp = ml.module
        ids = {id(a): i + 1 for i, a in enumerate(module_asserts(module))}
        _ids[ml] = ids
    return ids[id(op)]


def leave(fl: FunctionLowering) -> None:
    """Return from the function (a zero result from a helper)."""
    result = fl.fn.function_type.return_type
    if isinstance(result, ir.VoidType):
        fl.builder.ret_void()
    else:
        fl.builder.ret(ir.Constant(result, None))


def print_failure(
    fl: FunctionLowering, op: cf.AssertOp, thread: list[ir.Value] | None = None
) -> None:
    """Print the failing thread's line (gpuc/asserts.py's
    `device_message_format`) with the target's printf, if it prints;
    `thread`: the thread's index where the target's `index` is not it."""
    target = fl.target
    if not target.prints_failure(fl):
        return
    b = fl.builder
    block = [target.index(fl, "block_id", d) for d in range(3)]
    thread = thread or [target.index(fl, "thread_id", d) for d in range(3)]
    values = [b.trunc(v, I32) if v.type != I32 else v for v in (*block, *thread)]
    target.printf(fl, op, device_message_format(op), values)  # type: ignore[arg-type]


def record_failure(fl: FunctionLowering, op: cf.AssertOp) -> bool:
    """Print the failing thread's line, claim the record for `op` and
    return (at the builder's position, in the assert's failing branch);
    False if the function has no record."""
    if not fl.hidden_args:
        return False
    print_failure(fl, op)
    b = fl.builder
    record = fl.hidden_args[0]
    scope = fl.target.atomic_scope
    ordering = (f'syncscope("{scope}") ' if scope else "") + "monotonic"
    pair = b.cmpxchg(record, I32(0), I32(assert_id(fl.ml, op)), ordering, "monotonic")
    with b.if_then(b.extract_value(pair, 1)):
        for first, kind in ((BLOCK, "block_id"), (THREAD, "thread_id")):
            for d in range(3):
                value = b.trunc(fl.target.index(fl, kind, d), I32)
                word = b.gep(record, [I32(first + d)], inbounds=True, source_etype=I32)
                b.store(value, word)
    if len(fl.hidden_args) > 1:  # a helper: its callers return too
        b.store(I32(1), thread_flag(fl))
    leave(fl)
    b.position_at_end(b.append_basic_block("assert.left"))
    return True


def after_call(fl: FunctionLowering, callee: str) -> None:
    """After a call of a helper that takes the record: return if this
    thread's assert failed in it (its flag is set; the flag stays set, so the
    caller's callers return as well)."""
    if len(fl.ml.hidden.get(callee, ())) < 2 or not fl.hidden_args:
        return
    b = fl.builder
    failed = b.icmp_unsigned("!=", b.load(thread_flag(fl), typ=I32), I32(0))
    with b.if_then(failed, likely=False):
        leave(fl)
