"""The host CPU, following docs/native-abi.md: kernels take a hidden state
pointer (thread, block and grid indices and sizes, shared memory, barrier),
threaded only into the helpers that need it, and each kernel gets an entry
point `__gpuc_launch_<k>` that the native executor calls.

A kernel without barriers runs every thread of its blocks as a loop nest
(thread x innermost) around the kernel, inlined, so that LLVM can keep the
state in registers and vectorize across threads; where the kernel's body is
guarded by `global_id < bound`, that loop stops at the bound, so the vector
loop needs no masks (gpuc/targets/native/thread_guards.py). A kernel with barriers
becomes a work-group function, which runs a whole block per call as loops
over its threads between the barriers (gpuc/targets/native/work_groups.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import ModuleOp

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace, FinalizedAttr, PtrType
from gpuc.dialects.functions import CallOp, FuncAddrOp, FuncOp, LaunchOp
from gpuc.targets.base import Target, known_block_size
from gpuc.targets.native.abi import (
    LAUNCH,
    STATE,
    WARP,
    checked_symbol,
    dynamic_shared_start,
    entry_point,
    state_bytes,
)
from gpuc.targets.native.thread_guards import ThreadGuard, thread_guards

if TYPE_CHECKING:
    from collections.abc import Callable

    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.dialects import cf
    from xdsl.ir import Operation, SSAValue
    from xdsl.passes import ModulePass

    from gpuc.dialects.analysis import KernelFacts
    from gpuc.dialects.attrs import MemoryOrder
    from gpuc.dialects.fence import FenceScope
    from gpuc.dialects.memory import SharedAllocOp
    from gpuc.dialects.printf import PrintfOp
    from gpuc.lowering.context import FunctionLowering, ModuleLowering
    from gpuc.targets.common import Emitted


@dataclass(frozen=True)
class NativeTarget(Target):
    compile_weight: ClassVar[int] = 2
    """Object code at -O3 took 4x a PTX compile of the same module (the
    variants of bench/compile_server.py)."""
    name: ClassVar[str] = "native"
    address_spaces: ClassVar[dict[AddressSpace, int]] = dict.fromkeys(AddressSpace, 0)
    artefacts: ClassVar[tuple[str, ...]] = ("obj", "asm")
    listing: ClassVar[str] = "asm"
    executor: ClassVar[str | None] = "gpuc.runtime.native:NativeExecutor"
    quotes_locations: ClassVar[bool] = True  # work-group functions' errors
    block_owns_shared: ClassVar[bool] = True
    """An OS thread runs each block whole (docs/native-abi.md)."""
    checked_mode: ClassVar[bool] = True
    """Compiles in checked mode (`gpuc.compile(..., checked=True)`)."""
    block_specialization: ClassVar[bool] = True
    """A barrier kernel launched again with the same block runs a work-group
    function compiled for that block (gpuc/runtime/native.py)."""
    static_shared_limit: ClassVar[str] = (
        "the native executor's limit: CUDA's static one, so that a launch that "
        "runs here runs on a GPU"
    )

    @property
    def max_static_shared_bytes(self) -> int | None:  # type: ignore[override]
        """The native executor's limit (its default `Limits`)."""
        from gpuc.runtime.args import CUDA_LIMITS

        return CUDA_LIMITS.max_shared_bytes

    @property
    def triple(self) -> str:  # type: ignore[override]
        from llvmlite import binding as llvm

        return str(llvm.get_process_triple())

    def verify_module(self, module: ModuleOp) -> None:
        from gpuc.dialects.analysis import module_facts

        super().verify_module(module)
        facts = module_facts(module)
        declared = {
            op.sym_name.data
            for op in module.ops
            if isinstance(op, FuncOp) and op.is_declaration
        }
        for func in module.ops:
            if not isinstance(func, FuncOp):
                continue
            for op in func.walk():
                if isinstance(op, CallOp | FuncAddrOp):
                    check_resolvable(op, op.callee.root_reference.data, declared)
                if isinstance(op, LaunchOp):
                    raise OpError(
                        op,
                        "launches a kernel from the device, which the "
                        "native target does not support; launch the child "
                        "kernel from the host instead",
                    )
                if (
                    isinstance(op, FuncAddrOp)
                    and op.callee.root_reference.data in facts.state
                ):
                    raise OpError(
                        op,
                        f"takes the address of @{op.callee.root_reference.data}"
                        ", which reads the kernel state (thread or block "
                        "indices, shared memory, barriers); the native target "
                        "passes that state only to direct calls",
                    )

    def atomic_bits(self) -> int:
        """x86-64's cmpxchg16b and AArch64's casp: 128 bits; wider ones
        become libatomic calls, which the JIT cannot resolve."""
        return 128

    def finalize_kernel(self, kernel: FuncOp, facts: KernelFacts) -> FinalizedAttr:
        """Every kernel takes the state and is launched through its entry
        point `__gpuc_launch_<k>` (docs/native-abi.md)."""
        return FinalizedAttr(
            entry_point(self.symbol_name(kernel.sym_name.data)),
            state=True,
            launch_entry=True,
            barrier=facts.uses_barrier,
            shared=facts.static_shared_bytes,
            block=known_block_size(kernel),
            prints=facts.prints,
            fragments=facts.fragments,
        )

    def dialect_passes(self) -> tuple[ModulePass, ...]:
        """form-work-groups: how each barrier kernel runs as a work-group
        function, decided in the IR (gpuc/targets/native/form_work_groups.py)."""
        from gpuc.targets.native.form_work_groups import FormWorkGroups

        return (FormWorkGroups(),)

    def prepare_module(self, ml: ModuleLowering) -> None:
        """Kernels whose record says so, the helpers that read the state, and
        those that report a fault (gpuc/targets/native/faults.py) get it as
        parameter 0."""
        from llvmlite import ir

        from gpuc.targets.native.faults import fault_plan

        for name in ml.funcs:
            record = ml.records.get(name)
            if (record is not None and record.takes_state) or (
                record is None and name in ml.facts.state
            ):
                ml.hidden[name] = (ir.PointerType(),)
        for name in fault_plan(ml).helpers:
            ml.hidden[name] = (ir.PointerType(),)

    long_modifier: ClassVar[str] = "ll"  # long is 32 bits where LLP64

    def printf(
        self, fl: FunctionLowering, op: PrintfOp, text: str, values: list[ir.Value]
    ) -> None:
        """Formatted with snprintf, kept per block by the executor
        (gpuc/runtime/printing.py), printed after the launch in block order."""
        from gpuc.targets.printf import native_printf

        native_printf(fl, op, text, values)

    def prints_failure(self, fl: FunctionLowering) -> bool:
        """A failing assert prints its line, as CUDA's does."""
        return True

    def assert_failed(self, fl: FunctionLowering, op: cf.AssertOp) -> bool:
        """A failing `cf.assert` prints its line and is reported
        (gpuc/targets/native/asserts.py; False where the function has no
        state to report through: it traps)."""
        from gpuc.targets.native.asserts import assert_failed

        return assert_failed(fl, op)

    def check_access(
        self, fl: FunctionLowering, op: Operation, ptr: SSAValue, address: ir.Value
    ) -> None:
        """In checked mode, an access outside its pointer's buffer stops the
        launch with a report."""
        from gpuc.targets.native.faults import check_access

        check_access(fl, op, ptr, address)

    def adds_privately(self, fl: FunctionLowering, op: Operation) -> bool:
        """A regrouped add into a summed parameter of the kernel, outside
        checked mode: each OS thread of the launch adds into a buffer of its
        own (the caller's for the first, a zeroed copy for each other one,
        added into the caller's after the launch: gpuc/runtime/native.py)."""
        from gpuc.targets.native.private_sums import adds_privately

        return adds_privately(fl, op)

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        record = ml.records.get(func.sym_name.data)
        if record is not None and record.has_launch_entry:
            fn.linkage = "internal"
            fn.attributes.add("alwaysinline")
        if fn.args and func.sym_name.data in ml.hidden:
            fn.args[0].name = "state"

    def _state_field(self, fl: FunctionLowering, offset: int, ty: ir.Type) -> ir.Value:
        from llvmlite import ir

        if not fl.hidden_args:
            raise OpError(
                fl.func,
                f"@{fl.func.sym_name.data} reads the kernel state through an op "
                "without the ReadsKernelState trait (gpuc/dialects/traits.py), so the "
                "native target did not pass it the state; give that op the trait",
            )
        state = fl.hidden_args[0]
        address = fl.builder.gep(
            state,
            [ir.Constant(ir.IntType(64), offset)],
            inbounds=True,
            source_etype=ir.IntType(8),
        )
        return fl.builder.load(address, typ=ty, align=8)

    def function_lowering(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> FunctionLowering:
        """A kernel whose record says it reaches a barrier is translated into a
        work-group function."""
        from gpuc.targets.native.work_groups import WorkGroupLowering

        record = ml.records.get(func.sym_name.data)
        if record is not None and record.uses_barrier:
            return WorkGroupLowering(ml, func, fn)
        return super().function_lowering(ml, func, fn)

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        from gpuc.targets.native.work_groups import WorkGroupLowering

        if isinstance(fl, WorkGroupLowering):
            return fl.index_value(kind, dim)
        return self._state_field(fl, STATE.offset(kind, dim), fl.ml.index_type)

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        from llvmlite import ir

        # A warp is WARP consecutive linear thread indices, as on NVIDIA GPUs
        # (and as the work-group functions group threads for collectives).
        b = fl.builder
        x, y, z = (self.index(fl, "thread_id", d) for d in range(3))
        bx, by = (self.index(fl, "block_dim", d) for d in range(2))
        row = b.add(b.mul(z, by, flags=["nuw", "nsw"]), y, flags=["nuw", "nsw"])
        linear = b.add(b.mul(row, bx, flags=["nuw", "nsw"]), x, flags=["nuw", "nsw"])
        return b.urem(linear, ir.Constant(x.type, WARP))

    def barrier(self, fl: FunctionLowering) -> None:
        """Nothing: a work-group function ends one loop over the threads at a
        barrier and starts the next (gpuc/targets/native/work_groups.py). A helper
        that reaches a barrier is translated on its own too, but nothing runs
        that translation: every call of it is part of its kernel's work-group
        function, and its address cannot be taken (`verify_module`)."""

    def shared_alloc(self, fl: FunctionLowering, op: SharedAllocOp) -> ir.Value:
        """A fixed offset into the block's shared memory (the module's layout)."""
        from llvmlite import ir

        base = self._state_field(fl, STATE.offset("shared"), ir.PointerType())
        offset = ir.Constant(ir.IntType(64), fl.ml.facts.shared_offset[op])
        return fl.builder.gep(base, [offset], inbounds=True, source_etype=ir.IntType(8))

    def fence(
        self,
        fl: FunctionLowering,
        op: Operation,
        scope: FenceScope,
        ordering: MemoryOrder,
    ) -> None:
        """LLVM's fence: a block's threads run in one host thread, so a block
        fence only keeps the compiler from moving accesses across it
        (`singlethread`); a device or system fence orders them for the
        threads that run other blocks."""
        from gpuc.lowering.fence import llvm_fence

        llvm_fence(fl, "singlethread" if scope.value == "block" else "", ordering)

    def math_function(self, name: str, ty: ir.Type) -> str:
        """exp on f32 is gpuc's, defined in the module so that LLVM vectorizes
        it (gpuc/targets/native/vector_math.py); the rest are the base's."""
        from gpuc.targets.native.vector_math import FUNCTIONS

        if str(ty) == "float" and name in FUNCTIONS:
            return FUNCTIONS[name]
        return super().math_function(name, ty)

    def finish_module(self, ml: ModuleLowering) -> None:
        from gpuc.targets.native.vector_math import define

        define(ml)
        for name, record in ml.records.items():
            if record.has_launch_entry:
                launch_entry(ml, ml.funcs[name], ml.functions[name], record)

    def target_machine(self, opt_level: int) -> llvm.TargetMachine:
        from llvmlite import binding as llvm

        return llvm.Target.from_triple(self.triple).create_target_machine(
            cpu=llvm.get_host_cpu_name(),
            features=llvm.get_host_cpu_features().flatten(),
            opt=opt_level,
            reloc="pic",
        )

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes:
        return bytes(tm.emit_object(module))

    def render(self, kind: str, c: Emitted) -> bytes | str:
        """`obj`: the object file; `asm`: the host assembly of the same code."""
        if kind == "asm":
            assert c.machine is not None and c.llvm_module is not None
            return str(c.machine.emit_assembly(c.llvm_module))
        return super().render(kind, c)


def check_resolvable(op: Operation, callee: str, declared: set[str]) -> None:
    """A declared function the JIT cannot find in this process (nothing in the
    module, the libraries or the loaded shared libraries defines it) would be
    a jump to address 0 at launch: a diagnostic instead, naming it."""
    import ctypes

    if callee not in declared:
        return
    try:
        getattr(ctypes.CDLL(None), callee)
    except AttributeError:
        raise OpError(
            op,
            f"uses @{callee}, which is declared but defined nowhere: the native "
            f"target runs in this process and no loaded library has '{callee}'; "
            "define it in the module or in a library (--library)",
        ) from None


def launch_entry(
    ml: ModuleLowering, func: FuncOp, kernel: ir.Function, record: FinalizedAttr
) -> None:
    """`void __gpuc_launch_<k>(ptr %launch, A...)` (named by the kernel's
    record): fill a state and run the kernel for the launch's block range:
    every thread of a block in a loop nest around the kernel, or, for a
    work-group function (a kernel that reaches a barrier), one call per block
    with the block's context storage, stopping at the first block that
    reports an error."""
    from llvmlite import ir

    from gpuc.targets.native.common import counted_loop, error_message
    from gpuc.targets.native.faults import fault_plan, guarded_entry

    i64, i8, ptr = ir.IntType(64), ir.IntType(8), ir.PointerType()
    params = kernel.function_type.args[1:]
    plan = fault_plan(ml)
    fn = ir.Function(
        ml.llvm,
        ir.FunctionType(ir.VoidType(), [ptr, *params]),
        record.symbol.data + (".run" if plan.reports else ""),
    )
    if plan.reports:
        # Its caller, the entry itself, holds the jump point of a fault.
        fn.linkage = "internal"
        fn.attributes.add("noinline")
    launch, *args = fn.args
    launch.name = "launch"
    for arg, param in zip(args, kernel.args[1:], strict=True):
        arg.name = param.name
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def field(base: ir.Value, offset: int) -> ir.Value:
        return b.gep(base, [ir.Constant(i64, offset)], inbounds=True, source_etype=i8)

    def read(name: str, dim: int = 0, ty: ir.Type = i64) -> ir.Value:
        return b.load(field(launch, LAUNCH.offset(name, dim)), typ=ty, align=8)

    state = b.alloca(ir.ArrayType(i8, state_bytes(plan.reports)), name="state")
    state.align = 8
    state.type = ptr  # an opaque pointer, like every pointer gpuc builds

    def write(name: str, dim: int, value: ir.Value) -> None:
        b.store(value, field(state, STATE.offset(name, dim)), align=8)

    grid = [read("grid_dim", d) for d in range(3)]
    block = [read("block_dim", d) for d in range(3)]
    for d in range(3):
        write("grid_dim", d, grid[d])
        write("block_dim", d, block[d])
    shared = read("shared", ty=ptr)
    write("shared", 0, shared)
    args = dynamic_shared_args(b, func, args, shared, record.shared_bytes)
    write("error", 0, ir.Constant(ptr, None))
    if plan.reports:
        write("launch", 0, launch)
    context = None
    finish = fn.append_basic_block("finish")
    if record.uses_barrier:
        context = work_group_context(ml, b, kernel, block)
        write("context", 0, context)
        if not isinstance(context, ir.Constant):
            missing = b.icmp_unsigned("==", context, ir.Constant(ptr, None))
            with b.if_then(missing, likely=False):
                text = error_message(
                    ml,
                    "the system refused the memory for the block's context "
                    "storage (values live across barriers); use smaller blocks",
                )
                b.store(text, field(launch, LAUNCH.offset("error")), align=8)
                b.store(
                    read("block_begin"),
                    field(launch, LAUNCH.offset("error_block")),
                    align=8,
                )
                b.branch(finish)
                b.position_at_end(b.append_basic_block("allocated"))
    else:
        write("context", 0, ir.Constant(ptr, None))

    def body(linear_block: ir.Value) -> None:
        x, rest = b.urem(linear_block, grid[0]), b.udiv(linear_block, grid[0])
        block_id = (x, b.urem(rest, grid[1]), b.udiv(rest, grid[1]))
        for d, value in enumerate(block_id):
            write("block_id", d, value)
        if record.uses_barrier:
            b.call(kernel, [state, *args])
            error = b.load(field(state, STATE.offset("error")), typ=ptr, align=8)
            failed = b.icmp_unsigned("!=", error, ir.Constant(ptr, None))
            with b.if_then(failed, likely=False):
                b.store(error, field(launch, LAUNCH.offset("error")), align=8)
                b.store(
                    linear_block, field(launch, LAUNCH.offset("error_block")), align=8
                )
                b.branch(finish)
                b.position_at_end(b.append_basic_block("reported"))
            return

        # The first global id of this block in each dimension, built as the
        # kernel's `gpuc.global_id` builds it, so LLVM sees the same values.
        first = [b.mul(block_id[d], block[d], flags=["nuw", "nsw"]) for d in range(3)]
        guards = thread_guards(func)
        bounds = translate_bounds(ml, func, b, state, args, guards)
        count = list(block)
        for guard, bound in zip(guards, bounds, strict=True):
            count[guard.dim] = threads_below(
                b, first[guard.dim], bound, count[guard.dim], guard.signed
            )
        thread: dict[int, ir.Value] = {}  # dimension -> its loop's variable

        def call_kernel() -> None:
            for guard, bound in zip(guards, bounds, strict=True):
                gid = b.add(first[guard.dim], thread[guard.dim], flags=["nuw", "nsw"])
                cmp = b.icmp_signed if guard.signed else b.icmp_unsigned
                assume(ml, b, cmp("<", gid, bound))
            b.call(kernel, [state, *args])

        # Each loop around the next (no function calls itself: a closure in
        # its own cell would keep the builder and its values for the cycle
        # collector).
        def threads(dim: int, inner: Callable[[], None]) -> Callable[[], None]:
            def run(t: ir.Value) -> None:
                write("thread_id", dim, t)
                thread[dim] = t
                inner()

            return lambda: counted_loop(
                b, ir.Constant(i64, 0), count[dim], run, f"thread.{'xyz'[dim]}"
            )

        threads(2, threads(1, threads(0, call_kernel)))()

    counted_loop(b, read("block_begin"), read("block_end"), body, "block")
    b.branch(finish)
    b.position_at_end(finish)
    if context is not None:
        free = ml.intrinsic("free", ir.VoidType(), [ptr])
        b.call(free, [context])
    b.ret_void()
    if plan.reports:
        guarded_entry(ml, record.symbol.data, fn, list(params))
    if plan.checked:
        marker = ir.GlobalVariable(ml.llvm, i8, checked_symbol(record.symbol.data))
        marker.global_constant = True
        marker.initializer = ir.Constant(i8, 1)


def dynamic_shared_args(
    b: ir.IRBuilder,
    func: FuncOp,
    args: list[ir.Value],
    shared: ir.Value,
    static_bytes: int,
) -> list[ir.Value]:
    """The kernel's arguments with each shared pointer's, a byte offset into
    the block's dynamic shared memory (docs/native-abi.md), made the address
    there: past the static part of the block's `shared` buffer."""
    from llvmlite import ir

    i8, i64 = ir.IntType(8), ir.IntType(64)
    start = dynamic_shared_start(static_bytes)
    placed = list(args)
    for i, ty in enumerate(func.function_type.inputs.data):
        if isinstance(ty, PtrType) and ty.address_space is AddressSpace.SHARED:
            offset = b.add(b.ptrtoint(args[i], i64), ir.Constant(i64, start))
            placed[i] = b.gep(
                shared, [offset], source_etype=i8, name=f"{args[i].name}.window"
            )
    return placed


def work_group_context(
    ml: ModuleLowering, b: ir.IRBuilder, kernel: ir.Function, block: list[ir.Value]
) -> ir.Value:
    """The context storage of one block of a work-group function (its bytes
    per thread times the block's threads), allocated once for the launch's
    block range; null if it needs none (`free` takes null)."""
    from llvmlite import ir

    from gpuc.targets.native.work_groups import context_bytes_symbol

    i64, ptr = ir.IntType(64), ir.PointerType()
    per_thread = ml.llvm.get_global(context_bytes_symbol(kernel.name))
    assert isinstance(per_thread, ir.GlobalVariable)
    bytes_per_thread = int(per_thread.initializer.constant)
    if bytes_per_thread == 0:
        return ir.Constant(ptr, None)
    threads = b.mul(b.mul(block[0], block[1]), block[2])
    size = b.mul(threads, ir.Constant(i64, bytes_per_thread))
    rounded = b.and_(b.add(size, ir.Constant(i64, 63)), ir.Constant(i64, ~63))
    alloc = ml.intrinsic("aligned_alloc", ptr, [i64, i64])
    return b.call(alloc, [ir.Constant(i64, 64), rounded], name="context")


def translate_bounds(
    ml: ModuleLowering,
    func: FuncOp,
    b: ir.IRBuilder,
    state: ir.Value,
    args: list[ir.Value],
    guards: list[ThreadGuard],
) -> list[ir.Value]:
    """Each guard's bound, computed at the builder's position in the launch
    entry by translating its ops as the kernel's own body would."""
    from gpuc.lowering.context import FunctionLowering, translator_for

    if not guards:
        return []
    fl = FunctionLowering(ml, func, b.function)
    fl.hidden_args = (state,)
    fl.builder = b
    entry = func.body.blocks.first
    assert entry is not None
    fl.values.update(zip(entry.args, args, strict=True))
    translated: set[Operation] = set()
    for guard in guards:
        for op in guard.ops:
            if op not in translated:
                translator_for(op)(op, fl)
                translated.add(op)
    return [fl.get(guard.bound) for guard in guards]


def threads_below(
    b: ir.IRBuilder, first: ir.Value, bound: ir.Value, limit: ir.Value, signed: bool
) -> ir.Value:
    """How many threads from global id `first` on, at most `limit`, are below
    `bound`: `first < bound ? min(bound - first, limit) : 0`."""
    from llvmlite import ir

    cmp = b.icmp_signed if signed else b.icmp_unsigned
    left = b.sub(bound, first)
    fewer = b.select(b.icmp_unsigned("<", left, limit), left, limit)
    return b.select(cmp("<", first, bound), fewer, ir.Constant(limit.type, 0))


def assume(ml: ModuleLowering, b: ir.IRBuilder, condition: ir.Value) -> None:
    from llvmlite import ir

    fn = ml.intrinsic("llvm.assume", ir.VoidType(), [ir.IntType(1)])
    b.call(fn, [condition])
