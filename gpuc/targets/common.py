"""What several targets share, importing no target module: what `Target.render`
reads of a compilation (`Emitted`, so that targets never import the driver),
the checks every target runs on a module before lowering it
(`Target.verify_module`), and the C math functions LLVM has intrinsics for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import Operation

from gpuc.diagnostics import OpError, made_of
from gpuc.dialects.attrs import FINALIZED_ATTR, FinalizedAttr
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.walk import ops_of_classes

if TYPE_CHECKING:
    from llvmlite import binding as llvm

    from gpuc.dialects.analysis import KernelFacts


class Emitted(Protocol):
    """What a target renders its artefacts from: a compilation that ran to
    `emit` (`gpuc.driver.Compilation` is one)."""

    @property
    def artefact(self) -> bytes | str | None:
        """What the target's `emit` made."""

    @property
    def llvm_module(self) -> llvm.ModuleRef | None:
        """The optimized LLVM module."""

    @property
    def machine(self) -> llvm.TargetMachine | None:
        """The target machine that emitted it."""


LLVM_MATH = frozenset(
    {
        "sqrt",
        "fabs",
        "ceil",
        "floor",
        "trunc",
        "round",
        "roundeven",
        "fma",
        "copysign",
        "exp",
        "exp2",
        "exp10",
        "log",
        "log2",
        "log10",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "pow",
        "powi",
    }
)
"""C math functions (named without the f32 `f`) that have an LLVM intrinsic."""


def atomic_ops() -> tuple[type[Operation], ...]:
    from gpuc.dialects.memory import AtomicCmpXchgOp, AtomicRMWOp

    return (AtomicRMWOp, AtomicCmpXchgOp)


def check_atomic_widths(
    module: ModuleOp,
    widest: int,
    target: str,
    wider: str = "",
    atomics: Sequence[Operation] | None = None,
) -> None:
    """Raise an OpError for an atomic on an integer that is not a power of two
    of 8 to `widest` bits; `wider` says how to get wider ones, if there is a way.
    `atomics`: the module's atomic ops, where already collected."""
    from gpuc.dialects.attrs import PtrType
    from gpuc.dialects.memory import AtomicCmpXchgOp, AtomicRMWOp

    if atomics is None:
        (atomics,) = ops_of_classes(module, atomic_ops())
    for op in atomics:
        assert isinstance(op, AtomicRMWOp | AtomicCmpXchgOp)
        ptr = op.ptr.type
        assert isinstance(ptr, PtrType)
        element = ptr.element
        if not isinstance(element, IntegerType):
            continue
        bits = element.width.data
        if bits < 8 or bits > widest or bits & (bits - 1):
            fix = (
                f"compile with {wider}"
                if wider and bits > widest
                else ("use a wider (or narrower) one")
            )
            raise OpError(
                op,
                f"is an atomic on {element}; {target} atomics take integers of "
                f"8 to {widest} bits, a power of two: {fix}",
            )


def check_loop_steps(
    module: ModuleOp, loops: Sequence[Operation] | None = None
) -> None:
    """Raise an OpError for an `scf.for` whose step is the constant 0 (MLIR's
    verifier rejects it; xDSL's does not). `loops`: the module's `scf.for`
    ops, where already collected."""
    from xdsl.dialects.arith import ConstantOp
    from xdsl.dialects.builtin import IntegerAttr
    from xdsl.dialects.scf import ForOp

    if loops is None:
        (loops,) = ops_of_classes(module, (ForOp,))
    for op in loops:
        assert isinstance(op, ForOp)
        step = op.step.owner
        if (
            isinstance(step, ConstantOp)
            and isinstance(step.value, IntegerAttr)
            and step.value.value.data == 0
        ):
            raise OpError(
                op, "step is 0: the loop would not terminate; give it a positive step"
            )


def check_structured_results(
    module: ModuleOp, structured: Sequence[Operation] | None = None
) -> None:
    """Raise an OpError for an `scf.if` with results but no else region, or an
    `scf.yield` whose types differ from what its `scf.if` or `scf.for` returns
    (MLIR's verifier rejects both; xDSL's does not, and LLVM's verifier then
    fails without a location). `structured`: the module's `scf.if` and
    `scf.for` ops, where already collected."""
    from xdsl.dialects.scf import ForOp, IfOp

    if structured is None:
        (structured,) = ops_of_classes(module, (IfOp, ForOp))
    for op in structured:
        assert isinstance(op, IfOp | ForOp)
        if isinstance(op, IfOp) and op.results and not op.false_region.blocks:
            raise OpError(
                op,
                "has results but no else region: give it an else that yields "
                "a value of each result type",
            )
        want = [r.type for r in op.results]
        for region in op.regions:
            for block in region.blocks:
                terminator = block.last_op
                if terminator is None:
                    continue
                got = [v.type for v in terminator.operands]
                if got != want:
                    spelled = ", ".join(map(str, got)) or "nothing"
                    results = ", ".join(map(str, want)) or "no results"
                    raise OpError(
                        terminator,
                        f"yields ({spelled}) but the enclosing '{op.name}' has "
                        f"({results}): yield a value of each result type",
                    )


def check_static_shared(
    module: ModuleOp, limit: int | None, target: str, why: str = ""
) -> None:
    """Raise an OpError at the first kernel whose static shared memory (its
    `#gpuc.finalized` record's, else the analysis's) exceeds `limit` bytes
    (the target's `max_static_shared_bytes`; `why` its `static_shared_limit`)."""
    from gpuc.dialects.analysis import kernel_facts

    if limit is None:
        return
    facts: dict[str, KernelFacts] | None = None
    for func in module.ops:
        if not isinstance(func, FuncOp) or not func.is_kernel:
            continue
        name = func.sym_name.data
        record = func.attributes.get(FINALIZED_ATTR)
        if isinstance(record, FinalizedAttr):
            used = record.shared_bytes
        else:
            facts = facts if facts is not None else kernel_facts(module)
            used = facts[name].static_shared_bytes
        if used > limit:
            because = f" ({why})" if why else ""
            raise OpError(
                func,
                f"kernel @{name}{made_of(func)} uses {used} bytes of static "
                "shared memory, more "
                f"than the {limit} bytes the {target} target allows{because}; "
                "allocate less workgroup memory (gpuc.shared_alloc, or an "
                "imported kernel's workgroup memrefs; helpers' allocations "
                "count too)",
            )
