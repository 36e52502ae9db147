"""Translators of gpuc's memory ops. Addresses are GEPs on pointers that keep
their address space (never integer arithmetic); shared allocations become
globals in the shared address space (or, on the native target, offsets into
the block's shared memory); atomics keep the op's ordering (relaxed is LLVM's
`monotonic`); a bf16 atomic is a compare-exchange loop computing in f32
(`bf16_atomic`). A target that checks accesses (the native target in checked
mode) sees the address of every load, store and atomic first."""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir
from xdsl.ir import Operation, OpResult, SSAValue

from gpuc.dialects.analysis import alloc_layout, element_bytes
from gpuc.dialects.attrs import AddressSpace, AtomicKind, MemoryOrder
from gpuc.dialects.memory import (
    REGROUPED,
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    SharedAllocOp,
    StoreOp,
    derived_from,
    ptr_type_of,
)
from gpuc.lowering import bf16
from gpuc.lowering.context import FunctionLowering, translates

ORDERINGS = {
    MemoryOrder.RELAXED: "monotonic",
    MemoryOrder.ACQUIRE: "acquire",
    MemoryOrder.RELEASE: "release",
    MemoryOrder.ACQ_REL: "acq_rel",
    MemoryOrder.SEQ_CST: "seq_cst",
}
FAILURE_ORDERINGS = {
    "monotonic": "monotonic",
    "acquire": "acquire",
    "release": "monotonic",
    "acq_rel": "acquire",
    "seq_cst": "seq_cst",
}
INT_ATOMICS = {
    AtomicKind.ADD: "add",
    AtomicKind.MIN: "min",
    AtomicKind.MAX: "max",
    AtomicKind.UMIN: "umin",
    AtomicKind.UMAX: "umax",
    AtomicKind.EXCHANGE: "xchg",
    AtomicKind.AND: "and",
    AtomicKind.OR: "or",
    AtomicKind.XOR: "xor",
}
FLOAT_ATOMICS = {
    AtomicKind.ADD: "fadd",
    AtomicKind.MIN: "fmin",
    AtomicKind.MAX: "fmax",
    AtomicKind.EXCHANGE: "xchg",
}
CAS_COMBINE = {"fmin": "llvm.minnum", "fmax": "llvm.maxnum"}
PLAIN_SHARED = {
    "add": lambda b, old, value: b.add(old, value),
    "fadd": lambda b, old, value: b.fadd(old, value),
    "xchg": lambda b, old, value: value,
}
"""Atomics on shared memory done as plain read-modify-writes where the target
says one thread owns a block's shared memory (`Target.block_owns_shared`)."""


def address(fl: FunctionLowering, ptr: SSAValue, index: SSAValue | None) -> ir.Value:
    """`ptr` advanced by `index` elements (a GEP), or `ptr` itself."""
    base = fl.get(ptr)
    if index is None:
        return base
    element = fl.type(ptr_type_of(ptr).element)
    return fl.builder.gep(base, [fl.get(index)], inbounds=True, source_etype=element)


def accessed(
    fl: FunctionLowering, op: Operation, ptr: SSAValue, index: SSAValue | None
) -> ir.Value:
    """The address `op` reads or writes (`address`), checked by the target if
    it checks accesses."""
    at = address(fl, ptr, index)
    fl.target.check_access(fl, op, ptr, at)
    return at


MAX_ACCESS_ALIGNMENT = 16
"""The most a load or store claims: the widest access PTX and AMDGPU make
(a v4.b32), and what a numpy array's buffer is sure of; a `vector<8xf32>`
claiming its 32 bytes made x86's aligned AVX moves fault on such arrays."""


def alignment(ptr: SSAValue) -> int:
    return min(int(element_bytes(ptr_type_of(ptr).element)), MAX_ACCESS_ALIGNMENT)


def tag_space(fl: FunctionLowering, access: ir.Instruction, ptr: SSAValue) -> None:
    """Tell LLVM that a block's shared memory and global memory never alias
    where the target's address spaces cannot say so (native: all are 0, and
    shared memory is a buffer of the executor's own), nor two distinct
    `gpuc.shared_alloc`s (native places them in one buffer): alias scopes,
    one for global memory, one per shared allocation an access is traced to
    (through `gpuc.offset` and `gpuc.addrspace_cast`), one for other shared
    accesses (which may then alias any allocation), and one for a work-group
    function's context storage (`tag_context`)."""
    if not fl.target.block_owns_shared:
        return
    space = ptr_type_of(ptr).address_space
    if space not in (AddressSpace.SHARED, AddressSpace.GLOBAL):
        return
    scopes = _alias_scopes(fl)
    own: object = space
    if space == AddressSpace.SHARED:
        own = shared_allocation(ptr) or space
    if own is AddressSpace.GLOBAL:
        others = [scope for key, scope in scopes.items() if key is not own]
    elif own is AddressSpace.SHARED:  # untraced: may be in any allocation
        others = [scopes[AddressSpace.GLOBAL], scopes[CONTEXT]]
    else:  # one allocation: apart from global memory and the other ones
        others = [
            scope
            for key, scope in scopes.items()
            if key is not own and key is not AddressSpace.SHARED
        ]
    module = fl.ml.llvm
    access.set_metadata("alias.scope", module.add_metadata([scopes[own]]))
    access.set_metadata("noalias", module.add_metadata(others))


def _alias_scopes(fl: FunctionLowering) -> dict[object, ir.NamedValue]:
    """The module's alias scopes (made once): global memory, untraced shared
    memory, and each shared allocation of the module."""
    ml = fl.ml
    if not ml.alias_scopes:
        module = ml.llvm
        domain = module.add_metadata([ir.MetaDataString(module, "gpuc.memory")])

        def scope(name: str) -> ir.NamedValue:
            return module.add_metadata([ir.MetaDataString(module, name), domain])

        ml.alias_scopes[AddressSpace.GLOBAL] = scope("gpuc.global")
        ml.alias_scopes[AddressSpace.SHARED] = scope("gpuc.shared")
        ml.alias_scopes[CONTEXT] = scope("gpuc.context")
        allocs = [op for op in ml.module.walk() if isinstance(op, SharedAllocOp)]
        for n, alloc in enumerate(allocs):
            ml.alias_scopes[alloc] = scope(f"gpuc.shared.{n}")
    return ml.alias_scopes


CONTEXT = "context"
"""The alias scope of a work-group function's context storage (native: the
per-thread values kept across barriers, in memory the function allocates
itself)."""


def tag_context(
    fl: FunctionLowering,
    access: ir.Instruction,
    part: int | None = None,
    parts: Sequence[ir.NamedValue] = (),
) -> None:
    """Tell LLVM that `access`, to context storage, aliases neither global
    nor shared memory, nor (given its `part` among the scopes `parts` of
    pieces of context storage that do not overlap) the other pieces."""
    scopes = _alias_scopes(fl)
    module = fl.ml.llvm
    mine = [scopes[CONTEXT]] if part is None else [scopes[CONTEXT], parts[part]]
    access.set_metadata("alias.scope", module.add_metadata(mine))
    others = [scope for key, scope in scopes.items() if key is not CONTEXT]
    others += [scope for k, scope in enumerate(parts) if k != part]
    access.set_metadata("noalias", module.add_metadata(others))


def context_scopes(fl: FunctionLowering, count: int) -> list[ir.NamedValue]:
    """`count` alias scopes for pieces of a function's context storage."""
    module = fl.ml.llvm
    domain = module.add_metadata([ir.MetaDataString(module, "gpuc.context")])
    return [
        module.add_metadata([ir.MetaDataString(module, f"gpuc.context.{k}"), domain])
        for k in range(count)
    ]


def shared_allocation(ptr: SSAValue) -> SharedAllocOp | None:
    """The `gpuc.shared_alloc` `ptr` points into, through `gpuc.offset` and
    `gpuc.addrspace_cast`, if that is where it comes from."""
    source = derived_from(ptr)
    if isinstance(source, OpResult) and isinstance(source.op, SharedAllocOp):
        return source.op
    return None


@translates(LoadOp)
def translate_load(op: LoadOp, fl: FunctionLowering) -> None:
    ptr = op.ptr
    load = fl.builder.load(
        accessed(fl, op, ptr, op.index),
        typ=fl.type(op.result.type),
        align=alignment(ptr),
    )
    tag_space(fl, load, ptr)
    fl.set(op, load)


@translates(StoreOp)
def translate_store(op: StoreOp, fl: FunctionLowering) -> None:
    ptr = op.ptr
    store = fl.builder.store(
        fl.get(op.value), accessed(fl, op, ptr, op.index), align=alignment(ptr)
    )
    tag_space(fl, store, ptr)


@translates(OffsetOp)
def translate_offset(op: OffsetOp, fl: FunctionLowering) -> None:
    fl.set(op, address(fl, op.ptr, op.index))


@translates(AddrSpaceCastOp)
def translate_addrspace_cast(op: AddrSpaceCastOp, fl: FunctionLowering) -> None:
    source = fl.get(op.source)
    target = fl.type(op.result.type)
    fl.set(
        op,
        source if source.type == target else fl.builder.addrspacecast(source, target),
    )


@translates(SharedAllocOp)
def translate_shared_alloc(op: SharedAllocOp, fl: FunctionLowering) -> None:
    fl.set(op, fl.target.shared_alloc(fl, op))


def shared_global(fl: FunctionLowering, op: SharedAllocOp) -> ir.Value:
    """An internal, uninitialized array in the shared address space, named after
    the function that allocates it."""
    ptr = ptr_type_of(op.result)
    size, align = alloc_layout(op)
    element = fl.type(ptr.element)
    array = ir.ArrayType(element, size // element_bytes(ptr.element))
    space = fl.target.address_spaces[ptr.address_space]
    name = fl.ml.llvm.get_unique_name(f"{fl.func.sym_name.data}.shared")
    var = ir.GlobalVariable(fl.ml.llvm, array, name, addrspace=space)
    var.linkage = "internal"
    var.initializer = ir.Constant(array, ir.Undefined)
    var.align = align
    var.type = ir.PointerType(addrspace=space)  # used as an opaque pointer
    return var


@translates(AtomicRMWOp)
def translate_atomic_rmw(op: AtomicRMWOp, fl: FunctionLowering) -> None:
    if bf16.is_bf16(ptr_type_of(op.ptr).element):
        ptr = accessed(fl, op, op.ptr, op.index)
        fl.set(op, bf16_atomic(fl, op.kind.data, ptr, fl.get(op.value), op))
        return
    element = fl.type(ptr_type_of(op.ptr).element)
    is_float = not isinstance(element, ir.IntType)
    kind = (FLOAT_ATOMICS if is_float else INT_ATOMICS)[op.kind.data]
    ptr = accessed(fl, op, op.ptr, op.index)
    ordering = ORDERINGS[op.memory_order]
    value = fl.get(op.value)
    if (
        fl.target.block_owns_shared
        and ptr_type_of(op.ptr).address_space == AddressSpace.SHARED
        and kind in PLAIN_SHARED
    ) or (kind == "fadd" and fl.target.adds_privately(fl, op)):
        b = fl.builder
        old = b.load(ptr, typ=value.type)
        tag_space(fl, old, op.ptr)
        if kind == "fadd" and REGROUPED in op.attributes:
            new = b.fadd(old, value, flags=["reassoc", "nsz"])
        else:
            new = PLAIN_SHARED[kind](b, old, value)
        tag_space(fl, b.store(new, ptr), op.ptr)
        fl.set(op, old)
        return
    scoped = scope(fl) + ordering
    if (
        kind in fl.target.cas_atomics
        or (kind, str(element)) in fl.target.cas_typed_atomics
    ):
        fl.set(op, cas_loop(fl, kind, ptr, value, ordering))
        return
    if is_float and kind == "xchg":
        # An exchange only moves bits: as the integer of the same width, which
        # every target has (OpenCL runtimes may lack atomic_xchg(double)).
        b = fl.builder
        bits = ir.IntType(element_bits(value.type))
        old = b.atomic_rmw(kind, ptr, b.bitcast(value, bits), scoped)
        fl.set(op, b.bitcast(old, value.type))
        return
    fl.set(op, fl.builder.atomic_rmw(kind, ptr, value, scoped))


def scope(fl: FunctionLowering) -> str:
    """The target's `syncscope(...)` prefix of an atomic's ordering, if any
    (llvmlite prints the ordering as given, and the scope precedes it)."""
    name = fl.target.atomic_scope
    return f'syncscope("{name}") ' if name else ""


def cas_loop(
    fl: FunctionLowering, kind: str, ptr: ir.Value, value: ir.Value, ordering: str
) -> ir.Value:
    """A float read-modify-write as a compare-exchange loop on the integer of the
    same width, for targets whose back-end has no such atomic instruction."""
    b = fl.builder
    ty = value.type
    int_ty = ir.IntType(element_bits(ty))
    first = b.load(ptr, typ=ty)
    entry = b.block
    loop = b.append_basic_block("cas.loop")
    done = b.append_basic_block("cas.done")
    b.branch(loop)
    b.position_at_end(loop)
    old = b.phi(ty)
    old.add_incoming(first, entry)
    if kind == "fadd":
        new = b.fadd(old, value)
    else:
        name = f"{CAS_COMBINE[kind]}.{ty.intrinsic_name}"
        new = b.call(fl.ml.intrinsic(name, ty, [ty, ty]), [old, value])
    pair = b.cmpxchg(
        ptr,
        b.bitcast(old, int_ty),
        b.bitcast(new, int_ty),
        scope(fl) + ordering,
        FAILURE_ORDERINGS[ordering],
    )
    seen = b.bitcast(b.extract_value(pair, 0), ty)
    old.add_incoming(seen, loop)
    b.cbranch(b.extract_value(pair, 1), done, loop)
    b.position_at_end(done)
    return seen


I8, I16, I32 = ir.IntType(8), ir.IntType(16), ir.IntType(32)
BF16_COMBINE = {AtomicKind.MAX: "llvm.maxnum.f32", AtomicKind.MIN: "llvm.minnum.f32"}


def bf16_atomic(
    fl: FunctionLowering,
    kind: AtomicKind,
    ptr: ir.Value,
    value: ir.Value,
    op: AtomicRMWOp,
) -> ir.Value:
    """A bf16 read-modify-write (its 16 bits at `ptr`) as a compare-exchange
    loop that computes in f32 and rounds once (gpuc.lowering.bf16), as the
    scalar op does; max and min are maxnum and minnum, like the other floats'.
    Where the target's atomics are 32 bits at least
    (`Target.narrowest_atomic_bits`: OpenCL's), the loop exchanges the aligned
    word holding the bits (little-endian: at bit 16 * (address / 2 % 2))."""
    b = fl.builder
    ordering = scope(fl) + ORDERINGS[op.memory_order]
    word = fl.target.narrowest_atomic_bits > 16
    if kind == AtomicKind.EXCHANGE and not word:
        return b.atomic_rmw("xchg", ptr, value, ordering)
    cell, shift = I16, ir.Constant(I32, 0)
    if word:
        cell, address = I32, b.ptrtoint(ptr, fl.ml.index_type)
        low = b.and_(address, ir.Constant(address.type, 2))
        ptr = b.gep(ptr, [b.neg(low)], source_etype=I8)
        shift = b.trunc(b.shl(low, ir.Constant(low.type, 3)), I32)
    first = b.load(ptr, typ=cell, align=cell.width // 8)
    entry = b.block
    loop = b.append_basic_block("bf16.cas.loop")
    done = b.append_basic_block("bf16.cas.done")
    b.branch(loop)
    b.position_at_end(loop)
    old = b.phi(cell)
    old.add_incoming(first, entry)
    bits = b.trunc(b.lshr(old, shift), I16) if word else old
    if kind == AtomicKind.EXCHANGE:
        new_bits = value
    else:
        x, y = bf16.widen(b, bits), bf16.widen(b, value)
        if kind == AtomicKind.ADD:
            combined = b.fadd(x, y)
        else:
            fn = fl.ml.intrinsic(BF16_COMBINE[kind], bf16.F32, [bf16.F32, bf16.F32])
            combined = b.call(fn, [x, y])
        new_bits = bf16.narrow(b, combined)
    new = new_bits
    if word:
        mask = b.shl(ir.Constant(I32, 0xFFFF), shift)
        kept = b.and_(old, b.not_(mask))
        new = b.or_(kept, b.shl(b.zext(new_bits, I32), shift))
    pair = b.cmpxchg(
        ptr, old, new, ordering, FAILURE_ORDERINGS[ORDERINGS[op.memory_order]]
    )
    old.add_incoming(b.extract_value(pair, 0), loop)
    b.cbranch(b.extract_value(pair, 1), done, loop)
    b.position_at_end(done)
    return bits


def element_bits(ty: ir.Type) -> int:
    return {"half": 16, "float": 32, "double": 64}[str(ty)]


@translates(AtomicCmpXchgOp)
def translate_cmpxchg(op: AtomicCmpXchgOp, fl: FunctionLowering) -> None:
    ordering = ORDERINGS[op.memory_order]
    pair = fl.builder.cmpxchg(
        accessed(fl, op, op.ptr, op.index),
        fl.get(op.expected),
        fl.get(op.desired),
        scope(fl) + ordering,
        FAILURE_ORDERINGS[ordering],
    )
    fl.set(op, fl.builder.extract_value(pair, 0))
