// REQUIRES: ld.lld
// Warp matrix ops on amdgpu: the emulation, as on native: each lane holds the
// whole tile (`[16 x <16 x T>]`), the multiply-accumulate is 256 vector
// multiply-adds, and lane e mod (wavefront size) stores element e (the lane
// from mbcnt, as gpuc.lane_id); ld.lld links the code object.
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s
// RUN: gpuc compile %s --target amdgpu --validate -o %t.hsaco

// CHECK-LABEL: define amdgpu_kernel void @mma(
// CHECK: %fa = insertvalue [16 x <16 x half>]
// CHECK-COUNT-256: fadd <16 x float>
// CHECK: %fd = insertvalue [16 x <16 x float>]
// CHECK: call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
// CHECK: store float
gpuc.func @mma(%a: !gpuc.ptr<f16, global>, %c: !gpuc.ptr<f32, global>, %i: index, %ld: index) kernel {
  %fa = gpuc.matrix_load %a[%i], %ld : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %fb = gpuc.matrix_load %a[%i], %ld transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
  %fc = gpuc.matrix_load %c[%i], %ld : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %fd = gpuc.matrix_mma %fa, %fb, %fc b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %fd, %c[%i], %ld : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
