// REQUIRES: spirv-dis
// Warp matrix ops on spirv: a fragment is spread over the 32 lanes of a
// sub-group, 8 elements a lane (`<8 x T>`): loads and stores move a lane's
// own elements, splats and elementwise ops work on them (maxf: NaN where
// either is), the multiply-accumulate reads the others with sub-group
// shuffles (16 of B and 128 of A per tile), and the kernel asks for
// sub-groups of 32 (`SubgroupSize 32`); spirv-val accepts the module.
// RUN: gpuc compile %s --target spirv --validate -o %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s --check-prefix=SPIRV
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s

// SPIRV: OpCapability SubgroupDispatch
// SPIRV: OpExecutionMode %mma SubgroupSize 32
// SPIRV-COUNT-144: OpGroupNonUniformShuffle %float
// SPIRV-NOT: OpGroupNonUniformShuffle

// CHECK: define spir_kernel void @mma(ptr addrspace(1) %a, ptr addrspace(3) %b, ptr addrspace(1) %c, ptr addrspace(1) %d, i64 %i, i64 %ld) !intel_reqd_sub_group_size ![[WARP:[0-9]+]] {
// CHECK-COUNT-8: load half, ptr addrspace(1)
// CHECK: %fa = insertelement <8 x half>
// CHECK-COUNT-8: load half, ptr addrspace(3)
// CHECK: %fb = insertelement <8 x half>
// CHECK-COUNT-8: load float, ptr addrspace(1)
// CHECK: %fc = insertelement <8 x float>
// CHECK: %fd = insertelement <8 x float>
// CHECK-COUNT-8: store float
// CHECK-LABEL: define spir_kernel void @epilogue(
// CHECK: %s = insertelement <8 x half> %{{.*}}, half %x, i32 7
// CHECK: fcmp ogt <8 x half> %s, %y
// CHECK: [[NAN:%.+]] = fcmp uno <8 x half> %s, %y
// CHECK: %m = select <8 x i1> [[NAN]], <8 x half> splat (half 0xH7E00)
// CHECK: %w = fpext <8 x half> %m to <8 x float>
// CHECK: ![[WARP]] = !{i32 32}
gpuc.func @mma(%a: !gpuc.ptr<f16, global>, %b: !gpuc.ptr<f16, shared>, %c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>, %i: index, %ld: index) kernel {
  %fa = gpuc.matrix_load %a[%i], %ld : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %fb = gpuc.matrix_load %b[%i], %ld transpose : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, b>
  %fc = gpuc.matrix_load %c[%i], %ld : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %fd = gpuc.matrix_mma %fa, %fb, %fc b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %fd, %d[%i], %ld : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

gpuc.func @epilogue(%x: f16, %h: !gpuc.ptr<f16, global>, %o: !gpuc.ptr<f32, global>, %i: index) kernel {
  %s = gpuc.matrix_splat %x : f16 -> !gpuc.fragment<16x16xf16, c>
  %y = gpuc.matrix_load %h[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  %m = gpuc.matrix_elementwise maxf %s, %y : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
  %w = gpuc.matrix_elementwise extf %m : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %w, %o[%i], %i : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
