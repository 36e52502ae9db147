"""What every target provides: data (triple, address-space numbers, calling
conventions, what it emits, which executor runs it) plus a few hooks (kernel
finishing, what the target rejects, index and sync ops, linking, emission,
validation). A new target is one folder, `gpuc/targets/<name>/`, whose
`target.py` subclasses `Target`, registered once (`gpuc/targets/__init__.py`,
or the `gpuc.targets` entry-point group; docs/extending.md); nothing outside
`gpuc/targets/` asks which target it is.

Options are the dataclass's fields (frozen, hashable); `metadata={"help": ...}`
on a field becomes the help of its command-line flag (`sm` is `--sm`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import ArgSpecConvertible
from xdsl.utils.exceptions import DiagnosticException

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import (
    AddressSpace,
    CompileSettings,
    FinalizedAttr,
    TargetAttr,
)
from gpuc.dialects.call_graph import call_graph
from gpuc.dialects.functions import FuncOp
from gpuc.targets.common import (
    LLVM_MATH,
    atomic_ops,
    check_atomic_widths,
    check_loop_steps,
    check_static_shared,
    check_structured_results,
)

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.dialects import cf
    from xdsl.ir import Operation, SSAValue
    from xdsl.passes import ModulePass

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
    from gpuc.lowering.context import FunctionLowering, ModuleLowering
    from gpuc.targets.common import Emitted

KNOWN_BLOCK_SIZE_ATTR = "gpu.known_block_size"
"""Kernel attribute (from MLIR's gpu dialect, kept by the import): the block
size the kernel is always launched with."""


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
    block_specialization: ClassVar[bool] = False
    """Whether the executor takes `specialize=`: a function that compiles the
    module again with one kernel known to run with one block
    (`gpuc.compiler.specialized_llvm_ir`), which it calls for a kernel it
    launches again and again with the same block (the native target's barrier
    kernels: docs/native-abi.md)."""
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
    so the compile cache keys them (gpuc/cache/compiling.py)."""
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

    def attr(self, settings: CompileSettings | None = None) -> TargetAttr:
        """This target, compiled with `settings`, as the module attribute
        `#gpuc.target<name, options, settings>`."""
        return TargetAttr(self.name, self.options(), settings)

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

    def dialect_passes(self) -> tuple[ModulePass, ...]:
        """The target's own dialect-level passes, listed in the pipeline after
        verify-target (and run by the `-t` outputs' lowering passes): its
        decisions made in the IR, where `--print-ir-after-all` shows them,
        instead of in the lowering. None by default."""
        return ()

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
        atomics, loops, structured = _checked_ops(module)
        check_atomic_widths(
            module, self.atomic_bits(), *self.atomic_diagnostic(), atomics=atomics
        )
        check_loop_steps(module, loops)
        check_structured_results(module, structured)
        check_static_shared(
            module, self.max_static_shared_bytes, self.name, self.static_shared_limit
        )

    def atomic_bits(self) -> int:
        """The widest integer (a power of two bits) this target's atomics take,
        as configured (its options are known: verify-target checks atomics
        once, for the lowering too)."""
        return 64

    def atomic_diagnostic(self) -> tuple[str, str]:
        """How a diagnostic on an atomic's width names this target (as
        configured), and what to compile with for wider atomics ('': no way)."""
        return self.name, ""

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
    (gpuc/targets/native/work_groups.py) instead."""

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
    first (gpuc/variants.py)."""

    checked_mode: ClassVar[bool] = False
    """Whether the target has a checked mode (`--checked`), in which
    `check_access` checks every access."""

    def check_access(
        self, fl: FunctionLowering, op: Operation, ptr: SSAValue, address: ir.Value
    ) -> None:
        """Check the `address` `op` is about to access through `ptr`. Default:
        accesses are not checked."""

    def adds_privately(self, fl: FunctionLowering, op: Operation) -> bool:
        """Whether atomic add `op` adds into memory of this OS thread's own (a
        summed parameter's private copy, `gpuc.kernel_params.summed_params`),
        so that it is a plain read-modify-write. Default: no."""
        return False

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
        and serves it only while they return the same (gpuc/cache/compiling.py)."""
        return ()

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes | str:
        """The artefact: PTX text, a SPIR-V binary, an object file."""
        raise NotImplementedError(f"target {self.name!r} must define emit()")

    def render(self, kind: str, c: Emitted) -> bytes | str:
        """Artefact `kind` (one of `artefacts`) of a compilation that ran to
        `emit`. Default: the artefact itself."""
        assert c.artefact is not None
        return c.artefact

    def validate(self, artefact: bytes | str) -> None:
        """Run the target's validator; raise a diagnostic quoting it on rejection."""


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

        module = kernel.parent_op()
        assert isinstance(module, ModuleOp)  # finalize-kernels' schedule
        return with_record(super().finalize_kernel(kernel, facts), facts, module)

    def assert_failed(self, fl: FunctionLowering, op: cf.AssertOp) -> bool:
        from gpuc.targets.error_record import record_failure

        return record_failure(fl, op)

    def after_call(self, fl: FunctionLowering, callee: str) -> None:
        from gpuc.targets.error_record import after_call

        after_call(fl, callee)

    def hidden_call_args(self, fl: FunctionLowering, callee: str) -> list[ir.Value]:
        from gpuc.targets.error_record import hidden_call_args

        return hidden_call_args(fl, callee)


def _checked_ops(
    module: ModuleOp,
) -> tuple[list[Operation] | None, list[Operation], list[Operation] | None]:
    """The module's atomics, `scf.for` loops, and `scf.if` and `scf.for` ops,
    each in module order, for `Target.verify_module`: from the call graph
    (which finalize-kernels, just before, computed) where it has them; None
    where the ops of two names, interleaved, would take a walk (the check
    then walks)."""
    from xdsl.dialects.scf import ForOp, IfOp

    graph = call_graph(module)
    names = graph.op_names
    none: list[Operation] = []
    atomics = none if names.isdisjoint(op.name for op in atomic_ops()) else None
    ifs, loops = graph.ops_named(IfOp.name), graph.ops_named(ForOp.name)
    structured = None if ifs and loops else ifs or loops
    return atomics, loops, structured
