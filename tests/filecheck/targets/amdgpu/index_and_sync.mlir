// REQUIRES: ld.lld
// Index ops read the work-item and work-group ids and, for block sizes and
// counts, the code object v5 implicit arguments; the lane is `mbcnt`; the
// barrier is `s.barrier` between workgroup-scope fences; a shared allocation
// is an LDS (addrspace 3) global, counted in the group segment.
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t 'amdgpu{arch=gfx1100}' | FileCheck %s --check-prefix=ASM

// CHECK: @k.shared = internal addrspace(3) global [256 x float] undef, align 16
// CHECK-LABEL: define amdgpu_kernel void @k(ptr addrspace(1) %out)
// CHECK-DAG: call i32 @llvm.amdgcn.workitem.id.y()
// CHECK-DAG: call i32 @llvm.amdgcn.workgroup.id.z()
// CHECK-DAG: call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
// CHECK-DAG: getelementptr i8, ptr addrspace(4) %{{.*}}, i32 12
// CHECK-DAG: getelementptr i8, ptr addrspace(4) %{{.*}}, i32 4
// CHECK-DAG: call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
// CHECK-DAG: call i32 @llvm.amdgcn.mbcnt.hi(i32 -1,
// CHECK: store float %{{.*}}, ptr addrspace(3)
// CHECK-NEXT: fence syncscope("workgroup") release
// CHECK-NEXT: call void @llvm.amdgcn.s.barrier()
// CHECK-NEXT: fence syncscope("workgroup") acquire
// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// ASM: v_mbcnt_lo_u32_b32
// ASM: ds_store_b32
// ASM: s_barrier
// ASM: ds_load_b32
// ASM: .amdhsa_group_segment_fixed_size 1024
// ASM: .value_kind: hidden_block_count_x
// ASM: .value_kind: hidden_group_size_x
gpuc.func @k(%out: !gpuc.ptr<i64, global>) kernel {
  %s = gpuc.shared_alloc 256 align 16 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id y
  %b = gpuc.block_id z
  %d = gpuc.block_dim x
  %g = gpuc.grid_dim y
  %l = gpuc.lane_id
  %s1 = arith.addi %t, %b : index
  %s2 = arith.addi %d, %g : index
  %s3 = arith.addi %s1, %s2 : index
  %s4 = arith.addi %s3, %l : index
  %v = arith.index_cast %s4 : index to i64
  %f = arith.sitofp %v : i64 to f32
  gpuc.store %f, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %back = gpuc.load %s[%l] : !gpuc.ptr<f32, shared>
  %r = arith.fptosi %back : f32 to i64
  gpuc.store %r, %out[%t] : !gpuc.ptr<i64, global>
  gpuc.return
}
