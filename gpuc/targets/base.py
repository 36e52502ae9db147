"""What every target provides: data (triple, address-space numbers, calling
conventions) plus a few hooks (index and sync ops, kernel finishing, what the
target rejects, linking, emission, validation). A new target is one new file
in this package that subclasses `Target` and registers itself in
`gpuc/targets/__init__.py`; nothing outside this package asks which target it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, UnitAttr, i64
from xdsl.utils.exceptions import DiagnosticException

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import BARRIERS_ATTR, AddressSpace
from gpuc.dialects.functions import FuncOp

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir

    from gpuc.dialects.functions import LaunchOp
    from gpuc.dialects.memory import SharedAllocOp
    from gpuc.lowering.context import FunctionLowering, ModuleLowering

SHARED_BYTES_ATTR = "gpuc.static_shared_bytes"
"""Function attribute (i64) set by finalize-kernels: static shared memory bytes."""

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


class TargetError(DiagnosticException):
    """What a target cannot express, or a bad target option."""


@dataclass(frozen=True)
class Target:
    """Base of all targets; options are dataclass fields (frozen, hashable)."""

    name: ClassVar[str]
    triple: ClassVar[str]
    address_spaces: ClassVar[Mapping[AddressSpace, int]]
    """gpuc address space -> LLVM address-space number."""
    kernel_cconv: ClassVar[str] = ""
    """LLVM calling convention of kernels ("" is LLVM's default, C)."""
    helper_cconv: ClassVar[str] = ""
    artefact_suffix: ClassVar[str]
    """File suffix of the artefact (`.ptx`, `.spv`, `.o`)."""
    atomic_scope: ClassVar[str] = ""
    """LLVM `syncscope` of atomics ("" is LLVM's default, the whole system)."""
    cas_atomics: ClassVar[frozenset[str]] = frozenset()
    """`atomicrmw` operations the back-end cannot select: gpuc emits a
    compare-exchange loop for them instead."""

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def describe(self) -> str:
        """The target and its options, e.g. `ptx{sm=90 ptx_isa=None}`."""
        options = " ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))
        return f"{self.name}{{{options}}}" if options else self.name

    # Dialect level: the finalization schedule and verify-target call these.

    def finalize_kernel(self, module: ModuleOp, kernel: FuncOp) -> None:
        """Per-kernel finishing at the dialect level (the finalization schedule
        calls this once for each kernel of the entrypoint set): records on the
        kernel whether it reaches a barrier and its static shared-memory size,
        the facts the native ABI and the executors depend on."""
        from gpuc.dialects.analysis import kernel_facts

        facts = kernel_facts(module, [kernel.sym_name.data])[kernel.sym_name.data]
        if facts.uses_barrier:
            kernel.attributes[BARRIERS_ATTR] = UnitAttr()
        else:
            kernel.attributes.pop(BARRIERS_ATTR, None)
        kernel.attributes[SHARED_BYTES_ATTR] = IntegerAttr(
            facts.static_shared_bytes, i64
        )

    def verify_module(self, module: ModuleOp) -> None:
        """Raise a diagnostic for what this target cannot express, before LLVM
        sees it. Default: integer atomics of a width `atomic_bits` rules out
        (LLVM's verifier rejects i1 and i24, back-ends end the process or
        call library functions the JIT cannot find on wider ones); every
        other op the translator knows is expressible. Targets that override
        this call it too."""
        check_atomic_widths(module, self.atomic_bits(), self.name)

    def atomic_bits(self) -> int:
        """The widest integer (a power of two bits) this target's atomics take."""
        return 64

    # Lowering hooks: called by `gpuc.lowering` while translating to llvmlite.

    def index_bits(self) -> int:
        """Width of `index` (the target's pointer width)."""
        return 64

    def symbol_name(self, name: str) -> str:
        """The LLVM (and artefact) symbol of gpuc symbol `name`."""
        return name

    def prepare_module(self, ml: ModuleLowering) -> None:
        """Before any function is translated (e.g. plan hidden parameters)."""

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        """After a function's declaration is created: calling convention etc."""
        fn.calling_convention = (
            self.kernel_cconv if func.is_kernel else self.helper_cconv
        )

    def finish_module(self, ml: ModuleLowering) -> None:
        """After every function is translated (e.g. entry points, metadata)."""

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        """`gpuc.<kind> <dim>` as an `index` value; `kind` is thread_id,
        block_id, block_dim or grid_dim."""
        raise NotImplementedError(f"target {self.name!r} must define index()")

    def global_id(self, fl: FunctionLowering, dim: int) -> ir.Value:
        """`block_id * block_dim + thread_id`; targets with a native one override."""
        b = fl.builder
        block = b.mul(
            self.index(fl, "block_id", dim),
            self.index(fl, "block_dim", dim),
            flags=["nuw", "nsw"],
        )
        return b.add(block, self.index(fl, "thread_id", dim), flags=["nuw", "nsw"])

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        raise NotImplementedError(f"target {self.name!r} must define lane_id()")

    def barrier(self, fl: FunctionLowering) -> None:
        raise NotImplementedError(f"target {self.name!r} must define barrier()")

    def shared_alloc(self, fl: FunctionLowering, op: SharedAllocOp) -> ir.Value:
        """Default: one internal global in the shared address space per op."""
        from gpuc.lowering.memory import shared_global

        return shared_global(fl, op)

    def launch(self, fl: FunctionLowering, op: LaunchOp) -> None:
        raise OpError(
            op, f"the {self.name} target cannot launch kernels from the device"
        )

    def math_function(self, name: str, ty: ir.Type) -> str:
        """The function that computes C math function `name` (`exp`, `erf`, ...)
        on `ty`: an LLVM intrinsic where one exists, else the C library's."""
        if name in LLVM_MATH:
            suffix = ".i32" if name == "powi" else ""
            return f"llvm.{name}.{ty.intrinsic_name}{suffix}"
        return f"{name}{'f' if str(ty) == 'float' else ''}"

    # LLVM: target machine, linking, emission, validation.

    def target_machine(self, opt_level: int) -> llvm.TargetMachine:
        raise NotImplementedError(f"target {self.name!r} must define target_machine()")

    def llvm_options(self) -> tuple[str, ...]:
        """`llvm::cl` options the back-end needs (process-wide, set once)."""
        return ()

    def link(self, module: llvm.ModuleRef) -> None:
        """Link libraries the translated module needs (before optimization)."""

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes | str:
        """The artefact: PTX text, a SPIR-V binary, an object file."""
        raise NotImplementedError(f"target {self.name!r} must define emit()")

    def emit_text(self, artefact: bytes | str) -> str:
        """A readable form of the artefact (PTX, SPIR-V assembly, ...)."""
        return artefact if isinstance(artefact, str) else artefact.hex()

    def validate(self, artefact: bytes | str) -> None:
        """Run the target's validator; raise a diagnostic quoting it on rejection."""


def check_atomic_widths(
    module: ModuleOp, widest: int, target: str, wider: str = ""
) -> None:
    """Raise an OpError for an atomic on an integer that is not a power of two
    of 8 to `widest` bits; `wider` says how to get wider ones, if there is a way."""
    from gpuc.dialects.attrs import PtrType
    from gpuc.dialects.memory import AtomicCmpXchgOp, AtomicRMWOp

    for op in module.walk():
        if not isinstance(op, AtomicRMWOp | AtomicCmpXchgOp):
            continue
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


def target_options(
    target_cls: type[Target], options: Mapping[str, Any]
) -> dict[str, Any]:
    """The entries of `options` that configure `target_cls`."""
    names = target_cls.option_names()
    return {k: v for k, v in options.items() if k in names}
