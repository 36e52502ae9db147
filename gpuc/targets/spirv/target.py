"""SPIR-V for OpenCL (the Kernel environment) through LLVM's SPIR-V back-end,
validated by spirv-val: the target's hooks.

Kernels are `spir_kernel`, helpers `spir_func`; index ops use LLVM's SPIR-V
intrinsics (so the built-in variables need no Linkage capability); the barrier
is OpenCL's `barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)`, declared
`convergent nounwind` so LLVM never duplicates it into divergent paths; math
without an LLVM intrinsic calls OpenCL builtins. LLVM's back-end ends the
process (`LLVM ERROR`) on IR it cannot express, so `verify_module` rejects all
of that first (checks.py). Float atomic add uses SPV_EXT_shader_atomic_float_add
(enabled); float atomic min/max become compare-exchange loops. What the
back-end miscompiles is patched in the LLVM IR text before emission
(ir_patches.py). Code generation runs in a fresh process (isolation.py): LLVM
22's back-end carries state from one module into the next, which made the
output change between compiles of the same input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AddressSpace
from gpuc.dialects.functions import FuncOp
from gpuc.targets.base import RecordingTarget
from gpuc.targets.common import LLVM_MATH
from gpuc.targets.spirv.checks import check_module
from gpuc.targets.spirv.ir_patches import patched
from gpuc.targets.spirv.lane_matrices import LaneMatrices

if TYPE_CHECKING:
    from llvmlite import binding as llvm
    from llvmlite import ir
    from xdsl.passes import ModulePass

    from gpuc.dialects.attrs import MemoryOrder
    from gpuc.dialects.fence import FenceScope
    from gpuc.dialects.printf import PrintfOp
    from gpuc.dialects.subgroup import ReduceKind, VoteKind
    from gpuc.lowering.context import FunctionLowering, ModuleLowering
    from gpuc.targets.common import Emitted

EXTENSIONS = (
    "SPV_EXT_shader_atomic_float_add",
    # gpuc's printf formats are all in the constant address space, but LLVM
    # 22's SPIR-V back-end believes one is not in some modules of several
    # printing kernels (a kernel without parameters beside another, or one
    # whose printf is in a branch) and stops unless it may declare this; the
    # code it then emits is the same, formats in UniformConstant.
    "SPV_EXT_relaxed_printf_string_address_space",
)
"""SPIR-V extensions LLVM may use; everything needing another is rejected."""
INTRINSICS = {
    "thread_id": "llvm.spv.thread.id.in.group",
    "block_id": "llvm.spv.group.id",
    "block_dim": "llvm.spv.workgroup.size",
    "grid_dim": "llvm.spv.num.workgroups",
}
SUBGROUP_INTRINSICS = {
    "subgroup_id": "llvm.spv.subgroup.id",
    "subgroup_size": "llvm.spv.subgroup.size",
    "num_subgroups": "llvm.spv.num.subgroups",
    "max_subgroup_size": "llvm.spv.subgroup.max.size",
}
CLK_LOCAL_AND_GLOBAL_MEM_FENCE = 3
OPENCL_MEMORY_ORDERS = {"acquire": 2, "release": 3, "acq_rel": 4, "seq_cst": 5}
OPENCL_MEMORY_SCOPES = {"block": 1, "device": 2, "system": 3}
"""gpuc.fence scope -> OpenCL's memory_scope (work_group, device, all_svm_devices)."""
UNIFORM_REDUCTIONS = {
    "add": "reduce_add",
    "min": "reduce_min",
    "max": "reduce_max",
    "umin": "reduce_min",
    "umax": "reduce_max",
    "minimum": "reduce_min",
    "maximum": "reduce_max",
}
"""Reduction kinds cl_khr_subgroups has (on unsigned types for umin and umax)."""
SIGNED_CODES = {"i32": "i", "i64": "l", "float": "f", "double": "d"}
UNSIGNED_CODES = {"i32": "j", "i64": "m"}
OPENCL_VERSION = (3, 0)


class _DeviceKind(type):
    def __instancecheck__(cls, value: object) -> bool:
        return isinstance(value, str) or all(
            hasattr(value, attribute) for attribute in ("context", "device", "finish")
        )


class OpenCLDevice(metaclass=_DeviceKind):
    """What the spirv executor's `device=` takes: a fragment of an OpenCL
    device's name (a str), or a queue (a `pyopencl.CommandQueue`: the
    executor runs on its context and queue, so that the caller's own
    pyopencl arrays and buffers are launch arguments). A class only for
    isinstance: compiling never imports pyopencl."""


@dataclass(frozen=True)
class SPIRVTarget(LaneMatrices, RecordingTarget):
    subgroup_collectives: ClassVar[bool] = True
    compile_weight: ClassVar[int] = 1
    """SPIR-V took 1.1x a PTX compile (the variants of bench/compile_server.py)."""
    name: ClassVar[str] = "spirv"
    triple: ClassVar[str] = "spirv64-unknown-unknown"
    address_spaces: ClassVar[dict[AddressSpace, int]] = {
        AddressSpace.LOCAL: 0,
        AddressSpace.GLOBAL: 1,
        AddressSpace.CONSTANT: 2,
        AddressSpace.SHARED: 3,
        AddressSpace.GENERIC: 4,
    }
    kernel_cconv: ClassVar[str] = "spir_kernel"
    helper_cconv: ClassVar[str] = "spir_func"
    atomic_scope: ClassVar[str] = "device"  # CUDA's and OpenCL's default scope
    exact_float_minmax: ClassVar[bool] = False  # they become OpenCL fmax, fmin
    artefacts: ClassVar[tuple[str, ...]] = ("spirv", "spirv-asm")
    listing: ClassVar[str] = "spirv-asm"
    executor: ClassVar[str | None] = "gpuc.runtime.opencl:OpenCLExecutor"
    device: ClassVar[tuple[type, str] | None] = (
        OpenCLDevice,
        "a fragment of an OpenCL device's name, or a pyopencl.CommandQueue "
        "whose context and queue the executor uses",
    )
    cas_atomics: ClassVar[frozenset[str]] = frozenset({"fmin", "fmax"})
    narrowest_atomic_bits: ClassVar[int] = 32  # OpenCL's atomics: 32 and 64 bits
    # Intel's CPU runtime cannot build an f64 OpAtomicFAddEXT (it looks for
    # atomic_xchg(double), which it lacks): found by the fuzzer, seed 50112.
    cas_typed_atomics: ClassVar[frozenset[tuple[str, str]]] = frozenset(
        {("fadd", "double")}
    )
    max_static_shared_bytes: ClassVar[int | None] = 32 * 1024
    static_shared_limit: ClassVar[str] = (
        "the CL_DEVICE_LOCAL_MEM_SIZE every full-profile OpenCL device has at "
        "least; gpuc does not ask the device for more"
    )

    def verify_module(self, module: ModuleOp) -> None:
        super().verify_module(module)
        check_module(module)

    def prepare_module(self, ml: ModuleLowering) -> None:
        from gpuc.targets.error_record import plan_records

        plan_records(ml)

    def index(self, fl: FunctionLowering, kind: str, dim: int) -> ir.Value:
        return self._builtin(fl, INTRINSICS[kind], dim)

    def global_id(self, fl: FunctionLowering, dim: int) -> ir.Value:
        return self._builtin(fl, "llvm.spv.thread.id", dim)

    def _builtin(self, fl: FunctionLowering, name: str, dim: int) -> ir.Value:
        from llvmlite import ir

        index, i32 = fl.ml.index_type, ir.IntType(32)
        fn = fl.ml.intrinsic(f"{name}.i{index.width}", index, [i32])
        return fl.builder.call(fn, [ir.Constant(i32, dim)])

    def lane_id(self, fl: FunctionLowering) -> ir.Value:
        from llvmlite import ir

        fn = fl.ml.intrinsic(
            "llvm.spv.subgroup.local.invocation.id", ir.IntType(32), []
        )
        return fl.builder.zext(fl.builder.call(fn, []), fl.ml.index_type)

    def barrier(self, fl: FunctionLowering) -> None:
        from llvmlite import ir

        i32 = ir.IntType(32)
        fn = fl.ml.intrinsic(
            "_Z7barrierj", ir.VoidType(), [i32], ("convergent", "nounwind")
        )
        fn.calling_convention = self.helper_cconv
        call = fl.builder.call(fn, [ir.Constant(i32, CLK_LOCAL_AND_GLOBAL_MEM_FENCE)])
        call.attributes.add("convergent")

    def printf(
        self, fl: FunctionLowering, op: PrintfOp, text: str, values: list[ir.Value]
    ) -> None:
        """OpenCL's printf, the format in the constant address space."""
        from gpuc.targets.printf import opencl_printf

        opencl_printf(fl, text, values)

    def prints_failure(self, fl: FunctionLowering) -> bool:
        """Whether a failing assert of `fl`'s function prints its line, as
        decided before the lowering: a kernel's record says `prints`, a
        helper is marked by plan-printing (printf only in kernels)."""
        from gpuc.targets.spirv.plan_printing import PRINTS_FAILURES_ATTR

        record = fl.ml.records.get(fl.func.sym_name.data)
        if record is not None:
            return record.reaches_print
        return PRINTS_FAILURES_ATTR in fl.func.attributes

    def dialect_passes(self) -> tuple[ModulePass, ...]:
        """plan-printing: which helpers print, so are inlined into their
        kernels, decided in the IR (gpuc/targets/spirv/plan_printing.py)."""
        from gpuc.targets.spirv.plan_printing import PlanPrinting

        return (PlanPrinting(),)

    def subgroup_index(self, fl: FunctionLowering, kind: str) -> ir.Value:
        """The sub-group built-in variables, through LLVM's SPIR-V intrinsics."""
        from llvmlite import ir

        if kind == "lane_id":
            return self.lane_id(fl)
        fn = fl.ml.intrinsic(SUBGROUP_INTRINSICS[kind], ir.IntType(32), [])
        return fl.builder.zext(fl.builder.call(fn, []), fl.ml.index_type)

    def read_lane(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, lane: ir.Value
    ) -> ir.Value:
        """OpenCL's `sub_group_shuffle` (cl_khr_subgroup_shuffle)."""
        return self._subgroup_builtin(fl, "sub_group_shuffle", value, lane)

    def subgroup_reduce(
        self, fl: FunctionLowering, op: Operation, kind: ReduceKind, value: ir.Value
    ) -> ir.Value:
        """OpenCL's `sub_group_reduce_<kind>` (cl_khr_subgroups) for add, min
        and max (umin and umax on unsigned types; a float min or max with
        NaN lanes left out, which Intel's runtime would return; minimum and
        maximum as min and max, with a NaN or a signed zero of any lane
        restored by votes),
        `sub_group_non_uniform_reduce_<kind>`
        (cl_khr_subgroup_non_uniform_arithmetic) for the others."""
        from gpuc.lowering.subgroup import exact_minmax, numeric_minmax

        name = UNIFORM_REDUCTIONS.get(kind.value)
        if name is None:
            name = f"non_uniform_reduce_{kind.value}"
        signed = kind.value not in ("umin", "umax")

        def reduce(v: ir.Value) -> ir.Value:
            return self._subgroup_builtin(fl, f"sub_group_{name}", v, signed=signed)

        def any_lane(p: ir.Value) -> ir.Value:
            return self._vote(fl, "sub_group_any", p)

        def all_lanes(p: ir.Value) -> ir.Value:
            return self._vote(fl, "sub_group_all", p)

        floating = str(value.type) in ("float", "double")
        if floating and kind.value in ("min", "max"):
            return numeric_minmax(fl.builder, kind, value, reduce, all_lanes)
        if kind.value in ("minimum", "maximum"):
            return exact_minmax(fl.builder, kind, value, reduce(value), any_lane)
        return reduce(value)

    def vote(
        self, fl: FunctionLowering, op: Operation, kind: VoteKind, value: ir.Value
    ) -> ir.Value:
        """OpenCL's `sub_group_any` / `sub_group_all` (cl_khr_subgroups)."""
        return self._vote(fl, f"sub_group_{kind.value}", value)

    def _vote(self, fl: FunctionLowering, name: str, value: ir.Value) -> ir.Value:
        from llvmlite import ir

        i32 = ir.IntType(32)
        b = fl.builder
        mangled = f"_Z{len(name)}{name}i"
        vote = self._builtin_call(fl, mangled, i32, [b.zext(value, i32)])
        return b.icmp_unsigned("!=", vote, ir.Constant(i32, 0))

    def ballot(
        self, fl: FunctionLowering, op: Operation, value: ir.Value, width: int
    ) -> ir.Value:
        """OpenCL's `sub_group_ballot` (cl_khr_subgroup_ballot): a uint4 whose
        first `width` bits the mask keeps."""
        from llvmlite import ir

        i32, b = ir.IntType(32), fl.builder
        words = self._builtin_call(
            fl, "_Z16sub_group_balloti", ir.VectorType(i32, 4), [b.zext(value, i32)]
        )
        low = b.extract_element(words, ir.Constant(i32, 0))
        if width == 32:
            return low
        i64 = ir.IntType(64)
        high = b.zext(b.extract_element(words, ir.Constant(i32, 1)), i64)
        return b.or_(b.shl(high, ir.Constant(i64, 32)), b.zext(low, i64))

    def fence(
        self,
        fl: FunctionLowering,
        op: Operation,
        scope: FenceScope,
        ordering: MemoryOrder,
    ) -> None:
        """OpenCL's `atomic_work_item_fence` on local and global memory (an
        OpMemoryBarrier with both storage classes' semantics)."""
        from llvmlite import ir

        i32 = ir.IntType(32)
        args = [
            CLK_LOCAL_AND_GLOBAL_MEM_FENCE,
            OPENCL_MEMORY_ORDERS[ordering.value],
            OPENCL_MEMORY_SCOPES[scope.value],
        ]
        name = "atomic_work_item_fence"
        self._builtin_call(
            fl,
            f"_Z{len(name)}{name}j12memory_order12memory_scope",
            ir.VoidType(),
            [ir.Constant(i32, arg) for arg in args],
        )

    def _subgroup_builtin(
        self,
        fl: FunctionLowering,
        name: str,
        value: ir.Value,
        *lane: ir.Value,
        signed: bool = True,
    ) -> ir.Value:
        """Call OpenCL builtin `name(value[, uint lane])` by its mangled name;
        integers are signed (`int`, `long`) unless `signed` is false."""
        codes = SIGNED_CODES if signed else UNSIGNED_CODES
        mangled = f"_Z{len(name)}{name}{codes[str(value.type)]}{'j' if lane else ''}"
        return self._builtin_call(fl, mangled, value.type, [value, *lane])

    def _builtin_call(
        self, fl: FunctionLowering, mangled: str, result: ir.Type, args: list[ir.Value]
    ) -> ir.Value:
        """A convergent call of the OpenCL builtin `mangled`."""
        fn = fl.ml.intrinsic(
            mangled, result, [a.type for a in args], ("convergent", "nounwind")
        )
        fn.calling_convention = self.helper_cconv
        call = fl.builder.call(fn, args)
        call.attributes.add("convergent")
        return call

    def math_function(self, name: str, ty: ir.Type) -> str:
        """LLVM intrinsics where the back-end maps them to OpenCL.std, else the
        OpenCL builtin by its Itanium-mangled name (`_Z3erff`)."""
        if name in LLVM_MATH:
            return super().math_function(name, ty)
        code = "f" if str(ty) == "float" else "d"
        return f"_Z{len(name)}{name}{code}"

    def finish_function(
        self, ml: ModuleLowering, func: FuncOp, fn: ir.Function
    ) -> None:
        """A kernel with a known block size declares it as OpenCL C's
        `reqd_work_group_size` does (the back-end makes it the entry point's
        `OpExecutionMode LocalSize`); one using matrix fragments asks for
        sub-groups of 32 (`intel_reqd_sub_group_size`: `OpExecutionMode
        SubgroupSize 32`), the lanes they are spread over (lane_matrices.py)."""
        from llvmlite import ir

        from gpuc.lowering.matrix import WARP
        from gpuc.targets.error_record import name_record

        name_record(ml, func, fn)
        record = ml.records.get(func.sym_name.data)
        block = record.block_size if record is not None else None
        if block is not None:
            sizes = [ir.Constant(ir.IntType(32), size) for size in block]
            fn.set_metadata("reqd_work_group_size", ml.llvm.add_metadata(sizes))
        if record is not None and record.uses_fragments:
            if block is not None and block[0] % WARP:
                raise OpError(
                    func,
                    f"kernel @{func.sym_name.data} uses matrix fragments, which "
                    f"spirv spreads over sub-groups of {WARP} threads along x, "
                    f"but its block {list(block)} has an x size of {block[0]}; "
                    f"give it an x size that is a multiple of {WARP}",
                )
            warp = [ir.Constant(ir.IntType(32), WARP)]
            fn.set_metadata("intel_reqd_sub_group_size", ml.llvm.add_metadata(warp))
            space_function_metadata(fn)

    def finish_module(self, ml: ModuleLowering) -> None:
        """OpenCL C version (OpSource) and, unless contraction is off, the
        FP_CONTRACT marker (without it every kernel gets ContractionOff)."""
        from llvmlite import ir

        i32 = ir.IntType(32)
        version = ml.llvm.add_metadata([ir.Constant(i32, v) for v in OPENCL_VERSION])
        ml.llvm.add_named_metadata("opencl.ocl.version", version)
        if ml.fp_contract:
            ml.llvm.add_named_metadata("opencl.enable.FP_CONTRACT")
        for fn in ml.llvm.functions:
            if fn.name.startswith("_Z") and fn.is_declaration:
                fn.calling_convention = self.helper_cconv
                fn.attributes.add("nounwind")

    def llvm_options(self) -> tuple[str, ...]:
        return ("--spirv-ext=" + ",".join(f"+{e}" for e in EXTENSIONS),)

    def target_machine(self, opt_level: int) -> llvm.TargetMachine:
        """A fresh machine per module: reusing one crashes LLVM 22 after a few
        modules (llvm/llvm-project#223774); creating one costs ~0.2 ms.

        Its pipeline does not unroll loops: the OpenCL runtime's compiler
        vectorizes across work-items and unrolls for the device it knows, and
        a loop unrolled here defeats it (matmul's 16-step tile loop, fully
        unrolled, ran 1.6-1.8x slower on Intel's CPU runtime than OpenCL C;
        left a loop, 0.95x; the other examples are unchanged). At -O0 it still
        folds constants, which LLVM's SPIR-V back-end cannot always select."""
        from llvmlite import binding as llvm

        from gpuc.lowering.llvm import PipelineTuning, tuned
        from gpuc.targets.spirv.isolation import MachineSpec, rebuildable

        machine = llvm.Target.from_triple(self.triple).create_target_machine(
            opt=opt_level
        )
        machine = rebuildable(
            machine, MachineSpec(self.triple, opt_level, self.llvm_options())
        )
        return tuned(
            machine, PipelineTuning(loop_unrolling=False, fold_constants_at_o0=True)
        )

    def emit(self, module: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes:
        # In a fresh process: LLVM 22's SPIR-V back-end leaks state from one
        # module into the next (see gpuc/targets/spirv/isolation.py).
        from llvmlite import binding as llvm

        from gpuc.targets.spirv.isolation import emit_object

        text = str(module)
        rewritten = patched(text)
        if rewritten != text:
            module = llvm.parse_assembly(rewritten)
            module.verify()

        binary = emit_object(module, tm, "SPIR-V emission")
        if "\n!llvm.dbg.cu = " in rewritten:
            from gpuc.targets.spirv.lines import add_line_table

            return add_line_table(binary, rewritten)
        return bytes(binary)

    def render(self, kind: str, c: Emitted) -> bytes | str:
        """`spirv`: the binary; `spirv-asm`: spirv-dis's text of it."""
        from gpuc.tools import run_spirv_dis

        assert isinstance(c.artefact, bytes)
        return run_spirv_dis(c.artefact) if kind == "spirv-asm" else c.artefact

    def validate(self, artefact: bytes | str) -> None:
        from gpuc.tools import run_spirv_val

        assert isinstance(artefact, bytes)
        run_spirv_val(artefact)


def space_function_metadata(fn: ir.Function) -> None:
    """Print `fn`'s metadata attachments apart by spaces, as LLVM reads them
    (llvmlite 0.50 puts commas between them, right for instructions only)."""

    def attachments(leading_comma: bool = False) -> str:
        return " ".join(f"!{k} {v.get_reference()}" for k, v in fn.metadata.items())

    fn._stringify_metadata = attachments  # noqa: SLF001
