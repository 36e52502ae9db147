"""What every target provides: data (triple, address-space numbers, calling
conventions, what it emits, which executor runs it) plus a few hooks (kernel
finishing, what the target rejects, index and sync ops, linking, emission,
validation). A new target is one new file that subclasses `Target`, registered
once (`gpuc/targets/__init__.py`, or the `gpuc.targets` entry-point group);
nothing outside `gpuc/targets/` asks which target it is.

Options are the dataclass's fields (frozen, hashable); `metadata={"help": ...}`
on a field becomes the help of its command-line flag (`sm` is `--sm`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.utils.arg_spec import ArgSpecConvertible
from xdsl.utils.exceptions import DiagnosticException

from gpuc.diagnostics import OpError, made_of
from gpuc.dialects.attrs import (
    FINALIZED_ATTR,
    AddressSpace,
    FinalizedAttr,
    TargetAttr,
)
from gpuc.dialects.functions import FuncOp

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.dialects import cf
    from xdsl.ir import Operation, SSAValue

    from gpuc.dialects.analysis import KernelFacts
    from gpuc.dialects.attrs import MemoryOrder
    from gpuc.dialects.fence import FenceScope
    from gpuc.dialects.functions import LaunchOp
    from gpuc.dialects.matrix import (
        FragmentType,
        MatrixElementwiseOp,
        MatrixLoadOp,
        MatrixMmaOp,
        MatrixSplatOp,
        MatrixStoreOp,
    )
    from gpuc.dialects.memory import SharedAllocOp
    from gpuc.dialects.printf import PrintfOp
    from gpuc.dialects.subgroup import ReduceKind, VoteKind
    from gpuc.driver import Compilation
    from gpuc.lowering.context import FunctionLowering, ModuleLowering

KNOWN_BLOCK_SIZE_ATTR = "gpu.known_block_size"
"""Kernel attribute (from MLIR's gpu dialect, kept by the import): the block
size the kernel is always launched with."""

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
class Target(ArgSpecConvertible):
    """Base of all targets; options are dataclass fields (frozen, hashable)."""

    name: ClassVar[str]
    triple: ClassVar[str]
    address_spaces: ClassVar[Mapping[AddressSpace, int]]
    """gpuc address space -> LLVM address-space number."""
    kernel_cconv: ClassVar[str] = ""
    """LLVM calling convention of kernels ("" is LLVM's default, C)."""
    helper_cconv: ClassVar[str] = ""
    artefacts: ClassVar[tuple[str, ...]]
    """What `--emit` can ask for besides `mlir` and `llvm`; the first is the
    default artefact (`ptx`; `spirv`, `spirv-asm`; `obj`, `asm`)."""
    listing: ClassVar[str]
    """The artefact kind that is text, for `-t <target>` (xdsl-opt, gpuc-opt)."""
    executor: ClassVar[str | None] = None
    """`module:Class` of the executor that runs this target's code (None: no
    executor; the artefact is only written)."""
    device: ClassVar[tuple[type, str] | None] = None
    """What `device=` selects for the executor: (type, description); None: the
    executor takes no device."""
    atomic_scope: ClassVar[str] = ""
    """LLVM `syncscope` of atomics ("" is LLVM's default, the whole system)."""
    cas_atomics: ClassVar[frozenset[str]] = frozenset()
    cas_typed_atomics: ClassVar[frozenset[tuple[str, str]]] = frozenset()
    """(LLVM atomic kind, LLVM type) pairs made compare-exchange loops too."""
    """`atomicrmw` operations the back-end cannot select: gpuc emits a
    compare-exchange loop for them instead."""
    block_owns_shared: ClassVar[bool] = False
    """One OS thread runs each block whole, and nothing else touches that
    block's shared memory meanwhile: an add or exchange on shared memory is a
    plain read-modify-write (the native target's work-group functions)."""
    narrowest_atomic_bits: ClassVar[int] = 8
    """The narrowest memory an atomic updates: a bf16 atomic on a target whose
    atomics are wider exchanges the 32-bit word holding it
    (gpuc.lowering.memory.bf16_atomic)."""
    alloca_address_space: ClassVar[int] = 0
    """Where LLVM's data layout puts stack slots (`A<n>`): gpuc.private_alloc's
    array, cast to the target's local space when that differs."""
    exact_float_minmax: ClassVar[bool] = True
    """The back-end selects llvm.maximum and llvm.minimum as LLVM defines them
    (a NaN operand gives NaN, -0 < +0); where not, gpuc.lowering.arith adds
    the NaN and signed-zero cases around them."""
    max_static_shared_bytes: ClassVar[int | None] = None
    """The most static shared memory (all of a kernel's `gpuc.shared_alloc`s,
    its helpers' included) one kernel may use, in bytes; None: no limit."""
    static_shared_limit: ClassVar[str] = ""
    """Where `max_static_shared_bytes` comes from, for the diagnostic."""
    quotes_locations: ClassVar[bool] = False
    """The artefact quotes source locations (in its run-time error messages),
    so the compile cache keys them (gpuc/caching.py)."""
    debug_emission_kind: ClassVar[str] = "LineTablesOnly"
    """What LLVM emits of the line tables (`DICompileUnit`'s emissionKind):
    `LineTablesOnly`, a DWARF line table; `DebugDirectivesOnly`, the
    assembler's `.file`/`.loc` directives and no DWARF sections."""
    dwarf_version: ClassVar[int] = 5
    """The DWARF version of the line tables (the "Dwarf Version" module flag)."""

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def options(self) -> dict[str, Any]:
        """The options that are set (None means "the target's default")."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) is not None
        }

    def attr(self) -> TargetAttr:
        """This target as the module attribute `#gpuc.target<name, options>`."""
        return TargetAttr(self.name, self.options())

    def describe(self) -> str:
        """The target and the options that are set, as a spec: `ptx{sm=90}`."""
        from xdsl.utils.arg_spec import ArgSpec

        return str(ArgSpec(self.name, {k: (v,) for k, v in self.options().items()}))

    # Dialect level: the finalization schedule and verify-target call these.

    def hidden_call_args(self, fl: FunctionLowering, callee: str) -> list[ir.Value]:
        """What a call of `callee` passes before its operands: the caller's
        leading hidden arguments, as many as the callee takes
        (`ModuleLowering.hidden`)."""
        return list(fl.hidden_args[: len(fl.ml.hidden.get(callee, ()))])

    def finalize_kernel(self, kernel: FuncOp, facts: KernelFacts) -> FinalizedAttr:
        """Every decision this target takes for one kernel of the entrypoint set
        (the finalization schedule calls this once per kernel): the symbol it
        is launched by, its calling convention, hidden state, launch entry,
        and the facts the executors need (barrier use, static shared size,
        known block size). Lowering, the driver and the executors read the
        record and decide nothing again."""
        return FinalizedAttr(
            self.symbol_name(kernel.sym_name.data),
            cconv=self.kernel_cconv,
            barrier=facts.uses_barrier,
            shared=facts.static_shared_bytes,
            block=known_block_size(kernel),
            prints=facts.prints,
            fragments=facts.fragments,
        )

    def verify_module(self, module: ModuleOp) -> None:
        """Raise a diagnostic for what this target cannot express, before LLVM
        sees it. Default: integer atomics of a width `atomic_bits` rules out
        (LLVM's verifier rejects i1 and i24, back-ends end the process or
        call library functions the JIT cannot find on wider ones), `scf.for`
        loops with a constant step of 0, `scf.if`/`scf.for` whose yields do
        not match their results (`check_structured_results`), and kernels
        using more static shared memory than `max_static_shared_bytes`; every
        other op the translator
        knows is expressible. Targets that override this call it too."""
        check_atomic_widths(module, self.atomic_bits(), self.name)
        check_loop_steps(module)
        check_structured_results(module)
        check_static_shared(module, self)

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

    def function_lowering(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> FunctionLowering:
        """What translates `func`'s body into `fn` (the native target runs
        barrier kernels as work-group functions)."""
        from gpuc.lowering.context import FunctionLowering

        return FunctionLowering(ml, func, fn)

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        """After a function's declaration is created (its calling convention is
        set from the kernel's record, or `helper_cconv`): anything else."""

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

    def shared_parameter(self, fl: FunctionLowering, value: ir.Value) -> ir.Value:
        """A kernel's `!gpuc.ptr<T, shared>` parameter as its body uses it,
        given what the launch passes (`gpuc.SharedMemory(count)` on the host).
        Default: the parameter itself (OpenCL's local-memory argument, which
        the runtime points at memory it allocates); ptx: a byte offset into
        the launch's dynamic shared window. (The native launch entry does
        this before calling the kernel: docs/native-abi.md.)"""
        return value

    def shared_alloc(self, fl: FunctionLowering, op: SharedAllocOp) -> ir.Value:
        """Default: one internal global in the shared address space per op."""
        from gpuc.lowering.memory import shared_global

        return shared_global(fl, op)

    def launch(self, fl: FunctionLowering, op: LaunchOp) -> None:
        raise OpError(
            op, f"the {self.name} target cannot launch kernels from the device"
        )

    long_modifier: ClassVar[str] = "l"
    """The C length modifier of a 64-bit integer in `printf` (`ll` where a
    long is 32 bits)."""

    def printf(
        self, fl: FunctionLowering, op: PrintfOp, text: str, values: list[ir.Value]
    ) -> None:
        """Print `text` (C's format, NUL not included) with the promoted
        `values` at the builder's position. Default: the target cannot print."""
        raise OpError(
            op,
            f"prints, which the {self.name} target cannot do; compile for "
            "ptx, spirv or native to print from a kernel",
        )

    def prints_failure(self, fl: FunctionLowering) -> bool:
        """Whether a failing assert of `fl`'s function prints its line with
        `printf` (gpuc/asserts.py's `device_message_format`). Default: no."""
        return False

    def assert_failed(self, fl: FunctionLowering, op: cf.AssertOp) -> bool:
        """Report `op` failing at the builder's position; False if it cannot
        (the lowering then traps). Default: False."""
        return False

    def after_call(self, fl: FunctionLowering, callee: str) -> None:
        """After a call of `callee` that passed hidden arguments, at the
        builder's position (a target whose failing asserts return tests there
        whether to return too). Default: nothing."""

    def fence(
        self,
        fl: FunctionLowering,
        op: Operation,
        scope: FenceScope,
        ordering: MemoryOrder,
    ) -> None:
        """Order the thread's memory accesses at `scope` as `ordering` says.
        Default: the target cannot."""
        raise OpError(op, f"the {self.name} target cannot lower '{op.name}'")

    # Subgroups and warp matrices (gpuc/lowering/subgroup.py, gpuc/lowering/matrix.py).

    subgroup_collectives: ClassVar[bool] = False
    """Whether `read_lane`, `subgroup_reduce`, `vote` and `ballot` lower the
    subgroup collectives where they stand. The native target runs a block's
    threads one after another and lowers them in its work-group functions
    (gpuc/targets/work_items.py) instead."""

    def subgroup_index(self, fl: FunctionLowering, kind: str) -> ir.Value:
        """`kind` (subgroup_id, subgroup_size, num_subgroups, lane_id or
        max_subgroup_size, the size every subgroup but a block's last has) as
        an `index` value. Default: CUDA's warps of 32 threads in linear
        thread order."""
        from gpuc.lowering.subgroup import warp_index

        return warp_index(fl, kind)

    def read_lane(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, lane: ir.Value
    ) -> ir.Value:
        """`value` of subgroup lane `lane` (an i32 every thread computes)."""
        raise OpError(op, f"the {self.name} target cannot lower '{op.name}'")

    def subgroup_reduce(
        self, fl: FunctionLowering, op: Operation, kind: ReduceKind, value: ir.Value
    ) -> ir.Value:
        """The reduction of `value` over the thread's subgroup."""
        raise OpError(op, f"the {self.name} target cannot lower '{op.name}'")

    def vote(
        self, fl: FunctionLowering, op: Operation, kind: VoteKind, value: ir.Value
    ) -> ir.Value:
        """Whether the i1 `value` holds for any (all) of the subgroup's threads."""
        raise OpError(op, f"the {self.name} target cannot lower '{op.name}'")

    def ballot(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, width: int
    ) -> ir.Value:
        """An i`width` whose bit i is lane i's `value` (lanes from `width` on
        left out)."""
        raise OpError(op, f"the {self.name} target cannot lower '{op.name}'")

    matrix_layout: ClassVar[bool] = False
    """Whether the target spreads a matrix fragment over a subgroup's lanes
    with a layout of its own (ptx's wmma, spirv's lane matrices): its matrix
    ops are then collectives, and the helpers reaching one are `convergent`.
    Otherwise every thread holds whole tiles: the defaults below, the
    emulation of gpuc/lowering/matrix.py."""

    def fragment_type(self, ml: ModuleLowering, fragment: FragmentType) -> ir.Type:
        """What a thread holds of `fragment`."""
        from gpuc.lowering.matrix import tile_type

        return tile_type(ml, fragment)

    def matrix_load(self, fl: FunctionLowering, op: MatrixLoadOp) -> ir.Value:
        from gpuc.lowering.matrix import emulate_load

        return emulate_load(fl, op)

    def matrix_store(self, fl: FunctionLowering, op: MatrixStoreOp) -> None:
        from gpuc.lowering.matrix import emulate_store

        emulate_store(fl, op)

    def matrix_mma(self, fl: FunctionLowering, op: MatrixMmaOp) -> ir.Value:
        from gpuc.lowering.matrix import emulate_mma

        return emulate_mma(fl, op)

    def matrix_splat(self, fl: FunctionLowering, op: MatrixSplatOp) -> ir.Value:
        from gpuc.lowering.matrix import emulate_splat

        return emulate_splat(fl, op)

    def matrix_elementwise(
        self, fl: FunctionLowering, op: MatrixElementwiseOp
    ) -> ir.Value:
        from gpuc.lowering.matrix import emulate_elementwise

        return emulate_elementwise(fl, op)

    compile_weight: ClassVar[int] = 0
    """How much more a compile for this target costs than one for most
    targets, roughly: `compile_many` hands the costliest variants to its pool
    first (gpuc/many.py)."""

    checked_mode: ClassVar[bool] = False
    """Whether the target has a checked mode (`--checked`), in which
    `check_access` checks every access."""

    def check_access(
        self, fl: FunctionLowering, op: Operation, ptr: SSAValue, address: ir.Value
    ) -> None:
        """Check the `address` `op` is about to access through `ptr`. Default:
        accesses are not checked."""

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

    def link_inputs(self, translated: str) -> tuple[str, ...]:
        """The files `link` reads for the module translated to `translated`
        (LLVM IR text), beyond gpuc's code: the paths ("module:function") of
        functions that return each file's identity (its path and content
        digest). They must be light to import (the command line's fast path
        calls them). The compile cache records their values with the entry
        and serves it only while they return the same (gpuc/caching.py)."""
        return ()

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes | str:
        """The artefact: PTX text, a SPIR-V binary, an object file."""
        raise NotImplementedError(f"target {self.name!r} must define emit()")

    def render(self, kind: str, c: Compilation) -> bytes | str:
        """Artefact `kind` (one of `artefacts`) of a compilation that ran to
        `emit`. Default: the artefact itself."""
        assert c.artefact is not None
        return c.artefact

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


def check_loop_steps(module: ModuleOp) -> None:
    """Raise an OpError for an `scf.for` whose step is the constant 0 (MLIR's
    verifier rejects it; xDSL's does not)."""
    from xdsl.dialects.arith import ConstantOp
    from xdsl.dialects.builtin import IntegerAttr
    from xdsl.dialects.scf import ForOp

    for op in module.walk():
        if not isinstance(op, ForOp):
            continue
        step = op.step.owner
        if (
            isinstance(step, ConstantOp)
            and isinstance(step.value, IntegerAttr)
            and step.value.value.data == 0
        ):
            raise OpError(
                op, "step is 0: the loop would not terminate; give it a positive step"
            )


def check_structured_results(module: ModuleOp) -> None:
    """Raise an OpError for an `scf.if` with results but no else region, or an
    `scf.yield` whose types differ from what its `scf.if` or `scf.for` returns
    (MLIR's verifier rejects both; xDSL's does not, and LLVM's verifier then
    fails without a location)."""
    from xdsl.dialects.scf import ForOp, IfOp

    for op in module.walk():
        if not isinstance(op, IfOp | ForOp):
            continue
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


def check_static_shared(module: ModuleOp, target: Target) -> None:
    """Raise an OpError at the first kernel whose static shared memory (its
    `#gpuc.finalized` record's, else the analysis's) exceeds the target's
    `max_static_shared_bytes`."""
    from gpuc.dialects.analysis import kernel_facts

    limit = target.max_static_shared_bytes
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
            why = (
                f" ({target.static_shared_limit})" if target.static_shared_limit else ""
            )
            raise OpError(
                func,
                f"kernel @{name}{made_of(func)} uses {used} bytes of static "
                "shared memory, more "
                f"than the {limit} bytes the {target.name} target allows{why}; "
                "allocate less workgroup memory (gpuc.shared_alloc, or an "
                "imported kernel's workgroup memrefs; helpers' allocations "
                "count too)",
            )


def target_options(
    target_cls: type[Target], options: Mapping[str, Any]
) -> dict[str, Any]:
    """The entries of `options` that configure `target_cls`."""
    names = target_cls.option_names()
    return {k: v for k, v in options.items() if k in names}


def known_block_size(kernel: FuncOp) -> tuple[int, ...] | None:
    """The kernel's `gpu.known_block_size` (x, y, z), if it has one."""
    from xdsl.dialects.builtin import DenseArrayBase

    attr = kernel.attributes.get(KNOWN_BLOCK_SIZE_ATTR)
    if isinstance(attr, DenseArrayBase):
        sizes = tuple(int(v) for v in attr.get_values())
        return (sizes + (1, 1, 1))[:3]
    return None


@dataclass(frozen=True)
class RecordingTarget(Target):
    """A target whose failing `cf.assert`s are reported through the error
    record (ptx, spirv, amdgpu; gpuc/targets/error_record.py): a kernel that
    reaches an assert takes the record (`errors` in its finalization record);
    a failing assert claims it and returns, and a caller returns after a
    call whose callee's assert failed (`after_call`)."""

    def finalize_kernel(self, kernel: FuncOp, facts: KernelFacts) -> FinalizedAttr:
        from gpuc.asserts import with_record

        return with_record(super().finalize_kernel(kernel, facts), facts)

    def assert_failed(self, fl: FunctionLowering, op: cf.AssertOp) -> bool:
        from gpuc.targets.error_record import record_failure

        return record_failure(fl, op)

    def after_call(self, fl: FunctionLowering, callee: str) -> None:
        from gpuc.targets.error_record import after_call

        after_call(fl, callee)

    def hidden_call_args(self, fl: FunctionLowering, callee: str) -> list[ir.Value]:
        from gpuc.targets.error_record import hidden_call_args

        return hidden_call_args(fl, callee)
