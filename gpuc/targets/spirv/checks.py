"""What SPIR-V for OpenCL cannot say, rejected before LLVM's SPIR-V back-end
sees it (the back-end ends the process, `LLVM ERROR`, on IR it cannot
express): device-side launches, function pointers, recursion, casts of
constant memory, atomics on types OpenCL has none for, integer widths it
lacks, kernel pointer parameters OpenCL forbids, and printing helpers that
cannot be inlined into their kernel."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation

from gpuc.asserts import PRINTF
from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace, InlineHint, PtrType
from gpuc.dialects.call_graph import call_graph
from gpuc.dialects.functions import (
    CallIndirectOp,
    FuncAddrOp,
    FuncOp,
    LaunchOp,
)
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    ptr_type_of,
)
from gpuc.dialects.walk import preorder

ATOMIC_TYPES = (
    IntegerType(32),
    IntegerType(64),
    IndexType(),
    Float32Type(),
    Float64Type(),
)
INTEGER_WIDTHS = (1, 8, 16, 32, 64)


def check_module(module: ModuleOp) -> None:
    """Raise an OpError for the first thing in `module` that SPIR-V for
    OpenCL cannot express."""
    from gpuc.dialects.analysis import call_cycle

    widths: dict[int, Attribute] = {}
    """id -> each type whose width passed (kept alive, so no id is reused)."""
    for func in module.ops:
        if isinstance(func, FuncOp):
            if func.is_kernel:
                check_kernel_params(func)
            for op in preorder(func):
                check_op(op, widths)
    check_printing_helpers(module)
    cycle = call_cycle(module)
    if cycle is not None:
        func = next(
            op
            for op in module.ops
            if isinstance(op, FuncOp) and op.sym_name.data == cycle[0]
        )
        raise OpError(
            func,
            "is recursive (" + " -> ".join(f"@{n}" for n in cycle) + "); "
            "OpenCL kernels cannot recurse: rewrite it as a loop",
        )


KERNEL_POINTER_SPACES = (
    AddressSpace.GLOBAL,
    AddressSpace.CONSTANT,
    AddressSpace.SHARED,
)
"""What an OpenCL kernel's pointer parameters may point into (global,
constant, local in OpenCL's words)."""


def check_kernel_params(kernel: FuncOp) -> None:
    """Raise an OpError for a kernel pointer parameter OpenCL forbids: the
    runtime refuses a generic or private one when the argument is set."""
    for position, ty in enumerate(kernel.function_type.inputs.data):
        if isinstance(ty, PtrType) and ty.address_space not in KERNEL_POINTER_SPACES:
            raise OpError(
                kernel,
                f"kernel @{kernel.sym_name.data} takes parameter {position} as "
                f"{ty}; OpenCL kernels take global, constant or shared pointers "
                "only: take a global pointer (and addrspace_cast it if needed)",
            )


def check_printing_helpers(module: ModuleOp) -> None:
    """LLVM 22's SPIR-V back-end takes printf only in a kernel: in a function
    of its own it stops, asking for SPV_EXT_relaxed_printf_string_address_space.
    So every helper that prints (itself or by a call) is inlined into its
    kernel (plan-printing), and a `no_inline` one is a diagnostic."""
    from gpuc.asserts import functions_reaching

    if PRINTF not in call_graph(module).op_names:
        return
    reaching = functions_reaching(module, PRINTF)
    for func in module.ops:
        if (
            isinstance(func, FuncOp)
            and func.sym_name.data in reaching
            and func.inline_hint is InlineHint.NO_INLINE
        ):
            raise OpError(
                func,
                "is no_inline and prints (itself or through a call); LLVM 22's "
                "SPIR-V back-end takes printf only in a kernel (in a function "
                "of its own it stops, asking for "
                "SPV_EXT_relaxed_printf_string_address_space), so gpuc inlines "
                "every other helper that prints: drop no_inline, or print from "
                "the kernel",
            )


_PLAIN: dict[type[Operation], bool] = {}
"""Op class -> whether `check_op` checks nothing of its ops but their values'
types (not a launch, function pointer, address-space cast or atomic)."""
_INTEGER_CLASSES: dict[type[Attribute], bool] = {}


def _plain(cls: type[Operation]) -> bool:
    found = _PLAIN.get(cls)
    if found is None:
        found = _PLAIN[cls] = not issubclass(
            cls,
            (
                LaunchOp,
                FuncAddrOp,
                CallIndirectOp,
                AddrSpaceCastOp,
                AtomicRMWOp,
                AtomicCmpXchgOp,
            ),
        )
    return found


def _check_width(op: Operation, ty: Attribute) -> None:
    integer = _INTEGER_CLASSES.get(ty.__class__)
    if integer is None:
        integer = _INTEGER_CLASSES[ty.__class__] = isinstance(ty, IntegerType)
    if integer:
        assert isinstance(ty, IntegerType)
        if ty.width.data not in INTEGER_WIDTHS:
            raise OpError(
                op,
                f"uses {ty}; SPIR-V for OpenCL has i1, i8, i16, i32 and "
                "i64 only: widen it",
            )


def check_op(op: Operation, widths: dict[int, Attribute]) -> None:
    """Raise an OpError if `op` needs something SPIR-V for OpenCL cannot say
    (each op class's checks decided once; `widths`: the types whose width
    passed, by id, so that each type object is checked once)."""
    if not _plain(type(op)):
        _check_special(op)
    for result in op.results:
        if id(result.type) not in widths:
            _check_width(op, result.type)
            widths[id(result.type)] = result.type
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                if id(arg.type) not in widths:
                    _check_width(op, arg.type)
                    widths[id(arg.type)] = arg.type


def _check_special(op: Operation) -> None:
    """The checks of launches, function pointers, address-space casts and
    atomics."""
    if isinstance(op, LaunchOp):
        raise OpError(
            op,
            "launches a kernel from the device, which SPIR-V for OpenCL "
            "cannot express; launch the child kernel from the host instead",
        )
    if isinstance(op, FuncAddrOp | CallIndirectOp):
        raise OpError(
            op,
            "uses a function pointer, which SPIR-V for OpenCL cannot "
            "express (it needs SPV_INTEL_function_pointers); call the "
            "function directly",
        )
    if isinstance(op, AddrSpaceCastOp) and AddressSpace.CONSTANT in (
        ptr_type_of(op.source).address_space,
        ptr_type_of(op.result).address_space,
    ):
        raise OpError(
            op,
            "casts between constant and generic memory, which OpenCL cannot: "
            "its generic address space excludes constant memory; read the "
            "constant pointer directly (or take the buffer as global memory)",
        )
    if isinstance(op, AtomicRMWOp | AtomicCmpXchgOp):
        ptr = op.ptr.type
        assert isinstance(ptr, PtrType)
        # bf16 is a loop on the 32-bit word holding it (narrowest_atomic_bits).
        bits = isinstance(op, AtomicRMWOp) and isinstance(ptr.element, BFloat16Type)
        if ptr.element not in ATOMIC_TYPES and not bits:
            raise OpError(
                op,
                f"is an atomic on {ptr.element}; OpenCL has atomics on "
                "i32, i64, f32 and f64 only (and gpuc's on bf16, a "
                "compare-exchange loop on the 32-bit word)",
            )
