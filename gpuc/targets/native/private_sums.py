"""Private sums: the native target's regrouped atomic adds into a kernel's
summed parameters, done as plain adds into memory of one OS thread's own.

A kernel parameter is *summed* when the kernel only ever adds into it, with
`gpuc.regrouped` float atomic adds whose old value nothing reads
(`gpuc.kernel_params.summed_params`; the reverse derivatives' shadows of
inputs, such as stencil2d's and matmul's). Such adds need not be atomic with
respect to the other OS threads of the launch if each adds into a buffer of
its own: the native executor passes the caller's buffer to the first of
them and a zeroed copy to each other one, and adds the copies into the
caller's buffer after the launch (gpuc/runtime/native.py). A regrouped sum
may be grouped in any way, so the result is the same sum, grouped by OS
thread.

Within one OS thread the adds are plain read-modify-writes. Where they
overlap from one thread to the next (stencil2d's neighbours), LLVM's own
dependence analysis keeps a thread loop scalar; the launch entry marks the
loop parallel where no mask is left in it (thread_loops.py, x_steps.py
`adds_in_any_order`), since the adds may run in any order, each whole.

In checked mode the adds stay atomic and the executor makes no copies (its
checks know the caller's buffers only).
"""

from __future__ import annotations

import weakref

from xdsl.ir import BlockArgument, Operation

from gpuc.dialects.functions import FuncOp
from gpuc.dialects.memory import REGROUPED, derived_from
from gpuc.kernel_params import summed_params
from gpuc.lowering.context import FunctionLowering
from gpuc.targets.native.faults import is_checked

_summed: weakref.WeakKeyDictionary[FuncOp, frozenset[int]] = weakref.WeakKeyDictionary()


def summed(kernel: FuncOp) -> frozenset[int]:
    """The positions of `kernel`'s summed parameters (computed once)."""
    found = _summed.get(kernel)
    if found is None:
        found = frozenset(i for i, s in enumerate(summed_params(kernel)) if s)
        _summed[kernel] = found
    return found


def adds_privately(fl: FunctionLowering, op: Operation) -> bool:
    if REGROUPED not in op.attributes or not fl.func.is_kernel:
        return False
    param = derived_from(op.operands[0])
    if (
        not isinstance(param, BlockArgument)
        or param.block is not fl.func.body.blocks.first
    ):
        return False
    return param.index in summed(fl.func) and not is_checked(fl.ml.module)
