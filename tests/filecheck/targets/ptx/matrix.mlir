// REQUIRES: ptxas
// Warp matrix ops on ptx: NVVM's wmma intrinsics, named by operand, layout
// (`transpose`: col), element type and address space (p0 generic, p1
// global, p3 shared); the fragment is the intrinsic's struct of registers;
// splats and elementwise ops work on each register (maxf with a NaN check,
// extf a pair of halves to two floats); ptxas accepts the PTX.
// RUN: gpuc compile %s --target ptx --validate -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: .visible .entry mma(
// CHECK: wmma.load.a.sync.aligned.row.m16n16k16.global.f16
// CHECK: wmma.load.b.sync.aligned.col.m16n16k16.shared.f16
// CHECK: wmma.load.c.sync.aligned.row.m16n16k16.f32
// CHECK: wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32
// CHECK: wmma.store.d.sync.aligned.col.m16n16k16.global.f32
// LLVM-LABEL: define ptx_kernel void @mma(
// LLVM: %fa = call { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16.p1(ptr addrspace(1) %{{.*}}, i32 %{{.*}})
// LLVM: %fb = call {{.*}} @llvm.nvvm.wmma.m16n16k16.load.b.col.stride.f16.p3(ptr addrspace(3)
// LLVM: %fc = call { float, float, float, float, float, float, float, float } @llvm.nvvm.wmma.m16n16k16.load.c.row.stride.f32.p0(ptr
// LLVM: %fd = call {{.*}} @llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f32(
// LLVM: call void @llvm.nvvm.wmma.m16n16k16.store.d.col.stride.f32.p1(ptr addrspace(1)
gpuc.func @mma(%a: !gpuc.ptr<f16, global>, %b: !gpuc.ptr<f16, shared>, %c: !gpuc.ptr<f32, generic>, %d: !gpuc.ptr<f32, global>, %i: index, %ld: index) kernel {
  %fa = gpuc.matrix_load %a[%i], %ld : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %fb = gpuc.matrix_load %b[%i], %ld transpose : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, b>
  %fc = gpuc.matrix_load %c[%i], %ld : !gpuc.ptr<f32, generic> -> !gpuc.fragment<16x16xf32, c>
  %fd = gpuc.matrix_mma %fa, %fb, %fc b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %fd, %d[%i], %ld transpose : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

// CHECK-LABEL: .visible .entry epilogue(
// CHECK: wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {{.*}}{%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// CHECK: wmma.store.d.sync.aligned.row.m16n16k16.global.f32
// LLVM-LABEL: define ptx_kernel void @epilogue(
// LLVM: %y = call { <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.c.row.stride.f16.p1(
// LLVM-COUNT-4: fcmp ogt <2 x half>
// LLVM-COUNT-8: fpext half %{{.*}} to float
// LLVM: call void @llvm.nvvm.wmma.m16n16k16.store.d.row.stride.f32.p1(
gpuc.func @epilogue(%x: f16, %h: !gpuc.ptr<f16, global>, %o: !gpuc.ptr<f32, global>, %i: index) kernel {
  %s = gpuc.matrix_splat %x : f16 -> !gpuc.fragment<16x16xf16, c>
  %y = gpuc.matrix_load %h[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  %m = gpuc.matrix_elementwise maxf %s, %y : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
  %w = gpuc.matrix_elementwise extf %m : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %w, %o[%i], %i : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
