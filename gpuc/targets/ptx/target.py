"""NVIDIA PTX through LLVM's NVPTX back-end, validated by ptxas.

Kernels use the `ptx_kernel` calling convention; index ops read the special
registers (%tid, %ctaid, %ntid, %nctaid, %laneid); math functions without a
PTX instruction call libdevice, linked in only when used; a device-side launch
goes through the CUDA device runtime the way nvcc emits `<<<>>>` in device code
(CUDA 12+ names: `__cudaCDP2GetParameterBufferV2` / `__cudaCDP2LaunchDeviceV2`),
which makes the PTX relocatable (ptxas checks it with `--compile-only`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import IntegerType, ModuleOp

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace
from gpuc.dialects.functions import FuncOp
from gpuc.targets.base import RecordingTarget, TargetError
from gpuc.targets.launch_abi import DYNAMIC_SHARED, SHARED_WINDOW_ALIGN
from gpuc.targets.ptx.wmma import WmmaMatrices

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.ir import Operation

    from gpuc.dialects.attrs import MemoryOrder
    from gpuc.dialects.fence import FenceScope
    from gpuc.dialects.functions import LaunchOp
    from gpuc.dialects.printf import PrintfOp
    from gpuc.dialects.subgroup import ReduceKind, VoteKind
    from gpuc.lowering.context import FunctionLowering, ModuleLowering

SPECIAL_REGISTERS = {
    "thread_id": "tid",
    "block_id": "ctaid",
    "block_dim": "ntid",
    "grid_dim": "nctaid",
}
NATIVE_MATH = frozenset(
    {"sqrt", "fabs", "ceil", "floor", "trunc", "round", "roundeven", "fma", "copysign"}
)
"""Math functions NVPTX selects to instructions; the rest come from libdevice."""
FENCE_SCOPES = {"block": "block", "device": "device", "system": ""}
"""gpuc.fence scope -> NVPTX's `syncscope` (the default is the system)."""
SUPPORTED_SMS = (75, 80, 86, 89, 90, 100, 120)
MIN_PTX_ISA = {75: 63, 80: 70, 86: 71, 89: 78, 90: 78, 100: 86, 120: 87}
"""The lowest PTX ISA version each sm needs (LLVM's default for it)."""
PTX_ISAS: tuple[int, ...] = (
    *(32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65),
    *(70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90),
)
"""The PTX ISA versions LLVM 22's NVPTX back-end knows (`+ptxNN` features);
it ignores any other with a warning, and aborts the process on one too old
for the sm."""
GET_PARAMETER_BUFFER = "__cudaCDP2GetParameterBufferV2"
LAUNCH_DEVICE = "__cudaCDP2LaunchDeviceV2"

PTX_INVALID = re.compile(r"[^A-Za-z0-9_$]")

_LIBDEVICE: list[bytes] = []
_CALLS_LIBDEVICE = re.compile(r"^declare [^\n]*@\"?__nv_", re.MULTILINE)
"""A translated module that declares a libdevice function (`link` links it)."""
_LIBDEVICE_PARTS: dict[frozenset[str], bytes] = {}
"""libdevice cut to a set of functions (and what they call), by that set."""


@dataclass(frozen=True)
class PTXTarget(WmmaMatrices, RecordingTarget):
    """`sm`: compute capability (90 is sm_90); `ptx_isa`: PTX ISA version as
    major*10+minor (78 is 7.8), by default the lowest one the sm needs."""

    subgroup_collectives: ClassVar[bool] = True
    name: ClassVar[str] = "ptx"
    triple: ClassVar[str] = "nvptx64-nvidia-cuda"
    address_spaces: ClassVar[dict[AddressSpace, int]] = {
        AddressSpace.GENERIC: 0,
        AddressSpace.GLOBAL: 1,
        AddressSpace.SHARED: 3,
        AddressSpace.CONSTANT: 4,
        AddressSpace.LOCAL: 5,
    }
    kernel_cconv: ClassVar[str] = "ptx_kernel"
    atomic_scope: ClassVar[str] = "device"  # CUDA's and OpenCL's default scope
    artefacts: ClassVar[tuple[str, ...]] = ("ptx",)
    listing: ClassVar[str] = "ptx"
    executor: ClassVar[str | None] = "gpuc.runtime.cuda:CudaExecutor"
    device: ClassVar[tuple[type, str] | None] = (int, "a CUDA device ordinal")
    max_static_shared_bytes: ClassVar[int | None] = 48 * 1024
    static_shared_limit: ClassVar[str] = (
        "CUDA's limit on static shared memory; more needs dynamic shared memory: "
        "a !gpuc.ptr<T, shared> kernel parameter, launched with "
        "gpuc.SharedMemory(count)"
    )
    debug_emission_kind: ClassVar[str] = "DebugDirectivesOnly"
    """`.file`/`.loc` only, what ptxas's `-lineinfo` reads: a DWARF section, or
    a line-table CU (which makes LLVM write `.target sm_XX, debug`), would ask
    ptxas for a debug build."""
    dwarf_version: ClassVar[int] = 2  # what NVPTX's DWARF supports, as clang's

    sm: int = field(default=90, metadata={"help": "compute capability (default 90)"})
    ptx_isa: int | None = field(
        default=None, metadata={"help": "PTX ISA version, e.g. 78 for 7.8"}
    )

    def __post_init__(self) -> None:
        if isinstance(self.sm, bool) or not isinstance(self.sm, int):
            raise TargetError(f"sm must be an int such as 90, got {self.sm!r}")
        if self.sm not in SUPPORTED_SMS:
            raise TargetError(
                f"sm_{self.sm} is not supported; choose one of "
                + ", ".join(f"sm_{s}" for s in SUPPORTED_SMS)
            )
        if self.ptx_isa is None:
            return
        lowest = MIN_PTX_ISA[self.sm]
        if isinstance(self.ptx_isa, bool) or self.ptx_isa not in PTX_ISAS:
            known = ", ".join(str(v) for v in PTX_ISAS if v >= lowest)
            raise TargetError(
                f"PTX ISA version {self.ptx_isa!r} is not one LLVM emits; choose "
                f"one of {known} (78 is 7.8), or leave it out for the lowest one "
                f"sm_{self.sm} needs"
            )
        if self.ptx_isa < lowest:
            raise TargetError(
                f"sm_{self.sm} needs PTX ISA {lowest // 10}.{lowest % 10} or later, "
                f"not {self.ptx_isa // 10}.{self.ptx_isa % 10}; raise ptx_isa to "
                f"at least {lowest}, or leave it out"
            )

    def verify_module(self, module: ModuleOp) -> None:
        """Kernel parameters of odd integer widths: LLVM declares them as
        `.param .u7`, which is no PTX type (ptxas rejects it). Atomics as
        `atomic_bits` allows. Two functions whose names `symbol_name` spells
        the same (`@"a.b"`, `@"a_$_b"`) would be one PTX symbol."""
        super().verify_module(module)
        spelled: dict[str, str] = {}
        for func in module.ops:
            if not isinstance(func, FuncOp):
                continue
            name = func.sym_name.data
            ptx_name = self.symbol_name(name)
            first = spelled.setdefault(ptx_name, name)
            if first != name:
                raise OpError(
                    func,
                    f"@{first} and @{name} are both named '{ptx_name}' in PTX "
                    "(which spells '.' and other characters outside [A-Za-z0-9_$] "
                    "with '_$'); rename one of them",
                )
            if not func.is_kernel:
                continue
            for position, ty in enumerate(func.function_type.inputs.data):
                if isinstance(ty, IntegerType) and not _ptx_param_width(ty.width.data):
                    raise OpError(
                        func,
                        f"kernel @{func.sym_name.data} takes parameter {position} "
                        f"as {ty}, which a PTX kernel parameter cannot be; take "
                        "i8, i16, i32 or i64 and truncate it in the kernel",
                    )

    def atomic_bits(self) -> int:
        """atom.cas.b128 with sm_90 and PTX ISA 8.3 (without them LLVM prints
        `unsupported cmpxchg` and ends the process), else 64."""
        return 128 if self.sm >= 90 and self._isa() >= 83 else 64

    def atomic_diagnostic(self) -> tuple[str, str]:
        isa = self._isa()
        return (
            f"ptx (sm_{self.sm}, PTX ISA {isa // 10}.{isa % 10})",
            "sm_90 or later and PTX ISA 8.3 or later (--ptx-isa 83)"
            if self.atomic_bits() < 128
            else "",
        )

    def _isa(self) -> int:
        """The PTX ISA version emitted: the option's, else the sm's lowest."""
        return self.ptx_isa if self.ptx_isa is not None else MIN_PTX_ISA[self.sm]

    def prepare_module(self, ml: ModuleLowering) -> None:
        from gpuc.targets.error_record import plan_records

        plan_records(ml)

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        """A kernel with a known block size declares it: `.reqntid x, y, z`
        (LLVM 22 reads the `nvvm.annotations` entry as its `nvvm.reqntid`
        attribute, which llvmlite cannot spell)."""
        from llvmlite import ir

        from gpuc.targets.error_record import name_record

        name_record(ml, func, fn)
        record = ml.records.get(func.sym_name.data)
        block = record.block_size if record is not None else None
        if block is None:
            return
        i32 = ir.IntType(32)
        entry: list[ir.Value] = [fn]
        for axis, size in zip("xyz", block, strict=True):
            entry += [
                ir.MetaDataString(ml.llvm, f"reqntid{axis}"),
                ir.Constant(i32, size),
            ]
        ml.llvm.add_named_metadata("nvvm.annotations", ml.llvm.add_metadata(entry))

    def shared_parameter(self, fl: FunctionLowering, value: ir.Value) -> ir.Value:
        """The launch passes a shared pointer parameter its byte offset into
        the dynamic shared memory (`sharedMemBytes`), which PTX addresses
        through an `.extern .shared` array of no size: the parameter is that
        array's address plus the offset."""
        from llvmlite import ir

        i8, i64 = ir.IntType(8), ir.IntType(64)
        space = self.address_spaces[AddressSpace.SHARED]
        window = fl.ml.llvm.globals.get(DYNAMIC_SHARED)
        if window is None:
            window = ir.GlobalVariable(
                fl.ml.llvm, ir.ArrayType(i8, 0), DYNAMIC_SHARED, addrspace=space
            )
            window.linkage = "external"
            window.align = SHARED_WINDOW_ALIGN
            window.type = ir.PointerType(addrspace=space)  # an opaque pointer
        b = fl.builder
        offset = b.ptrtoint(value, i64, name=f"{value.name}.offset")
        return b.gep(window, [offset], source_etype=i8, name=f"{value.name}.window")

    def symbol_name(self, name: str) -> str:
        """PTX identifiers are `[A-Za-z0-9_$]`: `.` becomes `_$_`, as LLVM's
        NVPTX back-end spells the globals it renames (it leaves functions as
        they are, and ptxas then rejects a `.entry double.kernel`)."""
        return PTX_INVALID.sub(
            lambda m: "_$_" if m.group() == "." else f"_${ord(m.group()):x}_", name
        )

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        return self._special_register(fl, f"{SPECIAL_REGISTERS[kind]}.{'xyz'[dim]}")

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        return self._special_register(fl, "laneid")

    def _special_register(self, fl: FunctionLowering, register: str) -> ir.Value:
        from llvmlite import ir

        i32 = ir.IntType(32)
        read = fl.ml.intrinsic(f"llvm.nvvm.read.ptx.sreg.{register}", i32, [])
        value = fl.builder.zext(fl.builder.call(read, []), fl.ml.index_type)
        return value

    def barrier(self, fl: FunctionLowering) -> None:
        from llvmlite import ir

        sync = fl.ml.intrinsic(
            "llvm.nvvm.barrier.cta.sync.aligned.all",
            ir.VoidType(),
            [ir.IntType(32)],
            ("convergent", "nounwind"),
        )
        fl.builder.call(sync, [ir.Constant(ir.IntType(32), 0)])

    def printf(
        self, fl: FunctionLowering, op: PrintfOp, text: str, values: list[ir.Value]
    ) -> None:
        """CUDA's vprintf, the values packed in a local buffer."""
        from gpuc.targets.printf import vprintf

        vprintf(fl, text, values)

    def prints_failure(self, fl: FunctionLowering) -> bool:
        """A failing assert prints its line, as CUDA's does."""
        return True

    def subgroup_index(self, fl: FunctionLowering, kind: str) -> ir.Value:
        """Warps of 32 threads in linear thread order, as CUDA's."""
        from gpuc.lowering.subgroup import warp_index

        return self.lane_id(fl) if kind == "lane_id" else warp_index(fl, kind)

    def read_lane(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, lane: ir.Value
    ) -> ir.Value:
        """`shfl.sync.idx` over the warp's lanes (`lane` one of them); 64 bits
        as two halves."""
        from llvmlite import ir

        from gpuc.lowering.subgroup import by_words

        i32 = ir.IntType(32)
        shfl = fl.ml.intrinsic(
            "llvm.nvvm.shfl.sync.idx.i32",
            i32,
            [i32, i32, i32, i32],
            ("convergent", "nounwind"),
        )
        mask = self._warp_mask(fl)

        def read(word: ir.Value) -> ir.Value:
            args = [mask, word, lane, ir.Constant(i32, 31)]
            return fl.builder.call(shfl, args)

        return by_words(fl.builder, value, read)

    def subgroup_reduce(
        self, fl: FunctionLowering, op: Operation, kind: ReduceKind, value: ir.Value
    ) -> ir.Value:
        from gpuc.lowering.subgroup import shuffle_tree_reduce

        return shuffle_tree_reduce(fl, op, self, kind, value)

    def vote(
        self, fl: FunctionLowering, op: Operation, kind: VoteKind, value: ir.Value
    ) -> ir.Value:
        """`vote.sync.any` / `vote.sync.all` over the warp's lanes."""
        from llvmlite import ir

        i1, i32 = ir.IntType(1), ir.IntType(32)
        vote = fl.ml.intrinsic(
            f"llvm.nvvm.vote.{kind.value}.sync",
            i1,
            [i32, i1],
            ("convergent", "nounwind"),
        )
        return fl.builder.call(vote, [self._warp_mask(fl), value])

    def ballot(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, width: int
    ) -> ir.Value:
        """`vote.sync.ballot.b32` over the warp's lanes (an i64 mask's high
        half is 0)."""
        from llvmlite import ir

        i1, i32 = ir.IntType(1), ir.IntType(32)
        ballot = fl.ml.intrinsic(
            "llvm.nvvm.vote.ballot.sync", i32, [i32, i1], ("convergent", "nounwind")
        )
        mask = fl.builder.call(ballot, [self._warp_mask(fl), value])
        return fl.builder.zext(mask, ir.IntType(width)) if width > 32 else mask

    def _warp_mask(self, fl: FunctionLowering) -> ir.Value:
        """The member mask of the thread's warp: the lanes it has (a block's
        last warp may have fewer than 32), as `shfl.sync` and `vote.sync`
        require."""
        from gpuc.lowering.subgroup import subgroup_lanes_mask, warp_index

        return subgroup_lanes_mask(fl.builder, warp_index(fl, "subgroup_size"), 32)

    def fence(
        self,
        fl: FunctionLowering,
        op: Operation,
        scope: FenceScope,
        ordering: MemoryOrder,
    ) -> None:
        """LLVM's fence at NVPTX's scope (`fence.sc` or `fence.acq_rel` with
        `.cta`, `.gpu` or `.sys`)."""
        from gpuc.lowering.fence import llvm_fence

        llvm_fence(fl, FENCE_SCOPES[scope.value], ordering)

    def launch(self, fl: FunctionLowering, op: LaunchOp) -> None:
        """`cudaGetParameterBufferV2(kernel, grid, block, shared)`, the arguments
        stored at their natural alignment, then `cudaLaunchDeviceV2(buffer, 0)`;
        a null buffer (the launch pool is exhausted) skips the launch, like nvcc."""
        from llvmlite import ir

        from gpuc.dialects.analysis import element_bytes

        b = fl.builder
        i32, ptr = ir.IntType(32), ir.PointerType()
        dim3 = ir.LiteralStructType([i32, i32, i32])
        get_buffer = fl.ml.intrinsic(GET_PARAMETER_BUFFER, ptr, [ptr, dim3, dim3, i32])
        launch = fl.ml.intrinsic(LAUNCH_DEVICE, i32, [ptr, ptr])

        def dims(values: list[ir.Value]) -> ir.Value:
            result: ir.Value = ir.Constant(dim3, [ir.Constant(i32, 1)] * 3)
            for i, value in enumerate(values):
                result = b.insert_value(result, b.trunc(value, i32), i)
            return result

        shared = (
            b.trunc(fl.get(op.shared[0]), i32) if op.shared else ir.Constant(i32, 0)
        )
        kernel = fl.ml.functions[op.kernel.root_reference.data]
        buffer = b.call(
            get_buffer,
            [
                kernel,
                dims([fl.get(v) for v in op.grid]),
                dims([fl.get(v) for v in op.block]),
                shared,
            ],
        )
        with b.if_then(b.icmp_unsigned("!=", buffer, ir.Constant(ptr, None))):
            offset = 0
            for value in op.args:
                size = element_bytes(value.type)
                offset = (offset + size - 1) // size * size
                slot = b.gep(
                    buffer, [ir.Constant(i32, offset)], source_etype=ir.IntType(8)
                )
                b.store(fl.get(value), slot, align=size)
                offset += size
            b.call(launch, [buffer, ir.Constant(ptr, None)])

    def math_function(self, name: str, ty: ir.Type) -> str:
        if name in NATIVE_MATH:
            return super().math_function(name, ty)
        return f"__nv_{name}{'f' if str(ty) == 'float' else ''}"

    def link_inputs(self, translated: str) -> tuple[str, ...]:
        """libdevice, where `link` reads it."""
        return (
            ("gpuc.tools:libdevice_identity",)
            if _CALLS_LIBDEVICE.search(translated)
            else ()
        )

    def link(self, module: llvm.ModuleRef) -> None:
        """Link libdevice when the module calls it; its functions become internal
        so the optimizer drops the ones not used."""
        wanted = frozenset(
            f.name
            for f in module.functions
            if f.is_declaration and f.name.startswith("__nv_")
        )
        if not wanted:
            return
        from llvmlite import binding as llvm

        library = llvm.parse_bitcode(self.libdevice_part(wanted))
        library.triple = module.triple
        library.data_layout = module.data_layout
        defined = {f.name for f in library.functions if not f.is_declaration}
        module.link_in(library)
        for fn in module.functions:
            if fn.name in defined:
                fn.linkage = "internal"
        pm = llvm.create_new_module_pass_manager()
        pm.add_global_dead_code_eliminate_pass()
        tuning = llvm.create_pipeline_tuning_options(0)
        pm.run(module, llvm.create_pass_builder(self.target_machine(0), tuning))

    def libdevice_part(self, wanted: frozenset[str]) -> bytes:
        """The bitcode of libdevice's functions `wanted` and what they call,
        made once per process and set of functions: linking all of libdevice
        into every module cost most of a warm compile."""
        cached = _LIBDEVICE_PARTS.get(wanted)
        if cached is not None:
            return cached
        from llvmlite import binding as llvm

        from gpuc.tools import libdevice

        if not _LIBDEVICE:
            _LIBDEVICE.append(libdevice().read_bytes())
        # Parsing the bitcode again takes two thirds of cloning a parsed copy.
        library = llvm.parse_bitcode(_LIBDEVICE[0])
        library.triple = self.triple
        for fn in library.functions:
            if not fn.is_declaration and fn.name not in wanted:
                fn.linkage = "internal"
        pm = llvm.create_new_module_pass_manager()
        pm.add_global_dead_code_eliminate_pass()
        tuning = llvm.create_pipeline_tuning_options(0)
        pm.run(library, llvm.create_pass_builder(self.target_machine(0), tuning))
        part: bytes = library.as_bitcode()
        _LIBDEVICE_PARTS[wanted] = part
        return part

    def target_machine(self, opt_level: int) -> llvm.TargetMachine:
        from llvmlite import binding as llvm

        features = f"+ptx{self.ptx_isa}" if self.ptx_isa is not None else ""
        return llvm.Target.from_triple(self.triple).create_target_machine(
            cpu=f"sm_{self.sm}", features=features, opt=opt_level
        )

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> str:
        return str(tm.emit_assembly(module))

    def validate(self, artefact: bytes | str) -> None:
        from gpuc.tools import run_ptxas

        assert isinstance(artefact, str)
        run_ptxas(artefact, self.sm, compile_only=relocatable(artefact))


def _ptx_param_width(bits: int) -> bool:
    """i1 and power-of-two widths from 8 bits are PTX parameter types."""
    return bits == 1 or (bits >= 8 and bits & (bits - 1) == 0)


def relocatable(ptx: str) -> bool:
    """PTX that calls functions defined elsewhere (the device runtime) links
    later; `vprintf` (gpuc.printf) is the driver's own, which ptxas knows."""
    return any(
        line.startswith(".extern .func") and not line.rstrip().endswith(" vprintf")
        for line in ptx.splitlines()
    )
