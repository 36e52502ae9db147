"""Facts about a module's functions, computed on the call graph at the dialect
level: which functions reach a barrier or read the kernel state (transitively),
and where each shared allocation lives. Kernel finishing records them, the
native target threads its state by them, and the executors read them from the
compile result, so nobody parses LLVM IR to find them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation

from gpuc.dialects.attrs import FuncPtrType, PtrType
from gpuc.dialects.call_graph import ASSERT, PRINTF, CallGraph, call_graph
from gpuc.dialects.call_graph import INDIRECT as INDIRECT
from gpuc.dialects.functions import FuncOp
from gpuc.dialects.index import BarrierOp
from gpuc.dialects.matrix import MATRIX_OPS
from gpuc.dialects.memory import SharedAllocOp
from gpuc.dialects.subgroup import COLLECTIVE_OPS


@dataclass(frozen=True)
class KernelFacts:
    uses_barrier: bool
    """The kernel reaches a `gpuc.barrier` or a subgroup collective, maybe
    through helpers."""
    static_shared_bytes: int
    asserts: tuple[int, ...] = ()
    """The ids (gpuc/asserts.py) of the `cf.assert`s the kernel can report
    through an error record: those it holds and those of the functions it
    calls directly that take the record too (`CallGraph.reaching_directly`;
    an address-taken function's asserts trap). Non-empty: it takes the error
    record on the targets that report asserts through one."""
    prints: bool = False
    """The kernel reaches a `gpuc.printf` or a `cf.assert` (whose failing
    threads print), maybe through helpers or an indirect call."""
    fragments: bool = False
    """The kernel uses warp matrix fragments, itself or by a direct call."""


@dataclass
class ModuleFacts:
    funcs: dict[str, FuncOp]
    callees: dict[str, set[str]]
    barrier: set[str]
    """Functions that reach a barrier or a subgroup collective (every thread
    must reach those together: the native target splits kernels at them)."""
    state: set[str]
    """Functions that read the kernel state (ops with the ReadsKernelState
    trait), maybe through callees."""
    shared_offset: dict[SharedAllocOp, int]
    kernel_shared_bytes: dict[str, int]


def element_bytes(element: Attribute) -> int:
    """Size (= alignment) in bytes of a value of `element` in memory."""
    if isinstance(element, IntegerType):
        size = 1
        while size * 8 < element.width.data:
            size *= 2
        return size
    if isinstance(element, Float16Type | BFloat16Type):
        return 2
    if isinstance(element, Float32Type):
        return 4
    if isinstance(element, Float64Type | IndexType | PtrType | FuncPtrType):
        return 8
    if isinstance(element, VectorType) and element.get_num_dims() == 1:
        # LLVM's <N x T>: N elements, aligned to its size (N a power of two).
        (length,) = element.get_shape()
        scalar = element.get_element_type()
        if length & (length - 1) == 0 and not isinstance(scalar, VectorType):
            if not (isinstance(scalar, IntegerType) and scalar.width.data % 8):
                return length * element_bytes(scalar)
    raise ValueError(f"no memory size known for {element}")


def alloc_layout(op: SharedAllocOp) -> tuple[int, int]:
    """(size, alignment) in bytes of a shared allocation."""
    ptr = op.result.type
    assert isinstance(ptr, PtrType)
    elem = element_bytes(ptr.element)
    align = max(elem, op.alignment.value.data if op.alignment is not None else 1)
    return op.count.value.data * elem, align


def _align(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align


_FACTS = "_gpuc_module_facts"
"""The Python attribute of a call graph that holds its facts: kept on the
graph, not in a weak-keyed table, whose value (facts referring to the
module's functions, and through them to the module and its graph) would
keep its key alive for good."""


def module_facts(module: ModuleOp) -> ModuleFacts:
    """The facts of `module` in its current state, from its call graph (and
    computed once per graph)."""
    graph = call_graph(module)
    found = graph.__dict__.get(_FACTS)
    if not isinstance(found, ModuleFacts):
        found = graph.__dict__[_FACTS] = _compute_facts(graph)
    return found


def _compute_facts(graph: CallGraph) -> ModuleFacts:
    funcs = graph.funcs
    allocs = graph.shared_allocs
    offsets: dict[SharedAllocOp, int] = {}
    helper_end = 0
    for name, func in funcs.items():
        if not func.is_kernel:
            for op in allocs.get(name, ()):
                size, align = alloc_layout(op)
                offsets[op] = _align(helper_end, align)
                helper_end = offsets[op] + size
    kernel_bytes: dict[str, int] = {}
    for name, func in funcs.items():
        if not func.is_kernel:
            continue
        end = 0
        reached = graph.reachable_from(name)[1:] if graph.shared_allocs else []
        for callee in reached:
            for op in allocs.get(callee, ()):
                end = max(end, offsets[op] + alloc_layout(op)[0])
        for op in allocs.get(name, ()):
            size, align = alloc_layout(op)
            offsets[op] = _align(end, align)
            end = offsets[op] + size
        kernel_bytes[name] = end
    barrier_names = {BarrierOp.name, *(op.name for op in COLLECTIVE_OPS)}
    return ModuleFacts(
        funcs,
        graph.callees,
        graph.reaching(graph.holding(barrier_names)),
        graph.reaching(graph.state_own),
        offsets,
        kernel_bytes,
    )


def kernel_facts(
    module: ModuleOp, kernels: Iterable[str] | None = None
) -> dict[str, KernelFacts]:
    """Per kernel: whether it uses barriers, its static shared size, the
    asserts it reports through an error record, whether it prints and uses
    matrix fragments, all from the one call graph."""
    facts = module_facts(module)
    graph = call_graph(module)
    asserting = (
        graph.reaching_directly(graph.holding([ASSERT]))
        if ASSERT in graph.op_names
        else set()
    )
    held = assert_ids_by_function(graph) if asserting else {}
    printing = (
        graph.reaching(graph.holding([ASSERT, PRINTF]))
        if not graph.op_names.isdisjoint([ASSERT, PRINTF])
        else set()
    )
    matrix = [op.name for op in MATRIX_OPS]
    fragments = (
        graph.reaching_directly(graph.holding(matrix))
        if not graph.op_names.isdisjoint(matrix)
        else set()
    )
    names = kernels if kernels is not None else facts.kernel_shared_bytes
    return {
        name: KernelFacts(
            name in facts.barrier,
            facts.kernel_shared_bytes[name],
            reported_asserts(graph, name, asserting, held) if name in asserting else (),
            name in printing,
            name in fragments,
        )
        for name in names
    }


def reported_asserts(
    graph: CallGraph, kernel: str, asserting: set[str], held: dict[str, list[int]]
) -> tuple[int, ...]:
    """The ids of the asserts `kernel` reports through its error record:
    those held (`held`: function -> its assert ids) by it and by the
    functions of `asserting` (the ones passing the record on) it calls
    through them."""
    reached = {kernel}
    work = [kernel]
    while work:
        for callee in graph.callees.get(work.pop(), ()):
            if callee in asserting and callee not in reached:
                reached.add(callee)
                work.append(callee)
    return tuple(sorted(i for name in reached for i in held.get(name, ())))


def assert_ids_by_function(graph: CallGraph) -> dict[str, list[int]]:
    """Top-level function -> the ids (gpuc/asserts.py: module order, from 1)
    of the asserts it holds."""
    held: dict[str, list[int]] = {}
    for i, op in enumerate(graph.ops_named(ASSERT), 1):
        name = top_level_function(op, graph.module)
        if name is not None:
            held.setdefault(name, []).append(i)
    return held


def top_level_function(op: Operation, module: ModuleOp) -> str | None:
    """The name of the module's function holding `op`, if one does."""
    current: Operation | None = op
    while current is not None:
        parent = current.parent_op()
        if parent is module:
            return current.sym_name.data if isinstance(current, FuncOp) else None
        current = parent
    return None


def call_cycle(module: ModuleOp) -> list[str] | None:
    """A cycle of direct calls (recursion), if the module has one."""
    return call_graph(module).cycle()
