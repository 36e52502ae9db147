"""Faults on the native target (docs/runtime.md, "Checked mode"): a failing
`cf.assert`, and in checked mode a load, store or atomic outside the buffer
its pointer came from, stop the launch with a report instead of a trap.

The faulting thread calls `__gpuc_fault`, which writes the launch record's
error fields (docs/native-abi.md) and `longjmp`s back into the kernel's launch
entry, which `setjmp`ed before running its blocks: no function between the
fault and the entry needs a check after each call, and a module without
faults is translated as if this file did not exist.

A pointer's buffer is found statically (`pointer_root`): a kernel parameter
(its extent comes from the launch, in the record's `extents`), a shared
allocation (its static size), through `gpuc.offset`, address-space casts and
the block arguments and results of scf ops whose every incoming pointer has
the same root. A pointer of unknown root (a helper's parameter, a pointer
loaded from memory or returned by a call) is not checked.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llvmlite import ir
from xdsl.dialects import cf, scf
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from gpuc.diagnostics import nearest_source_loc
from gpuc.dialects.analysis import alloc_layout, element_bytes
from gpuc.dialects.call_graph import ASSERT, call_graph
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    OffsetOp,
    SharedAllocOp,
    ptr_type_of,
)
from gpuc.targets.native.abi import (
    FAULT_BOUNDS,
    FAULT_THREAD,
    JMP_BUF_BYTES,
    LAUNCH,
    STATE,
)
from gpuc.targets.native.common import WorkGroupFunction, error_message

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.lowering.context import FunctionLowering, ModuleLowering

I64, I32, I8, PTR = ir.IntType(64), ir.IntType(32), ir.IntType(8), ir.PointerType()
FAULT_FUNCTION = "__gpuc_fault"

Root = tuple[str, Operation, int]
"""("param", the kernel, the parameter's index), ("shared", the allocation,
0), or ("helper", a helper, its parameter's index): a buffer looked up at run
time (`find_buffer`)."""


@dataclass
class FaultPlan:
    """What a module's translation reports: whether it reports faults at all,
    whether it is checked, and the helpers that get the state to report."""

    checked: bool
    reports: bool
    helpers: set[str] = field(default_factory=set)


_plans: weakref.WeakKeyDictionary[ModuleLowering, FaultPlan] = (
    weakref.WeakKeyDictionary()
)
_bounds: weakref.WeakKeyDictionary[
    FunctionLowering, dict[tuple[str, int, int], tuple[ir.Value, ir.Value]]
] = weakref.WeakKeyDictionary()


def is_checked(module: ModuleOp) -> bool:
    """Whether the module is compiled in checked mode: its `#gpuc.target`'s
    `checked` setting."""
    from gpuc.targets import configured_settings

    return configured_settings(module).checked


def fault_plan(ml: ModuleLowering) -> FaultPlan:
    """The module's plan (made once): the helpers that contain a `cf.assert`
    and every caller of one get the state, unless one of them has its address
    taken (then a failing assert there still traps: an indirect call passes
    no state)."""
    found = _plans.get(ml)
    if found is not None:
        return found
    graph = call_graph(ml.module)
    funcs = graph.funcs
    asserting = graph.holding([ASSERT])
    callers = graph.callers
    address_taken = graph.address_taken
    has_state = set(ml.hidden)
    checked = is_checked(ml.module)
    # In checked mode every helper may look its pointers' buffers up.
    faulting = (
        {n for n, f in funcs.items() if not f.is_declaration} if checked else asserting
    )
    helpers = set(faulting)
    work = list(faulting)
    while work:
        for caller in callers.get(work.pop(), ()):
            if caller not in helpers:
                helpers.add(caller)
                work.append(caller)
    helpers -= has_state
    changed = True
    while changed:  # keep only helpers all of whose callers can pass the state
        changed = False
        for name in sorted(helpers):
            if name in address_taken or not callers.get(name, set()) <= (
                helpers | has_state
            ):
                helpers.discard(name)
                changed = True
    plan = FaultPlan(checked, checked or bool(asserting), helpers)
    _plans[ml] = plan
    return plan


def fault_function(ml: ModuleLowering) -> ir.Function:
    """`void __gpuc_fault(ptr state, ptr message, i64 kind, i64 index, i64
    extent, i64 tx, i64 ty, i64 tz)`: write the launch record's error fields,
    free the block's context storage and jump back to the launch entry."""
    found = ml.llvm.globals.get(FAULT_FUNCTION)
    if isinstance(found, ir.Function):
        return found
    fn = ir.Function(
        ml.llvm, ir.FunctionType(ir.VoidType(), [PTR, PTR, *[I64] * 6]), FAULT_FUNCTION
    )
    fn.linkage = "internal"
    for attr in ("noreturn", "cold", "noinline", "nounwind"):
        fn.attributes.add(attr)
    state, message, kind, index, extent, *thread = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def at(base: ir.Value, offset: int) -> ir.Value:
        return b.gep(base, [ir.Constant(I64, offset)], inbounds=True, source_etype=I8)

    def state_word(name: str, dim: int = 0, ty: ir.Type = I64) -> ir.Value:
        return b.load(at(state, STATE.offset(name, dim)), typ=ty, align=8)

    launch = state_word("launch", ty=PTR)

    def put(name: str, value: ir.Value, dim: int = 0) -> None:
        b.store(value, at(launch, LAUNCH.offset(name, dim)), align=8)

    gx, gy = state_word("grid_dim", 0), state_word("grid_dim", 1)
    bx, by, bz = (state_word("block_id", d) for d in range(3))
    linear = b.add(bx, b.mul(gx, b.add(by, b.mul(gy, bz))))
    put("error", message)
    put("error_block", linear)
    put("error_kind", kind)
    put("error_index", index)
    put("error_extent", extent)
    for dim, value in enumerate(thread):
        put("error_thread", value, dim)
    free = ml.intrinsic("free", ir.VoidType(), [PTR])
    b.call(free, [state_word("context", ty=PTR)])
    b.store(ir.Constant(PTR, None), at(state, STATE.offset("context")), align=8)
    longjmp = ml.intrinsic("longjmp", ir.VoidType(), [PTR, I32], ("noreturn",))
    b.call(longjmp, [b.load(at(launch, LAUNCH.offset("jump")), typ=PTR), I32(1)])
    b.unreachable()
    return fn


def guarded_entry(
    ml: ModuleLowering, symbol: str, run: ir.Function, params: list[ir.Type]
) -> None:
    """`symbol(ptr %launch, A...)`: set the record's jump point, then call the
    launch entry's body `run`; a fault returns here, leaving its report in
    the record."""
    fn = ir.Function(ml.llvm, ir.FunctionType(ir.VoidType(), [PTR, *params]), symbol)
    launch, *args = fn.args
    launch.name = "launch"
    for arg, inner in zip(args, run.args[1:], strict=True):
        arg.name = inner.name
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    buffer = b.alloca(ir.ArrayType(I8, JMP_BUF_BYTES), name="jump")
    buffer.align = 16
    buffer.type = PTR
    jump = b.gep(
        launch,
        [ir.Constant(I64, LAUNCH.offset("jump"))],
        inbounds=True,
        source_etype=I8,
    )
    b.store(buffer, jump, align=8)
    setjmp = ml.intrinsic("_setjmp", I32, [PTR], ("returns_twice",))
    again = b.icmp_unsigned("!=", b.call(setjmp, [buffer]), I32(0))
    with b.if_then(b.not_(again)):
        b.call(run, [launch, *args])
    b.ret_void()


def report(
    fl: FunctionLowering,
    message: str,
    kind: int,
    index: ir.Value | None = None,
    extent: ir.Value | None = None,
) -> None:
    """Call the fault function at the builder's position (which then holds an
    `unreachable` block without predecessors, for an `if_then` to close)."""
    b = fl.builder
    text = error_message(fl.ml, message)
    zero = ir.Constant(I64, 0)
    b.call(
        fault_function(fl.ml),
        [
            fl.hidden_args[0],
            text,
            ir.Constant(I64, kind),
            index or zero,
            extent or zero,
            *thread_index(fl),
        ],
    )
    b.unreachable()
    b.position_at_end(b.append_basic_block("faulted"))


def thread_index(fl: FunctionLowering) -> list[ir.Value]:
    """The faulting thread: a work-group function's loop variables ((0, 0, 0)
    for an op that runs once for the block, as the first thread), else the
    state's."""
    if isinstance(fl, WorkGroupFunction):
        if fl.thread is None:
            return [ir.Constant(I64, 0)] * 3
        return list(fl.thread)
    return [fl.target.index(fl, "thread_id", d) for d in range(3)]


def where(op: Operation) -> str:
    loc, _ = nearest_source_loc(op)
    return f"{loc}: " if loc is not None else ""


def assert_failed(fl: FunctionLowering, op: cf.AssertOp) -> bool:
    """Report a failing `op` at the builder's position; False if this
    function has no state to report through (then the caller traps)."""
    if not fl.hidden_args or not fault_plan(fl.ml).reports:
        return False
    report(fl, f"{where(op)}assertion failed: {op.msg.data}", FAULT_THREAD)
    return True


def pointer_root(ptr: SSAValue) -> Root | None:
    """The buffer `ptr` points into, as far as it is known statically."""
    root = _root(ptr, frozenset())
    return None if root == CYCLE else root  # type: ignore[return-value]


CYCLE = "cycle"
"""`_root` of a value that depends only on itself (around a loop)."""


def _root(ptr: SSAValue, seen: frozenset[SSAValue]) -> Root | str | None:
    if ptr in seen:
        return CYCLE
    seen = seen | {ptr}
    if isinstance(ptr, OpResult):
        op = ptr.op
        if isinstance(op, SharedAllocOp):
            return ("shared", op, 0)
        if isinstance(op, OffsetOp):
            return _root(op.ptr, seen)
        if isinstance(op, AddrSpaceCastOp):
            return _root(op.source, seen)
        if isinstance(op, scf.ForOp):
            return _root(op.body.block.args[ptr.index + 1], seen)
        if isinstance(op, scf.IfOp | scf.IndexSwitchOp):
            yields = [r.block.last_op for r in op.regions if r.blocks]
            return _same_root(
                [y.operands[ptr.index] for y in yields if y is not None], seen
            )
        if isinstance(op, scf.WhileOp):
            condition = op.before_region.block.last_op
            assert condition is not None
            return _root(condition.operands[ptr.index + 1], seen)
        return None
    assert isinstance(ptr, BlockArgument)
    block = ptr.block
    parent = block.parent_op()
    if isinstance(parent, FuncOp):
        if block is not parent.body.blocks.first:
            return None
        return ("param" if parent.is_kernel else "helper", parent, ptr.index)
    if isinstance(parent, scf.ForOp) and ptr.index > 0:
        i = ptr.index - 1
        yielded = parent.body.block.last_op
        assert yielded is not None
        return _same_root([parent.iter_args[i], yielded.operands[i]], seen)
    if isinstance(parent, scf.WhileOp):
        if block is parent.before_region.block:
            yielded = parent.after_region.block.last_op
            assert yielded is not None
            return _same_root(
                [parent.arguments[ptr.index], yielded.operands[ptr.index]], seen
            )
        condition = parent.before_region.block.last_op
        assert condition is not None
        return _root(condition.operands[ptr.index + 1], seen)
    return None


def _same_root(values: list[SSAValue], seen: frozenset[SSAValue]) -> Root | str | None:
    """The one root of all `values` (those that only come back around the
    loop being followed do not count), or None."""
    roots = set()
    for value in values:
        root = _root(value, seen)
        if root is None:
            return None
        if root != CYCLE:
            roots.add(root)
    if not roots:
        return CYCLE
    return roots.pop() if len(roots) == 1 else None


def check_access(
    fl: FunctionLowering, op: Operation, ptr: SSAValue, address: ir.Value
) -> None:
    """In checked mode, stop with a report unless the element at `address`
    lies inside the buffer `ptr` came from (if that is known)."""
    if not fl.hidden_args or not fault_plan(fl.ml).checked:
        return
    root = pointer_root(ptr)
    if root is None or (root[0] != "shared" and root[1] is not fl.func):
        return  # unknown, or a parameter of a helper inlined here
    b = fl.builder
    if root[0] == "helper":
        start, size = find_buffer(fl, fl.fn.args[len(fl.hidden_args) + root[2]])
        with b.if_then(b.icmp_unsigned("!=", size, ir.Constant(I64, 0))):
            _check(fl, op, ptr, address, start, size, root)
        return
    base, size = _buffer(fl, root)
    _check(fl, op, ptr, address, base, size, root)


def _check(
    fl: FunctionLowering,
    op: Operation,
    ptr: SSAValue,
    address: ir.Value,
    base: ir.Value,
    size: ir.Value,
    root: Root,
) -> None:
    b = fl.builder
    nbytes = ir.Constant(I64, element_bytes(ptr_type_of(ptr).element))
    offset = b.sub(b.ptrtoint(address, I64), b.ptrtoint(base, I64))
    inside = b.and_(
        b.icmp_unsigned("<", offset, size),
        b.icmp_unsigned("<=", nbytes, b.sub(size, offset)),
    )
    with b.if_then(b.not_(inside), likely=False):
        report(
            fl,
            f"{where(op)}'{op.name}' outside {_describe(fl, root)}",
            FAULT_BOUNDS,
            b.sdiv(offset, nbytes),
            b.udiv(size, nbytes),
        )


def _describe(fl: FunctionLowering, root: Root) -> str:
    kind, what, index = root
    if kind != "shared":
        arg = fl.func.body.blocks[0].args[index]
        name = f"%{arg.name_hint} " if arg.name_hint else ""
        param = f"parameter {name}(argument {index}) of @{fl.func.sym_name.data}"
        return param if kind == "param" else f"the buffer {param} points into"
    loc = where(what).removesuffix(": ")
    return f"the shared allocation{' at ' + loc if loc else ''}"


def _buffer(fl: FunctionLowering, root: Root) -> tuple[ir.Value, ir.Value]:
    """The start and byte size of `root`'s buffer, computed once per function
    in its entry block (so that every later use is dominated)."""
    known = _bounds.setdefault(fl, {})
    kind, what, index = root
    key = (kind, id(what), index)
    if key in known:
        return known[key]
    entry = fl.fn.entry_basic_block
    if isinstance(fl, WorkGroupFunction):
        b = fl.prologue  # its entry block, still being built
    elif entry.is_terminated:
        b = ir.IRBuilder(entry)
        b.position_before(entry.terminator)
    else:
        assert fl.builder.block is entry
        b = fl.builder  # still translating the entry block, here
    state = fl.hidden_args[0]

    invariant = fl.ml.llvm.add_metadata([])

    def fixed(load: ir.LoadInstr) -> ir.LoadInstr:
        """A load from the launch record's extents, which the executor wrote
        before the launch and nothing changes during it (so that LLVM may
        hoist it out of the thread loops)."""
        load.set_metadata("invariant.load", invariant)
        return load

    def state_word(name: str, ty: ir.Type) -> ir.Value:
        at = b.gep(
            state,
            [ir.Constant(I64, STATE.offset(name))],
            inbounds=True,
            source_etype=I8,
        )
        return b.load(at, typ=ty, align=8)

    if kind == "param":
        base = fl.fn.args[len(fl.hidden_args) + index]
        launch = state_word("launch", PTR)
        extents_at = b.gep(
            launch,
            [ir.Constant(I64, LAUNCH.offset("extents"))],
            inbounds=True,
            source_etype=I8,
        )
        extents = fixed(b.load(extents_at, typ=PTR, align=8))
        size = fixed(
            b.load(
                b.gep(
                    extents, [ir.Constant(I64, index)], inbounds=True, source_etype=I64
                ),
                typ=I64,
                align=8,
            )
        )
    else:
        assert isinstance(what, SharedAllocOp)
        shared = state_word("shared", PTR)
        offset = ir.Constant(I64, fl.ml.facts.shared_offset[what])
        base = b.gep(shared, [offset], inbounds=True, source_etype=I8)
        size = ir.Constant(I64, alloc_layout(what)[0])
    known[key] = (base, size)
    return base, size


def find_buffer(fl: FunctionLowering, pointer: ir.Value) -> tuple[ir.Value, ir.Value]:
    """The start and byte size of the launch's buffer that `pointer` points
    into (or just past), from the record's `buffers`; size 0 if none does."""
    b = fl.builder
    result = b.call(find_buffer_function(fl.ml), [fl.hidden_args[0], pointer])
    return b.extract_value(result, 0), b.extract_value(result, 1)


def find_buffer_function(ml: ModuleLowering) -> ir.Function:
    """`{ptr, i64} __gpuc_find_buffer(ptr state, ptr p)`: a scan of the
    launch record's `buffers` ((start, bytes) pairs, `buffer_count` of
    them) for the one that holds `p`."""
    name = "__gpuc_find_buffer"
    found = ml.llvm.globals.get(name)
    if isinstance(found, ir.Function):
        return found
    pair = ir.LiteralStructType([PTR, I64])
    fn = ir.Function(ml.llvm, ir.FunctionType(pair, [PTR, PTR]), name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    state, pointer = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def word(base: ir.Value, offset: int, ty: ir.Type) -> ir.Value:
        at = b.gep(base, [ir.Constant(I64, offset)], inbounds=True, source_etype=I8)
        return b.load(at, typ=ty, align=8)

    launch = word(state, STATE.offset("launch"), PTR)
    table = word(launch, LAUNCH.offset("buffers"), PTR)
    count = word(launch, LAUNCH.offset("buffer_count"), I64)
    p = b.ptrtoint(pointer, I64)
    entry = b.block
    head = b.append_basic_block("scan")
    body = b.append_basic_block("entry.test")
    hit = b.append_basic_block("found")
    miss = b.append_basic_block("none")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64, name="i")
    i.add_incoming(ir.Constant(I64, 0), entry)
    b.cbranch(b.icmp_unsigned("<", i, count), body, miss)
    b.position_at_end(body)
    row = b.gep(table, [b.mul(i, ir.Constant(I64, 2))], source_etype=I64)
    start = b.load(row, typ=I64, align=8)
    size = b.load(b.gep(row, [ir.Constant(I64, 1)], source_etype=I64), typ=I64)
    offset = b.sub(p, start)
    inside = b.and_(
        b.icmp_unsigned(">=", p, start), b.icmp_unsigned("<=", offset, size)
    )
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), body)
    b.cbranch(inside, hit, head)
    b.position_at_end(hit)
    value = b.insert_value(ir.Constant(pair, None), b.inttoptr(start, PTR), 0)
    b.ret(b.insert_value(value, size, 1))
    b.position_at_end(miss)
    b.ret(ir.Constant(pair, None))
    return fn
