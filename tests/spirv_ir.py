"""Hand-written OpenCL-flavoured LLVM IR, turned into SPIR-V by llvmlite's
SPIR-V back-end, so the spirv executor is tested without the compiler."""

from __future__ import annotations

from gpuc.runtime.args import KernelSignature, Param

HEADER = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spirv64-unknown-unknown"
declare spir_func i64 @_Z13get_global_idj(i32) nounwind readnone
declare spir_func i64 @_Z12get_local_idj(i32) nounwind readnone
declare spir_func i64 @_Z12get_group_idj(i32) nounwind readnone
declare spir_func i64 @_Z14get_local_sizej(i32) nounwind readnone
declare spir_func i64 @_Z14get_num_groupsj(i32) nounwind readnone
declare spir_func void @_Z7barrierj(i32) convergent nounwind
"""  # noqa: E501

# saxpy(a: f32, x: ptr<f32>, y: ptr<f32>, n: i32): y[i] = a * x[i] + y[i].
SAXPY = """
define spir_kernel void @saxpy(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y,
                               i32 %n) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %nn = sext i32 %n to i64
  %c = icmp ult i64 %i, %nn
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr float, ptr addrspace(1) %x, i64 %i
  %py = getelementptr float, ptr addrspace(1) %y, i64 %i
  %xv = load float, ptr addrspace(1) %px
  %yv = load float, ptr addrspace(1) %py
  %m = fmul float %a, %xv
  %s = fadd float %m, %yv
  store float %s, ptr addrspace(1) %py
  br label %exit
exit:
  ret void
}
"""

SAXPY_SIG = KernelSignature(
    "saxpy",
    (
        Param("a", "f32"),
        Param("x", "f32", "global"),
        Param("y", "f32", "global"),
        Param("n", "i32"),
    ),
)

# ids3(out: ptr<i64>): out[linear global id] = group x + 10 * local y + 100 * z
# global id, with the 3-D ids OpenCL reports, to check grid/block mapping.
IDS3 = """
define spir_kernel void @ids3(ptr addrspace(1) %out) {
entry:
  %gx = call spir_func i64 @_Z13get_global_idj(i32 0)
  %gy = call spir_func i64 @_Z13get_global_idj(i32 1)
  %gz = call spir_func i64 @_Z13get_global_idj(i32 2)
  %nx0 = call spir_func i64 @_Z14get_num_groupsj(i32 0)
  %lx0 = call spir_func i64 @_Z14get_local_sizej(i32 0)
  %ny0 = call spir_func i64 @_Z14get_num_groupsj(i32 1)
  %ly0 = call spir_func i64 @_Z14get_local_sizej(i32 1)
  %wx = mul i64 %nx0, %lx0
  %wy = mul i64 %ny0, %ly0
  %zrow = mul i64 %gz, %wy
  %yz = add i64 %zrow, %gy
  %row = mul i64 %yz, %wx
  %lin = add i64 %row, %gx
  %bx = call spir_func i64 @_Z12get_group_idj(i32 0)
  %ty = call spir_func i64 @_Z12get_local_idj(i32 1)
  %ty10 = mul i64 %ty, 10
  %gz100 = mul i64 %gz, 100
  %v0 = add i64 %bx, %ty10
  %v = add i64 %v0, %gz100
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %lin
  store i64 %v, ptr addrspace(1) %p
  ret void
}
"""

IDS3_SIG = KernelSignature("ids3", (Param("out", "i64", "global"),))

# bsum(x: ptr<i32>, out: ptr<i32>, n: i32): per-group sum through a tree in
# local memory with barriers, for any group size up to 256.
BSUM = """
@sh = internal addrspace(3) global [256 x i32] undef, align 4

define spir_kernel void @bsum(ptr addrspace(1) %x, ptr addrspace(1) %out, i32 %n) {
entry:
  %t = call spir_func i64 @_Z12get_local_idj(i32 0)
  %nt = call spir_func i64 @_Z14get_local_sizej(i32 0)
  %b = call spir_func i64 @_Z12get_group_idj(i32 0)
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %n64 = sext i32 %n to i64
  %inb = icmp ult i64 %i, %n64
  br i1 %inb, label %ld, label %st
ld:
  %xp = getelementptr i32, ptr addrspace(1) %x, i64 %i
  %xv = load i32, ptr addrspace(1) %xp
  br label %st
st:
  %v = phi i32 [ %xv, %ld ], [ 0, %entry ]
  %mine = getelementptr [256 x i32], ptr addrspace(3) @sh, i64 0, i64 %t
  store i32 %v, ptr addrspace(3) %mine
  call spir_func void @_Z7barrierj(i32 1)
  br label %pow
pow:
  %pw = phi i64 [ 1, %st ], [ %pw2, %pow ]
  %pw2 = shl i64 %pw, 1
  %small = icmp ult i64 %pw, %nt
  br i1 %small, label %pow, label %levels
levels:
  %s0 = lshr i64 %pw, 1
  %go = icmp ne i64 %s0, 0
  br i1 %go, label %level, label %write
level:
  %s = phi i64 [ %s0, %levels ], [ %snext, %levelend ]
  %lo = icmp ult i64 %t, %s
  %other = add i64 %t, %s
  %hi = icmp ult i64 %other, %nt
  %both = and i1 %lo, %hi
  br i1 %both, label %addit, label %levelend
addit:
  %op = getelementptr [256 x i32], ptr addrspace(3) @sh, i64 0, i64 %other
  %ov = load i32, ptr addrspace(3) %op
  %mv = load i32, ptr addrspace(3) %mine
  %sum = add i32 %mv, %ov
  store i32 %sum, ptr addrspace(3) %mine
  br label %levelend
levelend:
  call spir_func void @_Z7barrierj(i32 1)
  %snext = lshr i64 %s, 1
  %smore = icmp ne i64 %snext, 0
  br i1 %smore, label %level, label %write
write:
  %zero = icmp eq i64 %t, 0
  br i1 %zero, label %w, label %exit
w:
  %r = load i32, ptr addrspace(3) @sh
  %outp = getelementptr i32, ptr addrspace(1) %out, i64 %b
  store i32 %r, ptr addrspace(1) %outp
  br label %exit
exit:
  ret void
}
"""

BSUM_SIG = KernelSignature(
    "bsum",
    (Param("x", "i32", "global"), Param("out", "i32", "global"), Param("n", "i32")),
    uses_barrier=True,
    static_shared_bytes=1024,
)


def to_spirv(body: str) -> bytes:
    """SPIR-V for `body` (kernels after HEADER) from llvmlite's SPIR-V back-end,
    with a fresh target machine (llvmlite 0.50 crashes reusing one)."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(HEADER + body)
    module.verify()
    target = llvm.Target.from_triple("spirv64-unknown-unknown")
    return bytes(target.create_target_machine(opt=2).emit_object(module))
