// REQUIRES: ld.lld
// Subgroup ops on amdgpu: a shuffle reads the source lane with ds_bpermute
// (addressed in bytes: lane * 4); subgroup_reduce is log2(wave size) steps
// down: six on wave64 (gfx90a), five on wave32 (gfx1100), then lane 0's
// result read by every lane (v_readlane_b32).
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t 'amdgpu{arch=gfx90a}' | FileCheck %s --check-prefix=WAVE64
// RUN: gpuc-opt %s -t 'amdgpu{arch=gfx1100}' | FileCheck %s --check-prefix=WAVE32

// CHECK-LABEL: define amdgpu_kernel void @k(
// CHECK: call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
// CHECK: shl i32 %{{.*}}, 2
// CHECK: call i32 @llvm.amdgcn.ds.bpermute(i32 %{{.*}}, i32 %{{.*}})
// WAVE64-COUNT-6: ds_bpermute_b32
// WAVE64-NOT: ds_bpermute_b32
// WAVE64: v_readlane_b32 {{.*}}, 0
// WAVE32-COUNT-5: ds_bpermute_b32
// WAVE32-NOT: ds_bpermute_b32
// WAVE32: v_readlane_b32 {{.*}}, 0
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  %s = gpuc.subgroup_reduce add %x : f32
  gpuc.store %s, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
