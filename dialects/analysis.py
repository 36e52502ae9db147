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
from gpuc.dialects.functions import CallIndirectOp, CallOp, FuncAddrOp, FuncOp
from gpuc.dialects.index import BarrierOp
from gpuc.dialects.memory import SharedAllocOp
from gpuc.dialects.subgroup import COLLECTIVE_OPS
from gpuc.dialects.traits import ReadsKernelState

_CALL, _ADDRESS, _INDIRECT_CALL, _STATE = 1, 2, 3, 4
_KIND: dict[type[Operation], int] = {}
"""Op class -> what the analysis sees in it (0: nothing; most ops): one dict
hit per op is much cheaper than a chain of isinstance checks (xDSL op classes
are ABCs)."""


def _kind(cls: type[Operation]) -> int:
    found = _KIND.get(cls)
    if found is None:
        if issubclass(cls, CallOp):
            found = _CALL
        elif issubclass(cls, FuncAddrOp):
            found = _ADDRESS
        elif issubclass(cls, CallIndirectOp):
            found = _INDIRECT_CALL
        else:
            found = _STATE if cls.has_trait(ReadsKernelState) else 0
        _KIND[cls] = found
    return found


INDIRECT = "<indirect>"
"""Call-graph node standing for every function whose address is taken."""


@dataclass(frozen=True)
class KernelFacts:
    uses_barrier: bool
    """The kernel reaches a `gpuc.barrier` or a subgroup collective, maybe
    through helpers."""
    static_shared_bytes: int


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


def _reaching(own: set[str], callees: dict[str, set[str]]) -> set[str]:
    """Functions from which a function in `own` is reachable (including `own`)."""
    callers: dict[str, set[str]] = {}
    for caller, targets in callees.items():
        for callee in targets:
            callers.setdefault(callee, set()).add(caller)
    result = set(own)
    work = list(own)
    while work:
        for caller in callers.get(work.pop(), ()):
            if caller not in result:
                result.add(caller)
                work.append(caller)
    return result


def _reachable(start: str, callees: dict[str, set[str]]) -> list[str]:
    seen = {start}
    order = [start]
    for name in order:
        for callee in sorted(callees.get(name, ())):
            if callee not in seen:
                seen.add(callee)
                order.append(callee)
    return order


def _align(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align


def module_facts(module: ModuleOp) -> ModuleFacts:
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    callees: dict[str, set[str]] = {name: set() for name in funcs}
    callees[INDIRECT] = set()
    barrier_own: set[str] = set()
    state_own: set[str] = set()
    allocs: dict[str, list[SharedAllocOp]] = {name: [] for name in funcs}
    for name, func in funcs.items():
        for op in func.walk():
            kind = _kind(type(op))
            if not kind:
                continue
            if kind == _CALL:
                assert isinstance(op, CallOp)
                callees[name].add(op.callee.root_reference.data)
            elif kind == _ADDRESS:
                assert isinstance(op, FuncAddrOp)
                callees[INDIRECT].add(op.callee.root_reference.data)
            elif kind == _INDIRECT_CALL:
                callees[name].add(INDIRECT)
            else:
                state_own.add(name)
                if isinstance(op, (BarrierOp, *COLLECTIVE_OPS)):
                    barrier_own.add(name)
                elif isinstance(op, SharedAllocOp):
                    allocs[name].append(op)
    offsets: dict[SharedAllocOp, int] = {}
    helper_end = 0
    for name, func in funcs.items():
        if not func.is_kernel:
            for op in allocs[name]:
                size, align = alloc_layout(op)
                offsets[op] = _align(helper_end, align)
                helper_end = offsets[op] + size
    kernel_bytes: dict[str, int] = {}
    for name, func in funcs.items():
        if not func.is_kernel:
            continue
        end = 0
        for reached in _reachable(name, callees)[1:]:
            for op in allocs.get(reached, ()):
                end = max(end, offsets[op] + alloc_layout(op)[0])
        for op in allocs[name]:
            size, align = alloc_layout(op)
            offsets[op] = _align(end, align)
            end = offsets[op] + size
        kernel_bytes[name] = end
    return ModuleFacts(
        funcs,
        callees,
        _reaching(barrier_own, callees),
        _reaching(state_own, callees),
        offsets,
        kernel_bytes,
    )


def kernel_facts(
    module: ModuleOp, kernels: Iterable[str] | None = None
) -> dict[str, KernelFacts]:
    """Per kernel: whether it uses barriers and its static shared size."""
    facts = module_facts(module)
    names = kernels if kernels is not None else facts.kernel_shared_bytes
    return {
        name: KernelFacts(name in facts.barrier, facts.kernel_shared_bytes[name])
        for name in names
    }


def call_cycle(facts: ModuleFacts) -> list[str] | None:
    """A cycle of direct calls (recursion), if the module has one."""
    color: dict[str, int] = {}
    for root in sorted(facts.funcs):
        if color.get(root):
            continue
        path: list[str] = []
        stack: list[tuple[str, list[str]]] = [
            (root, sorted(facts.callees.get(root, ())))
        ]
        color[root] = 1
        path.append(root)
        while stack:
            name, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                color[name] = 2
                continue
            nxt = pending.pop(0)
            if nxt == INDIRECT or nxt not in facts.funcs:
                continue
            if color.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if not color.get(nxt):
                color[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(facts.callees.get(nxt, ()))))
    return None
