"""`plan-printing`: the spirv target's decisions on which helpers print,
taken once from the module's call graph and written in the IR, where
`--print-ir-after-all` and lit tests see them and the lowering reads them
instead of deciding again (the kernels' own are in their `#gpuc.finalized`
records: `prints`).

LLVM 22's SPIR-V back-end takes printf only in a kernel (checks.py,
`check_printing_helpers`), so:

- every helper that prints, itself or by a call, is inlined into its
  kernel: it gets the `always_inline` hint. A helper prints when it reaches
  a `gpuc.printf`, or a `cf.assert` whose failing threads print their line;
- a helper's failing asserts print their line (gpuc/asserts.py) only where
  the helper will be inlined into kernels: when it is not `no_inline` and
  every function calling it is a kernel or such a helper, and no call is
  indirect. Those helpers get `gpuc.prints_failures`; a failing assert of
  any other helper reports through the error record only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from gpuc.dialects.attrs import InlineHint, InlineHintAttr
from gpuc.dialects.call_graph import ASSERT, PRINTF, CallGraph, call_graph

PRINTS_FAILURES_ATTR = "gpuc.prints_failures"
"""On a helper: its failing asserts print their line (it lands in a kernel)."""


def failure_printing(graph: CallGraph) -> set[str]:
    """The functions whose failing asserts may print: kernels, and helpers
    that are not no_inline called only from such functions, so that inlined
    every printf lands in a kernel."""
    funcs = graph.funcs
    if graph.address_taken or graph.indirect_callers:
        return {n for n, f in funcs.items() if f.is_kernel}
    callers = graph.callers
    found = {
        n
        for n, f in funcs.items()
        if f.is_kernel or f.inline_hint is not InlineHint.NO_INLINE
    }
    # Drop, callers first, every helper some caller outside the set calls.
    work = sorted(n for n in found if not funcs[n].is_kernel)
    while work:
        name = work.pop()
        if name in found and not callers.get(name, set()) <= found:
            found.discard(name)
            work.extend(sorted(c for c in graph.callees.get(name, ()) if c in found))
    return found


def plan_printing(module: ModuleOp) -> None:
    """Mark the helpers that print always_inline, and those whose failing
    asserts print `gpuc.prints_failures`."""
    graph = call_graph(module)
    if graph.op_names.isdisjoint((ASSERT, PRINTF)):
        return
    failing = failure_printing(graph)
    printing = failing & graph.reaching_directly(graph.holding([ASSERT]))
    if PRINTF in graph.op_names:
        printing |= graph.reaching_directly(graph.holding([PRINTF]))
    asserting = graph.holding([ASSERT])
    for name, func in graph.funcs.items():
        if func.is_kernel:
            continue
        if name in printing:
            func.inline = InlineHintAttr(InlineHint.ALWAYS_INLINE)
        if name in failing and name in asserting:
            func.attributes[PRINTS_FAILURES_ATTR] = UnitAttr()


@dataclass(frozen=True)
class PlanPrinting(ModulePass):
    """Decide which helpers print (spirv: printf only in kernels)."""

    name = "plan-printing"
    preserves_call_graph: ClassVar[bool] = True
    """It only sets attributes and inline hints (`gpuc.dialects.call_graph`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        plan_printing(op)
