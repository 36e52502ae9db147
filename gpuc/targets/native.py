"""The host CPU, following docs/native-abi.md: kernels take a hidden state
pointer (thread, block and grid indices and sizes, shared memory, barrier),
threaded only into the helpers that need it, and each kernel gets an entry
point `__gpuc_launch_<k>` that the native executor calls.

A kernel without barriers runs every thread of its blocks as a loop nest
(thread x innermost) around the kernel, inlined, so that LLVM can keep the
state in registers and vectorize across threads; where the kernel's body is
guarded by `global_id < bound`, that loop stops at the bound, so the vector
loop needs no masks (gpuc/targets/thread_guards.py). A kernel with barriers
runs one thread per call and calls the executor's barrier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import ModuleOp

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace
from gpuc.dialects.functions import FuncAddrOp, FuncOp, LaunchOp
from gpuc.targets.base import Target
from gpuc.targets.thread_guards import ThreadGuard, thread_guards

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.ir import Operation

    from gpuc.dialects.memory import SharedAllocOp
    from gpuc.lowering.context import FunctionLowering, ModuleLowering

STATE_OFFSETS = {"thread_id": 0, "block_id": 24, "block_dim": 48, "grid_dim": 72}
STATE_SHARED, STATE_BARRIER, STATE_BARRIER_ARG, STATE_BYTES = 96, 104, 112, 120
LAUNCH_GRID, LAUNCH_BLOCK, LAUNCH_BEGIN, LAUNCH_END = 0, 24, 48, 56
LAUNCH_SHARED, LAUNCH_BARRIER, LAUNCH_BARRIER_ARG, LAUNCH_THREAD = 64, 72, 80, 88
WARP = 32
ENTRY_PREFIX = "__gpuc_launch_"


@dataclass(frozen=True)
class NativeTarget(Target):
    name: ClassVar[str] = "native"
    address_spaces: ClassVar[dict[AddressSpace, int]] = dict.fromkeys(AddressSpace, 0)
    artefact_suffix: ClassVar[str] = ".o"

    @property
    def triple(self) -> str:  # type: ignore[override]
        from llvmlite import binding as llvm

        return str(llvm.get_process_triple())

    def verify_module(self, module: ModuleOp) -> None:
        from gpuc.dialects.analysis import module_facts

        super().verify_module(module)
        facts = module_facts(module)
        for func in module.ops:
            if not isinstance(func, FuncOp):
                continue
            for op in func.walk():
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

    def prepare_module(self, ml: ModuleLowering) -> None:
        """Kernels, and the helpers that read the state, get it as parameter 0."""
        from llvmlite import ir

        for name, func in ml.funcs.items():
            if func.is_kernel or name in ml.facts.state:
                ml.hidden[name] = (ir.PointerType(),)

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        if func.is_kernel:
            fn.linkage = "internal"
            fn.attributes.add("alwaysinline")
        if fn.args and func.sym_name.data in ml.hidden:
            fn.args[0].name = "state"

    def _state_field(self, fl: FunctionLowering, offset: int, ty: ir.Type) -> ir.Value:
        from llvmlite import ir

        state = fl.hidden_args[0]
        address = fl.builder.gep(
            state,
            [ir.Constant(ir.IntType(64), offset)],
            inbounds=True,
            source_etype=ir.IntType(8),
        )
        return fl.builder.load(address, typ=ty, align=8)

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        return self._state_field(fl, STATE_OFFSETS[kind] + 8 * dim, fl.ml.index_type)

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        from llvmlite import ir

        x = self.index(fl, "thread_id", 0)
        return fl.builder.urem(x, ir.Constant(x.type, WARP))

    def barrier(self, fl: FunctionLowering) -> None:
        from llvmlite import ir

        ptr = ir.PointerType()
        wait = self._state_field(fl, STATE_BARRIER, ptr)
        arg = self._state_field(fl, STATE_BARRIER_ARG, ptr)
        call = fl.builder.call(
            _callee(wait, ir.FunctionType(ir.VoidType(), [ptr])), [arg]
        )
        call.attributes.add("convergent")

    def shared_alloc(self, fl: FunctionLowering, op: SharedAllocOp) -> ir.Value:
        """A fixed offset into the block's shared memory (the module's layout)."""
        from llvmlite import ir

        base = self._state_field(fl, STATE_SHARED, ir.PointerType())
        offset = ir.Constant(ir.IntType(64), fl.ml.facts.shared_offset[op])
        return fl.builder.gep(base, [offset], inbounds=True, source_etype=ir.IntType(8))

    def finish_module(self, ml: ModuleLowering) -> None:
        for name, func in ml.funcs.items():
            if func.is_kernel and not func.is_declaration:
                launch_entry(ml, func, ml.functions[name], name in ml.facts.barrier)

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


def _callee(pointer: ir.Value, fnty: ir.FunctionType) -> ir.Value:
    from gpuc.lowering.gpuc import IndirectCallee

    return IndirectCallee(pointer, fnty)


def launch_entry(
    ml: ModuleLowering, func: FuncOp, kernel: ir.Function, barriers: bool
) -> None:
    """`void __gpuc_launch_<k>(ptr %launch, A...)`: fill a state and run the kernel
    for the launch's block range (every thread, or thread `thread` only)."""
    from llvmlite import ir

    i64, i8, ptr = ir.IntType(64), ir.IntType(8), ir.PointerType()
    params = kernel.function_type.args[1:]
    fn = ir.Function(
        ml.llvm,
        ir.FunctionType(ir.VoidType(), [ptr, *params]),
        ENTRY_PREFIX + func.sym_name.data,
    )
    launch, *args = fn.args
    launch.name = "launch"
    for arg, param in zip(args, kernel.args[1:], strict=True):
        arg.name = param.name
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def field(base: ir.Value, offset: int) -> ir.Value:
        return b.gep(base, [ir.Constant(i64, offset)], inbounds=True, source_etype=i8)

    def read(offset: int, ty: ir.Type = i64) -> ir.Value:
        return b.load(field(launch, offset), typ=ty, align=8)

    state = b.alloca(ir.ArrayType(i8, STATE_BYTES), name="state")
    state.align = 8
    state.type = ptr  # an opaque pointer, like every pointer gpuc builds

    def write(offset: int, value: ir.Value) -> None:
        b.store(value, field(state, offset), align=8)

    grid = [read(LAUNCH_GRID + 8 * d) for d in range(3)]
    block = [read(LAUNCH_BLOCK + 8 * d) for d in range(3)]
    for d in range(3):
        write(STATE_OFFSETS["grid_dim"] + 8 * d, grid[d])
        write(STATE_OFFSETS["block_dim"] + 8 * d, block[d])
    write(STATE_SHARED, read(LAUNCH_SHARED, ptr))
    barrier, barrier_arg = read(LAUNCH_BARRIER, ptr), read(LAUNCH_BARRIER_ARG, ptr)
    write(STATE_BARRIER, barrier)
    write(STATE_BARRIER_ARG, barrier_arg)
    if barriers:
        thread = read(LAUNCH_THREAD)
        x, rest = b.urem(thread, block[0]), b.udiv(thread, block[0])
        for d, value in enumerate((x, b.urem(rest, block[1]), b.udiv(rest, block[1]))):
            write(STATE_OFFSETS["thread_id"] + 8 * d, value)

    def body(linear_block: ir.Value) -> None:
        x, rest = b.urem(linear_block, grid[0]), b.udiv(linear_block, grid[0])
        block_id = (x, b.urem(rest, grid[1]), b.udiv(rest, grid[1]))
        for d, value in enumerate(block_id):
            write(STATE_OFFSETS["block_id"] + 8 * d, value)
        if barriers:
            b.call(kernel, [state, *args])
            wait = b.call(
                _callee(barrier, ir.FunctionType(ir.VoidType(), [ptr])), [barrier_arg]
            )
            wait.attributes.add("convergent")
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

        def threads(dim: int) -> None:
            def run(t: ir.Value) -> None:
                write(STATE_OFFSETS["thread_id"] + 8 * dim, t)
                thread[dim] = t
                if dim > 0:
                    threads(dim - 1)
                    return
                for guard, bound in zip(guards, bounds, strict=True):
                    gid = b.add(
                        first[guard.dim], thread[guard.dim], flags=["nuw", "nsw"]
                    )
                    cmp = b.icmp_signed if guard.signed else b.icmp_unsigned
                    assume(ml, b, cmp("<", gid, bound))
                b.call(kernel, [state, *args])

            counted_loop(
                b, ir.Constant(i64, 0), count[dim], run, f"thread.{'xyz'[dim]}"
            )

        threads(2)

    counted_loop(b, read(LAUNCH_BEGIN), read(LAUNCH_END), body, "block")
    b.ret_void()


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


def counted_loop(
    b: ir.IRBuilder, begin: ir.Value, end: ir.Value, body: object, name: str
) -> None:
    """`for (i = begin; i < end; ++i) body(i)`, leaving the builder after it."""
    from llvmlite import ir

    before = b.block
    head = b.append_basic_block(f"{name}.head")
    loop = b.append_basic_block(f"{name}.body")
    done = b.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(begin.type, name=name)
    i.add_incoming(begin, before)
    b.cbranch(b.icmp_unsigned("<", i, end), loop, done)
    b.position_at_end(loop)
    body(i)  # type: ignore[operator]
    i.add_incoming(b.add(i, ir.Constant(i.type, 1), flags=["nuw"]), b.block)
    b.branch(head)
    b.position_at_end(done)
