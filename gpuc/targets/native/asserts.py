"""A failing `cf.assert` on the native target (docs/runtime.md, "Asserts"):
the failing thread prints its line in CUDA's format (gpuc/asserts.py,
`device_message_format`), as each failing thread of a CUDA kernel does.

In a kernel without barriers, whose threads the launch entry runs one by one
in a loop nest, the thread then returns from the kernel and the launch runs
on: the first failing thread of a block range writes the launch record's
error fields (kind FAULT_RETURNED), later ones leave them, so the launch
reports the first failure in block and thread order. Elsewhere (a helper, a
work-group function, whose threads share loops between barriers) the fault
stops the block range as gpuc/targets/native/faults.py describes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from gpuc.targets.error_record import leave, print_failure
from gpuc.targets.native import faults as native_faults
from gpuc.targets.native.abi import FAULT_RETURNED, LAUNCH, STATE
from gpuc.targets.native.common import WorkGroupFunction, error_message

if TYPE_CHECKING:
    from xdsl.dialects import cf

    from gpuc.lowering.context import FunctionLowering

I64, I8, PTR = ir.IntType(64), ir.IntType(8), ir.PointerType()


def assert_failed(fl: FunctionLowering, op: cf.AssertOp) -> bool:
    """Print the failing thread's line and report `op` at the builder's
    position; False if the function has no state to report through (then
    the caller traps)."""
    if not fl.hidden_args or not native_faults.fault_plan(fl.ml).reports:
        return False
    thread = native_faults.thread_index(fl)
    print_failure(fl, op, thread)
    if isinstance(fl, WorkGroupFunction) or not fl.func.is_kernel:
        return native_faults.assert_failed(fl, op)
    b = fl.builder

    def at(base: ir.Value, offset: int) -> ir.Value:
        return b.gep(base, [ir.Constant(I64, offset)], inbounds=True, source_etype=I8)

    launch = b.load(at(fl.hidden_args[0], STATE.offset("launch")), typ=PTR, align=8)
    error = b.load(at(launch, LAUNCH.offset("error")), typ=PTR, align=8)
    first = b.icmp_unsigned("==", error, ir.Constant(PTR, None))
    with b.if_then(first):
        text = error_message(
            fl.ml, f"{native_faults.where(op)}assertion failed: {op.msg.data}"
        )
        gx, gy = (fl.target.index(fl, "grid_dim", d) for d in range(2))
        bx, by, bz = (fl.target.index(fl, "block_id", d) for d in range(3))
        linear = b.add(bx, b.mul(gx, b.add(by, b.mul(gy, bz))))

        def put(name: str, value: ir.Value, dim: int = 0) -> None:
            if value.type != I64 and value.type != PTR:
                value = b.zext(value, I64)
            b.store(value, at(launch, LAUNCH.offset(name, dim)), align=8)

        put("error", text)
        put("error_block", linear)
        put("error_kind", ir.Constant(I64, FAULT_RETURNED))
        for d, value in enumerate(thread):
            put("error_thread", value, d)
    leave(fl)
    b.position_at_end(b.append_basic_block("assert.left"))
    return True
