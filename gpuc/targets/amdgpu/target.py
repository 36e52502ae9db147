"""AMD GPUs (GCN, CDNA, RDNA) through LLVM's AMDGPU back-end, as an HSA code
object (`.hsaco`): LLVM's object for the module linked by `ld.lld -shared`.

Kernels are `amdgpu_kernel`; index ops read the work-item and work-group ids,
and the block size and block count from the code object v5 implicit kernel
arguments (as HIP does), so no dispatch-pointer SGPRs are needed; the barrier
is `s.barrier` between workgroup-scope fences; atomics are agent-scoped. Math
is what the back-end selects from LLVM intrinsics; the rest would need ROCm's
device library (ocml), which gpuc does not link: `verify_module` says so.
`--validate` reads the code object back with llvm-readelf and llvm-objdump.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import ModuleOp

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace
from gpuc.dialects.functions import FuncOp, LaunchOp
from gpuc.targets.base import RecordingTarget, TargetError

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.ir import Operation

    from gpuc.dialects.attrs import MemoryOrder
    from gpuc.dialects.fence import FenceScope
    from gpuc.dialects.subgroup import ReduceKind, VoteKind
    from gpuc.lowering.context import FunctionLowering, ModuleLowering
    from gpuc.targets.common import Emitted

ARCHS: tuple[str, ...] = (
    *("gfx801", "gfx802", "gfx803", "gfx805", "gfx810"),
    *("gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a"),
    *("gfx90c", "gfx942", "gfx950"),
    *("gfx1010", "gfx1011", "gfx1012", "gfx1013"),
    *("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"),
    *("gfx1100", "gfx1101", "gfx1102", "gfx1103"),
    *("gfx1150", "gfx1151", "gfx1152", "gfx1153"),
    *("gfx1200", "gfx1201", "gfx1250", "gfx1251"),
)
"""The processors of LLVM 22's AMDGPU back-end (`llc-22 -march=amdgcn
-mcpu=help`) that gpuc's code objects serve: not gfx6 (no HSA) or gfx7 (no
disassembler to validate with), nor the `-generic` ones, which need code
object v6 (LLVM ends the process on them under v5)."""
DEFAULT_ARCH = "gfx90a"
FENCE_SCOPES = {"block": "workgroup", "device": "agent", "system": ""}
"""gpuc.fence scope -> the AMDGPU `syncscope` (the default is the system)."""
CODE_OBJECT_VERSION = 500
IMPLICIT_ARGS = {"grid_dim": (0, 32), "block_dim": (12, 16)}
"""Code object v5 implicit arguments: (offset, bits) of the x component of
hidden_block_count (u32 each) and hidden_group_size (u16 each)."""
NATIVE_MATH = {
    "float": frozenset(
        {
            *("sqrt", "fabs", "ceil", "floor", "trunc", "round", "roundeven"),
            *("fma", "copysign", "exp", "exp2", "exp10", "log", "log2", "log10"),
        }
    ),
    "double": frozenset(
        {"sqrt", "fabs", "ceil", "floor", "trunc", "round", "roundeven", "fma"}
        | {"copysign"}
    ),
}
"""Math functions the AMDGPU back-end selects from LLVM intrinsics at full
accuracy, by type (sin and cos select to v_sin/v_cos, which are approximate)."""
METADATA_KEYS = (
    ".name",
    ".args",
    ".group_segment_fixed_size",
    ".vgpr_count",
    ".sgpr_count",
)
"""What `validate` requires of every kernel's entry in the code object notes."""


@dataclass(frozen=True)
class AMDGPUTarget(RecordingTarget):
    """`arch`: the GPU processor, e.g. gfx90a (MI200), gfx942 (MI300), gfx1100
    (RDNA 3)."""

    subgroup_collectives: ClassVar[bool] = True
    name: ClassVar[str] = "amdgpu"
    triple: ClassVar[str] = "amdgcn-amd-amdhsa"
    address_spaces: ClassVar[dict[AddressSpace, int]] = {
        AddressSpace.GENERIC: 0,
        AddressSpace.GLOBAL: 1,
        AddressSpace.SHARED: 3,
        AddressSpace.CONSTANT: 4,
        AddressSpace.LOCAL: 5,
    }
    kernel_cconv: ClassVar[str] = "amdgpu_kernel"
    alloca_address_space: ClassVar[int] = 5  # the data layout's A5
    atomic_scope: ClassVar[str] = "agent"  # HIP's default scope: the whole GPU
    artefacts: ClassVar[tuple[str, ...]] = ("hsaco", "asm", "obj")
    listing: ClassVar[str] = "asm"
    executor: ClassVar[str | None] = "gpuc.runtime.hip:HipExecutor"
    device: ClassVar[tuple[type, str] | None] = (int, "a HIP device ordinal")
    max_static_shared_bytes: ClassVar[int | None] = 64 * 1024
    static_shared_limit: ClassVar[str] = "the LDS one workgroup can use"

    arch: str = field(
        default=DEFAULT_ARCH,
        metadata={"help": f"GPU processor, e.g. gfx1100 (default {DEFAULT_ARCH})"},
    )

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise TargetError(
                f"arch {self.arch!r} is not an AMDGPU processor LLVM 22 emits "
                f"code objects for; choose one of {', '.join(ARCHS)}"
            )

    def verify_module(self, module: ModuleOp) -> None:
        """Device-side launches, math functions the back-end cannot select
        (LLVM would end the process on the library call), and atomics as
        `atomic_bits` allows."""
        from gpuc.lowering.math import FLOAT_FUNCTIONS

        super().verify_module(module)
        for op in module.walk():
            if isinstance(op, LaunchOp):
                raise OpError(
                    op,
                    "launches a kernel from the device, which the amdgpu target "
                    "cannot do (HIP has no device-side launch); launch the child "
                    "kernel from the host instead",
                )
            if op.name == "gpuc.printf":
                raise OpError(
                    op,
                    "prints, which the amdgpu target cannot do: AMD's device "
                    "printf is a hostcall through ROCm's device library (ockl), "
                    "which gpuc does not link; write the values to an output "
                    "array, or print on ptx, spirv or native",
                )
            name = FLOAT_FUNCTIONS.get(type(op))
            if name is None or not op.operands:
                continue
            ty = op.operands[0].type
            llvm_type = {"f32": "float", "f64": "double"}.get(str(ty))
            if llvm_type is not None and name not in NATIVE_MATH[llvm_type]:
                raise OpError(
                    op,
                    f"computes {name} on {ty}, which LLVM's AMDGPU back-end "
                    "cannot select at full accuracy (it needs ROCm's device "
                    "library, ocml, which gpuc does not link); on "
                    f"{ty} the amdgpu target computes "
                    + ", ".join(sorted(NATIVE_MATH[llvm_type])),
                )

    def prepare_module(self, ml: ModuleLowering) -> None:
        from gpuc.targets.error_record import plan_records

        plan_records(ml)

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        from llvmlite import ir

        i32, b = ir.IntType(32), fl.builder
        if kind in ("thread_id", "block_id"):
            what = "workitem" if kind == "thread_id" else "workgroup"
            read = fl.ml.intrinsic(
                f"llvm.amdgcn.{what}.id.{'xyz'[dim]}", i32, [], ("nounwind",)
            )
            return b.zext(b.call(read, []), fl.ml.index_type)
        base, bits = IMPLICIT_ARGS[kind]
        implicit = fl.ml.intrinsic(
            "llvm.amdgcn.implicitarg.ptr",
            ir.PointerType(addrspace=self.address_spaces[AddressSpace.CONSTANT]),
            [],
            ("nounwind",),
        )
        offset = ir.Constant(i32, base + dim * bits // 8)
        slot = b.gep(b.call(implicit, []), [offset], source_etype=ir.IntType(8))
        value = b.load(slot, typ=ir.IntType(bits), align=bits // 8)
        value.set_metadata("invariant.load", fl.ml.llvm.add_metadata([]))
        return b.zext(value, fl.ml.index_type)

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        """`mbcnt.hi(~0, mbcnt.lo(~0, 0))`: the active lanes below this one
        (all of them in a convergent region); on wave32 the high half adds 0."""
        from llvmlite import ir

        i32, b = ir.IntType(32), fl.builder
        lo = fl.ml.intrinsic("llvm.amdgcn.mbcnt.lo", i32, [i32, i32], ("nounwind",))
        hi = fl.ml.intrinsic("llvm.amdgcn.mbcnt.hi", i32, [i32, i32], ("nounwind",))
        ones = ir.Constant(i32, -1)
        lane = b.call(hi, [ones, b.call(lo, [ones, ir.Constant(i32, 0)])])
        return b.zext(lane, fl.ml.index_type)

    def barrier(self, fl: FunctionLowering) -> None:
        """Workgroup release fence, s_barrier, workgroup acquire fence: what
        HIP's `__syncthreads()` is, so shared memory writes before the barrier
        are seen after it."""
        from llvmlite import ir

        barrier = fl.ml.intrinsic(
            "llvm.amdgcn.s.barrier", ir.VoidType(), [], ("convergent", "nounwind")
        )
        fl.builder.fence("release", "workgroup")
        fl.builder.call(barrier, [])
        fl.builder.fence("acquire", "workgroup")

    @property
    def wave_lanes(self) -> int:
        """Threads per wavefront: 64 on GCN and CDNA (gfx8, gfx9), 32 on RDNA
        (gfx10 and later, LLVM's default there)."""
        return 32 if self.arch.startswith("gfx1") else 64

    def subgroup_index(self, fl: FunctionLowering, kind: str) -> ir.Value:
        """Wavefronts of consecutive threads in linear order, as HIP's."""
        from gpuc.lowering.subgroup import warp_index

        if kind == "lane_id":
            return self.lane_id(fl)
        return warp_index(fl, kind, self.wave_lanes)

    def read_lane(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, lane: ir.Value
    ) -> ir.Value:
        """`ds_bpermute` (addressed in bytes); 64 bits as two halves."""
        from llvmlite import ir

        from gpuc.lowering.subgroup import by_words

        i32 = ir.IntType(32)
        bpermute = fl.ml.intrinsic(
            "llvm.amdgcn.ds.bpermute", i32, [i32, i32], ("convergent", "nounwind")
        )
        address = fl.builder.shl(lane, ir.Constant(i32, 2))
        return by_words(
            fl.builder, value, lambda word: fl.builder.call(bpermute, [address, word])
        )

    def subgroup_reduce(
        self, fl: FunctionLowering, op: Operation, kind: ReduceKind, value: ir.Value
    ) -> ir.Value:
        from gpuc.lowering.subgroup import shuffle_tree_reduce

        return shuffle_tree_reduce(fl, op, self, kind, value, self.wave_lanes)

    def vote(
        self, fl: FunctionLowering, op: Operation, kind: VoteKind, value: ir.Value
    ) -> ir.Value:
        """The wavefront's ballot of the predicate against that of its lanes."""
        from llvmlite import ir

        from gpuc.lowering.subgroup import vote_by_ballot

        lanes = self.ballot(fl, op, ir.Constant(ir.IntType(1), 1), self.wave_lanes)
        mask = self.ballot(fl, op, value, self.wave_lanes)
        return vote_by_ballot(fl.builder, kind, mask, lanes)

    def ballot(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, width: int
    ) -> ir.Value:
        """`llvm.amdgcn.ballot` at the wavefront's width; an i32 mask of a
        64-lane wavefront would lose lanes, so it is refused."""
        from llvmlite import ir

        lanes = self.wave_lanes
        if width < lanes:
            raise OpError(
                op,
                f"gives an i{width} mask, but a wavefront of {self.arch} has "
                f"{lanes} lanes; use i{lanes}",
            )
        ty = ir.IntType(lanes)
        ballot = fl.ml.intrinsic(
            f"llvm.amdgcn.ballot.i{lanes}",
            ty,
            [ir.IntType(1)],
            ("convergent", "nounwind"),
        )
        mask = fl.builder.call(ballot, [value])
        return fl.builder.zext(mask, ir.IntType(width)) if width > lanes else mask

    def fence(
        self,
        fl: FunctionLowering,
        op: Operation,
        scope: FenceScope,
        ordering: MemoryOrder,
    ) -> None:
        """LLVM's fence at the AMDGPU memory model's scope (workgroup, agent,
        system)."""
        from gpuc.lowering.fence import llvm_fence

        llvm_fence(fl, FENCE_SCOPES[scope.value], ordering)

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        """A kernel with a known block size declares it as clang does for
        OpenCL C's `reqd_work_group_size`: that metadata (the notes'
        `.reqd_workgroup_size`) and the flat work-group size it implies (the
        notes' `.max_flat_workgroup_size`; the back-end allots registers for
        it)."""
        from llvmlite import ir

        from gpuc.targets.error_record import name_record

        name_record(ml, func, fn)
        record = ml.records.get(func.sym_name.data)
        block = record.block_size if record is not None else None
        if block is None:
            return
        sizes = [ir.Constant(ir.IntType(32), size) for size in block]
        fn.set_metadata("reqd_work_group_size", ml.llvm.add_metadata(sizes))
        threads = block[0] * block[1] * block[2]
        fn.attributes = string_attributes(fn.attributes)
        fn.attributes.add(f'"amdgpu-flat-work-group-size"="{threads},{threads}"')

    def finish_module(self, ml: ModuleLowering) -> None:
        """Pin the code object version the implicit-argument offsets assume."""
        from llvmlite import ir

        i32 = ir.IntType(32)
        flag = ml.llvm.add_metadata(
            [
                ir.Constant(i32, 1),  # Error: modules that disagree do not link
                ir.MetaDataString(ml.llvm, "amdhsa_code_object_version"),
                ir.Constant(i32, CODE_OBJECT_VERSION),
            ]
        )
        ml.llvm.add_named_metadata("llvm.module.flags", flag)

    def target_machine(self, opt_level: int) -> llvm.TargetMachine:
        from llvmlite import binding as llvm

        return llvm.Target.from_triple(self.triple).create_target_machine(
            cpu=self.arch, opt=opt_level, reloc="pic"
        )

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes:
        """The object LLVM emits, linked into a code object by ld.lld."""
        from gpuc.tools import llvm_tool, run_tool

        with tempfile.TemporaryDirectory(prefix="gpuc-amdgpu-") as tmp:
            obj, hsaco = Path(tmp) / "kernel.o", Path(tmp) / "kernel.hsaco"
            obj.write_bytes(object_code(module, tm))
            run_tool(
                [llvm_tool("ld.lld"), "-shared", "--no-undefined", obj, "-o", hsaco],
                f"ld.lld ({self.arch})",
                tmp,
            )
            return hsaco.read_bytes()

    def render(self, kind: str, c: Emitted) -> bytes | str:
        """`hsaco`: the code object; `asm`: LLVM's assembly; `obj`: the object
        before linking."""
        assert c.llvm_module is not None and c.machine is not None
        if kind == "asm":
            return str(c.machine.emit_assembly(c.llvm_module.clone()))
        if kind == "obj":
            return object_code(c.llvm_module, c.machine)
        assert c.artefact is not None
        return c.artefact

    def validate(self, artefact: bytes | str) -> None:
        """Every kernel descriptor (`<kernel>.kd`) has its metadata in the
        notes, and llvm-objdump disassembles the code."""
        from gpuc.tools import ToolError, llvm_tool, run_tool

        assert isinstance(artefact, bytes)
        with tempfile.TemporaryDirectory(prefix="gpuc-amdgpu-") as tmp:
            path = Path(tmp) / "kernel.hsaco"
            path.write_bytes(artefact)
            kernels = kernel_metadata(artefact)
            descriptors = code_object_symbols(artefact, "OBJECT")
            for symbol in descriptors:
                if not symbol.endswith(".kd"):
                    continue
                entry = kernels.get(symbol.removesuffix(".kd"))
                missing = [k for k in METADATA_KEYS if entry is None or k not in entry]
                if missing:
                    raise ToolError(
                        f"the code object's notes lack {', '.join(missing)} for "
                        f"kernel {symbol.removesuffix('.kd')}"
                    )
            run_tool([llvm_tool("llvm-objdump"), "-d", path], "llvm-objdump", tmp)


def string_attributes(attributes: ir.FunctionAttributes) -> ir.FunctionAttributes:
    """`attributes` in a set that also takes LLVM's string attributes
    (`"name"="value"`), which llvmlite's refuses."""
    from llvmlite import ir

    class StringAttributes(ir.FunctionAttributes):  # type: ignore[misc]
        def add(self, name: str) -> None:
            if name.startswith('"'):
                set.add(self, name)
            else:
                super().add(name)

    copy = StringAttributes(attributes)
    copy.alignstack, copy.personality = attributes.alignstack, attributes.personality
    return copy


def object_code(module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes:
    """The object of a copy of `module`: AMDGPU's code generation rewrites the
    IR it runs on (`llvm.amdgcn.if`), and a second emission from the same
    module ends the process ("Cannot select")."""
    return bytes(tm.emit_object(module.clone()))


def kernel_metadata(hsaco: bytes) -> dict[str, dict[str, Any]]:
    """Each kernel's entry of the code object's AMDGPU metadata note (what
    `llvm-readelf --notes` prints), by kernel name: scalar values as strings,
    `.args` as a list of dicts."""
    from gpuc.tools import llvm_tool, run_tool

    with tempfile.TemporaryDirectory(prefix="gpuc-amdgpu-") as tmp:
        path = Path(tmp) / "kernel.hsaco"
        path.write_bytes(hsaco)
        notes = run_tool(
            [llvm_tool("llvm-readelf"), "--notes", path], "llvm-readelf", tmp
        ).stdout
    return {k[".name"]: k for k in _kernel_entries(notes) if ".name" in k}


KEY = re.compile(r"^(\s*)(- )?(\.[\w.]+):\s*(.*?)\s*$")


def _kernel_entries(notes: str) -> list[dict[str, Any]]:
    """The `amdhsa.kernels` list of the notes' YAML: kernels at indent 2,
    their keys at 4, `.args` entries at 6 and their keys at 8."""
    kernels: list[dict[str, Any]] = []
    inside = False
    for line in notes.splitlines():
        if line.startswith("amdhsa.kernels:"):
            inside = True
            continue
        if inside and line and not line.startswith(" "):
            break
        match = KEY.match(line) if inside else None
        if match is None:
            continue
        indent, dash, key, value = match.groups()
        depth = len(indent) + (2 if dash else 0)
        if depth == 4:
            if dash:
                kernels.append({})
            kernels[-1][key] = [] if key == ".args" else value.strip("'\"")
        elif depth == 8 and kernels and isinstance(kernels[-1].get(".args"), list):
            if dash:
                kernels[-1][".args"].append({})
            kernels[-1][".args"][-1][key] = value.strip("'\"")
    return kernels


def code_object_symbols(hsaco: bytes, kind: str) -> dict[str, str]:
    """The code object's symbols of ELF type `kind` (FUNC, OBJECT), with
    their binding (LOCAL, GLOBAL), from `llvm-readelf --symbols`."""
    from gpuc.tools import llvm_tool, run_tool

    with tempfile.TemporaryDirectory(prefix="gpuc-amdgpu-") as tmp:
        path = Path(tmp) / "kernel.hsaco"
        path.write_bytes(hsaco)
        table = run_tool(
            [llvm_tool("llvm-readelf"), "--symbols", "--wide", path],
            "llvm-readelf",
            tmp,
        ).stdout
    symbols: dict[str, str] = {}
    for line in table.splitlines():
        columns = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(columns) == 8 and columns[3] == kind:
            symbols[columns[7]] = columns[4]
    return symbols
