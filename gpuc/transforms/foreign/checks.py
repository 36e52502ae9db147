"""What the `import` pass accepts, checked before it changes anything.

Each construct it cannot import is one diagnostic naming the op, the function
it sits in, its source location when the text carried one, and what is
supported instead. The pass reports them all together and leaves the module
as it was, so a frontend author sees every problem in one run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerType,
    MemRefType,
    StridedLayoutAttr,
    TensorType,
    UnitAttr,
    UnrankedMemRefType,
    UnrankedTensorType,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gpuc.diagnostics import made_of
from gpuc.dialects.attrs import AddressSpace, FuncPtrType
from gpuc.dialects.foreign.affine import AFFINE_OPS
from gpuc.dialects.foreign.amdgpu import AMDGPU_OPS, BUFFER_OP_NAMES
from gpuc.dialects.foreign.gpu import AllReduceOp
from gpuc.dialects.foreign.memref import ATOMIC_RMW_OPS
from gpuc.dialects.foreign.mma import MEMREF_OPERANDS, MMA_OP_NAMES
from gpuc.dialects.symbols import symbol_name
from gpuc.transforms.foreign.all_reduce import kind_problem
from gpuc.transforms.foreign.amdgpu_buffers import buffer_problem
from gpuc.transforms.foreign.bare_pointers import (
    ATOMIC_FLOAT_KINDS,
    ATOMIC_INTEGER_KINDS,
    ATOMIC_KIND_BY_NUMBER,
    ATOMIC_KINDS_ACCEPTED,
    CONSTANT_TABLE_LIMIT,
    address_space,
    allocation_space,
    constant_index,
    constant_table,
    memref_problem,
    strided_layout,
)
from gpuc.transforms.foreign.memref_views import kept_dims
from gpuc.transforms.foreign.mma_ops import mma_problem
from gpuc.transforms.foreign.vector_unroll import vector_problem

GPU_OPS = (
    "gpu.module",
    "gpu.func",
    "gpu.return",
    "gpu.thread_id",
    "gpu.block_id",
    "gpu.block_dim",
    "gpu.grid_dim",
    "gpu.global_id",
    "gpu.lane_id",
    "gpu.barrier",
    "gpu.shuffle",
    "gpu.subgroup_reduce",
    "gpu.subgroup_id",
    "gpu.subgroup_size",
    "gpu.num_subgroups",
    "gpu.all_reduce",
    "gpu.yield",
    "gpu.printf",
    *MMA_OP_NAMES,
)
MEMREF_OPS = (
    "memref.load",
    "memref.store",
    "memref.atomic_rmw",
    "memref.generic_atomic_rmw",
    "memref.atomic_yield",
    "memref.dim",
    "memref.cast",
    "memref.alloca",
    "memref.alloc",
    "memref.dealloc",
    "memref.global",
    "memref.get_global",
    "memref.assume_alignment",
    "memref.subview",
    "memref.reinterpret_cast",
    "memref.memory_space_cast",
    "memref.expand_shape",
    "memref.collapse_shape",
)
FUNC_OPS = (
    "func.func",
    "func.call",
    "func.return",
    "func.constant",
    "func.call_indirect",
)
SUPPORTED = {
    "gpu": GPU_OPS,
    "memref": MEMREF_OPS,
    "func": FUNC_OPS,
    "amdgpu": AMDGPU_OPS,
    "affine": tuple(op.name for op in AFFINE_OPS),  # expanded before the checks
}

# Where a memref value may be used: op name -> the operand it may be.
MEMREF_USES = {
    "memref.load": "memref",
    "memref.store": "memref",
    "memref.atomic_rmw": "memref",
    "memref.generic_atomic_rmw": "memref",
    "memref.dim": "source",
    "memref.cast": "source",
    "memref.dealloc": "memref",
    "memref.assume_alignment": "memref",
    "memref.subview": "source",
    "memref.reinterpret_cast": "source",
    "memref.memory_space_cast": "source",
    "memref.expand_shape": "src",
    "memref.collapse_shape": "src",
    "vector.load": "base",
    "vector.store": "base",
    "vector.transfer_read": "source",
    "vector.transfer_write": "source",
    "func.call": None,
    # A deferred job's arguments are passed as a call's are.
    "gpuc.deferred_call": None,
    "gpuc.deferred_launch": None,
    # An indirect call passes memrefs as a direct call does (its pointer's
    # signature is expanded alike, bare_pointers.expand_signature).
    "gpuc.call_indirect": None,
    "func.call_indirect": None,
    **dict.fromkeys(BUFFER_OP_NAMES, "memref"),
    **MEMREF_OPERANDS,
}
MEMREF_DEFS = (
    memref.AllocaOp,
    memref.AllocOp,
    memref.GetGlobalOp,
    memref.CastOp,
    memref.AssumeAlignmentOp,
    memref.SubviewOp,
    memref.ReinterpretCastOp,
    memref.MemorySpaceCastOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
)
WORKGROUP = "memory space #gpu.address_space<workgroup> or 3"

ForeignFuncOp: TypeAlias = func.FuncOp | gpu.FuncOp
"""The functions the import converts into gpuc.func."""


def function_of(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ForeignFuncOp):
        parent = parent.parent_op()
    return parent


def is_kernel(fn: Operation) -> bool:
    """A `gpu.kernel` unit attribute, or xDSL's `kernel` property of gpu.func."""
    return isinstance(fn.attributes.get("gpu.kernel"), UnitAttr) or isinstance(
        fn.properties.get("kernel"), UnitAttr
    )


def where(op: Operation) -> str:
    """` in @k`: the function `op` sits in (the location is OpError's job)."""
    fn = function_of(op)
    name = symbol_name(fn) if fn is not None else None
    return f" in @{name}" if name is not None else ""


Problem = tuple[Operation, str]
"""An op the import cannot take, and the message saying why and what it takes."""


def type_problem(t: Attribute) -> str | None:
    if t.name.startswith("llvm."):  # gpuc/dialects/foreign/llvm_types.py
        return (
            f"type {t} is an llvm dialect type, which device code cannot use; "
            "pass memrefs and scalars (host code around gpu.modules may use it)"
        )
    if isinstance(t, TensorType | UnrankedTensorType):
        return f"tensor type {t} is not supported; bufferize to memrefs first"
    if isinstance(t, UnrankedMemRefType):
        return f"unranked {t} is not supported; give the memref a rank"
    if isinstance(t, MemRefType):
        problem: str | None = memref_problem(t)
        return problem
    if isinstance(t, FuncPtrType | FunctionType):
        return _signature_problem(t)
    return None


def _signature_problem(t: FuncPtrType | FunctionType) -> str | None:
    """Why the import cannot expand the memrefs of function pointer type `t`
    (or of a function value's type, func.constant's)."""
    signature = t.signature if isinstance(t, FuncPtrType) else t
    what = "function pointer" if isinstance(t, FuncPtrType) else "function value"
    for result in signature.outputs.data:
        if isinstance(result, MemRefType | UnrankedMemRefType):
            return (
                f"{what} type {t} returns a memref; functions cannot "
                "return memrefs, write through a memref parameter instead"
            )
    for param in (*signature.inputs.data, *signature.outputs.data):
        if (problem := type_problem(param)) is not None:
            return f"{what} type {t}: {problem}"
    return None


def vector_access_problem(op: Operation) -> str | None:
    """Why a `vector.load`/`vector.store` cannot be imported, if it cannot:
    gpuc takes 1-D vectors of consecutive elements (a unit innermost stride)."""
    from xdsl.dialects.builtin import VectorType

    vt = op.results[0].type if op.name == "vector.load" else op.operands[0].type
    t = op.operands[0 if op.name == "vector.load" else 1].type
    assert isinstance(vt, VectorType) and isinstance(t, MemRefType)
    if vt.get_num_dims() != 1:
        return None  # vector_unroll.py's (unrolled before the conversion)
    if vt.get_element_type() != t.element_type:
        return f"{op.name} of {vt} from {t}: the element types must be the same"
    inner = (
        t.layout.strides.data[-1] if isinstance(t.layout, StridedLayoutAttr) else None
    )
    if inner is not None and not (isinstance(inner, IntAttr) and inner.data == 1):
        return (
            f"{op.name} from {t}: the innermost stride must be a static 1 (the "
            "vector's elements are consecutive)"
        )
    return None


def _use_problems(value: SSAValue) -> Iterator[Problem]:
    for use in value.uses:
        user = use.operation
        if _unsupported(user):
            continue  # reported as such
        if user.name in ("vector.load", "vector.store") and (
            problem := vector_access_problem(user)
        ):
            yield user, f"{problem}{where(user)}"
            continue
        if user.name not in MEMREF_USES:
            yield (
                user,
                (
                    f"uses a memref value{where(user)}; memrefs may only be used by "
                    f"{', '.join(MEMREF_USES)}"
                ),
            )
            continue
        operand = MEMREF_USES[user.name]
        if operand is not None and user.operands[use.index] is not getattr(
            user, operand
        ):
            yield user, f"uses a memref value as other than its {operand}{where(user)}"


def _value_problems(op: Operation) -> Iterator[Problem]:
    for result in op.results:
        if (problem := type_problem(result.type)) is not None:
            yield op, f"result{where(op)}: {problem}"
        elif isinstance(result.type, MemRefType):
            if not isinstance(op, MEMREF_DEFS):
                yield (
                    op,
                    (
                        f"produces a memref{where(op)}; only function parameters, "
                        "allocations, globals, memref.cast and the views "
                        "(memref.subview, reinterpret_cast, memory_space_cast, "
                        "expand_shape, collapse_shape) may"
                    ),
                )
            yield from _use_problems(result)
    is_function = isinstance(op, ForeignFuncOp)
    for region in op.regions:
        for block in region.blocks:
            entry = is_function and block is region.blocks.first
            for arg in block.args:
                problem = type_problem(arg.type)
                if problem is not None and not entry:
                    yield op, f"has a block argument{where(op)}: {problem}"
                elif isinstance(arg.type, MemRefType):
                    if not entry:
                        yield (
                            op,
                            (
                                f"has a memref block argument{where(op)}; memrefs "
                                "cannot flow through control flow"
                            ),
                        )
                    yield from _use_problems(arg)


def _abi_problem(op: ForeignFuncOp) -> str | None:
    """Why `op`'s `spirv.entry_point_abi` cannot be honoured, if it cannot."""
    from gpuc.dialects.foreign.spirv_abi import ENTRY_POINT_ABI, workgroup_size

    abi = op.attributes.get(ENTRY_POINT_ABI)
    if abi is None:
        return None
    size = workgroup_size(abi)
    if size is None or isinstance(size, str):
        return size
    if not is_kernel(op):
        return f"{ENTRY_POINT_ABI} is on a helper; only a kernel has a block size"
    known = op.attributes.get("gpu.known_block_size")
    if isinstance(known, DenseArrayBase) and tuple(known.get_values()) != size:
        return (
            f"{ENTRY_POINT_ABI} gives workgroup size {list(size)} but "
            f"gpu.known_block_size is {list(known.get_values())}"
        )
    return None


def _function_problems(op: ForeignFuncOp) -> Iterator[Problem]:
    name = f"@{symbol_name(op)}{made_of(op)}"
    if (problem := _abi_problem(op)) is not None:
        yield op, f"{name}: {problem}"
    for t in op.function_type.inputs.data:
        if (problem := type_problem(t)) is not None:
            yield op, f"{name} has a parameter whose {problem}"
    for t in op.function_type.outputs.data:
        if isinstance(t, MemRefType | UnrankedMemRefType):
            yield (
                op,
                (
                    f"{name} returns {t}; functions cannot return memrefs, write "
                    "through a memref parameter instead"
                ),
            )
        elif (problem := type_problem(t)) is not None:
            yield op, f"{name} has a result whose {problem}"


def _view_problem(op: Operation) -> str | None:
    """Why a memref.subview or memory_space_cast cannot be imported, if it
    cannot (reinterpret_cast takes any offset, sizes and strides)."""
    if isinstance(op, memref.SubviewOp):
        result = op.result.type
        assert isinstance(result, MemRefType)
        sizes = op.static_sizes.get_values()
        if kept_dims(sizes, result.get_shape()) is None:
            return (
                f"has sizes {list(sizes)} (-1 dynamic) but result shape "
                f"{list(result.get_shape())}{where(op)}; a rank-reducing "
                "subview drops dimensions of static size 1 only"
            )
    if isinstance(op, memref.MemorySpaceCastOp):
        source, dest = op.source.type, op.dest.type
        if not isinstance(source, MemRefType) or not isinstance(dest, MemRefType):
            return None  # reported as an unranked memref
        spaces = address_space(source.memory_space), address_space(dest.memory_space)
        if None in spaces or spaces[0] == spaces[1] or AddressSpace.GENERIC in spaces:
            return None
        return (
            f"casts {spaces[0]} memory to {spaces[1]} memory{where(op)}, which "
            "no pointer conversion does (gpuc reads no memory space and 0 as "
            "global); cast to or from generic memory (#gpuc<space generic>)"
        )
    return None


def _reinterpret_problem(op: memref.ReinterpretCastOp) -> str | None:
    """Why a reinterpret_cast cannot be imported, if it cannot: it starts
    from its source's buffer base, which a launch does not pass for a
    kernel's strided parameter (only the view's elements)."""
    source = op.source
    while isinstance(source.owner, Operation) and source.owner.name in (
        "memref.subview",
        "memref.cast",
        "memref.memory_space_cast",
        "memref.assume_alignment",
    ):
        source = source.owner.operands[0]
    block = source.owner
    fn = block.parent_op() if isinstance(block, Block) else None
    if (
        isinstance(fn, ForeignFuncOp)
        and is_kernel(fn)
        and block is fn.body.blocks.first
        and isinstance(source.type, MemRefType)
        and strided_layout(source.type) is not None
    ):
        return (
            f"reinterprets kernel parameter of type {source.type}{where(op)}, "
            "which starts from the buffer's base; a launch passes a strided "
            "parameter's view only (the elements it spans): take the whole "
            "buffer as the parameter, or memref.subview the parameter instead"
        )
    return None


def _allocation_problem(op: memref.AllocaOp | memref.AllocOp) -> str | None:
    t = op.memref.type
    space = allocation_space(t.memory_space)
    if space == AddressSpace.SHARED:
        if op.dynamic_sizes:
            return f"allocates {t}{where(op)}; workgroup memory needs a static size"
        return None
    if space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
        return (
            f"allocates {t} in {space.value} memory{where(op)}, which kernels "
            "cannot do; pass the buffer as a kernel argument"
        )
    if isinstance(op, memref.AllocaOp):  # per-thread: a gpuc.private_alloc
        if op.dynamic_sizes:
            return f"allocates {t}{where(op)}; per-thread memory needs a static size"
        return None
    return (
        f"allocates per-thread memory {t}{where(op)} with memref.alloc, which gpuc "
        "does not support; use memref.alloca (a stack array), allocate workgroup "
        f"memory ({WORKGROUP}) or use scalars"
    )


def _global_problem(op: memref.GlobalOp) -> str | None:
    name = op.sym_name.data
    if address_space(op.type.memory_space) != AddressSpace.SHARED:
        if constant_table(op) is not None:
            return None
        return (
            f"@{name} of type {op.type} is not supported: the import takes "
            f"workgroup globals ({WORKGROUP}) and constant tables (`constant`, "
            f"a dense initial value of at most {CONSTANT_TABLE_LIMIT} integers "
            "or floats) only; pass other data as a kernel argument"
        )
    if not isinstance(op.initial_value, UnitAttr):
        return (
            f"@{name}: workgroup memory cannot have an initial value; make it "
            "uninitialized and fill it in the kernel"
        )
    return None


def _collective_problem(op: Operation) -> str | None:
    ty = op.operands[0].type
    if str(ty) not in ("i32", "i64", "f32", "f64"):
        return f"exchanges {ty}{where(op)}; the import accepts i32, i64, f32 and f64"
    if op.name != "gpu.subgroup_reduce":
        return None
    if op.properties.get("cluster_size") is not None:
        return (
            f"reduces over clusters{where(op)}, which gpuc does not support; "
            "reduce over the whole subgroup"
        )
    return kind_problem(op.properties["op"], ty, where(op))


def _all_reduce_problem(op: AllReduceOp) -> str | None:
    ty = op.operand.type
    if not isinstance(ty, AnyFloat | IntegerType | IndexType) or str(ty) == "bf16":
        return (
            f"reduces {ty}{where(op)}; the import accepts integers, index, "
            "f16, f32 and f64"
        )
    if op.op is not None:
        return kind_problem(op.op, ty, where(op))
    if not op.body.blocks or len(op.body.blocks) != 1:
        return f"has neither a kind nor a one-block region{where(op)}"
    return None


def op_name(op: Operation) -> str:
    """The op's name as written; an unregistered op's too (`gpuc-opt
    --allow-unregistered-dialect` keeps `"gpu.printf"` as one)."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def _unsupported(op: Operation) -> bool:
    name = op_name(op)
    dialect = name.split(".")[0]
    return dialect in SUPPORTED and name not in SUPPORTED[dialect]


def _op_problem(op: Operation, globals: dict[str, memref.GlobalOp]) -> str | None:
    if (problem := vector_problem(op, where(op))) is not None:
        return problem
    if _unsupported(op):
        what = f"'{op_name(op)}', " if isinstance(op, UnregisteredOp) else ""
        return (
            f"{what}cannot be imported{where(op)}; the import accepts "
            f"{', '.join(SUPPORTED[op_name(op).split('.')[0]])}"
        )
    if op.name in ("gpu.shuffle", "gpu.subgroup_reduce"):
        return _collective_problem(op)
    if op.name in MMA_OP_NAMES:
        return mma_problem(op)
    if (problem := buffer_problem(op, where(op))) is not None:
        return problem
    if isinstance(op, AllReduceOp):
        return _all_reduce_problem(op)
    if op.name == "memref.generic_atomic_rmw":
        t = op.result_types[0]
        if not (isinstance(t, IntegerType) and t.width.data in (32, 64)):
            return (
                f"updates {t} elements{where(op)}; gpuc makes it a compare-exchange "
                "loop, which takes i32 and i64 elements"
            )
    if isinstance(op, memref.AllocaOp | memref.AllocOp):
        return _allocation_problem(op)
    if isinstance(op, memref.SubviewOp | memref.MemorySpaceCastOp):
        return _view_problem(op)
    if isinstance(op, memref.ReinterpretCastOp):
        return _reinterpret_problem(op)
    if isinstance(op, memref.GlobalOp):
        return _global_problem(op)
    if isinstance(op, memref.GetGlobalOp):
        name = op.name_.root_reference.data
        fn = function_of(op)
        if name not in globals:
            return f"@{name}{where(op)} names no memref.global of the module"
        if fn is not None and not is_kernel(fn):
            space = address_space(globals[name].type.memory_space)
            named = "workgroup global" if space == AddressSpace.SHARED else "global"
            return (
                f"uses {named} @{name}{where(op)}, a helper; pass the "
                "buffer to the helper as a memref parameter (kernels only)"
            )
    if isinstance(op, memref.DimOp):
        dim = constant_index(op.index)
        source = op.source.type
        assert isinstance(source, MemRefType)
        rank = source.get_num_dims()
        if dim is None or not 0 <= dim < rank:
            return (
                f"needs a dimension{where(op)} that is an arith.constant in [0, {rank})"
            )
    if isinstance(op, ATOMIC_RMW_OPS):
        kind = op.kind.value.data
        if kind not in ATOMIC_KIND_BY_NUMBER:
            return (
                f"has kind {kind}{where(op)}, which is not supported; accepted "
                f"(MLIR 16 numbering): {ATOMIC_KINDS_ACCEPTED}"
            )
        element = op.value.type
        if kind in ATOMIC_FLOAT_KINDS and not isinstance(element, AnyFloat):
            return (
                f"has kind {ATOMIC_FLOAT_KINDS[kind]} ({kind}){where(op)}, which "
                f"needs a float element type, not {element}"
            )
        if kind in ATOMIC_INTEGER_KINDS and isinstance(element, AnyFloat):
            return (
                f"has kind {ATOMIC_INTEGER_KINDS[kind]} ({kind}){where(op)}, which "
                f"needs an integer element type, not {element}"
            )
    return None


def import_problems(
    device: list[Operation], globals: dict[str, memref.GlobalOp]
) -> list[Problem]:
    """Every op in `device` (and their regions) the import cannot take, in order."""
    problems: list[Problem] = []
    for top in device:
        for op in top.walk():
            if (problem := _op_problem(op, globals)) is not None:
                problems.append((op, problem))
            if isinstance(op, ForeignFuncOp):
                problems += _function_problems(op)
            problems += _value_problems(op)
    return list(dict.fromkeys(problems))  # an op using a memref twice: once
