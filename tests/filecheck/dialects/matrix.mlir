// The warp matrix ops and !gpuc.fragment round-trip.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s

// CHECK-LABEL: gpuc.func @matmul
// CHECK: %a = gpuc.matrix_load %pa[%i], %lda : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
// CHECK: %b = gpuc.matrix_load %pb[%i], %lda transpose : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, b>
// CHECK: %c = gpuc.matrix_load %pc[%i], %lda : !gpuc.ptr<f32, generic> -> !gpuc.fragment<16x16xf32, c>
// CHECK: %d = gpuc.matrix_mma %a, %b, %c b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
// CHECK: gpuc.matrix_store %d, %pd[%i], %lda transpose : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
gpuc.func @matmul(%pa: !gpuc.ptr<f16, global>, %pb: !gpuc.ptr<f16, shared>, %pc: !gpuc.ptr<f32, generic>, %pd: !gpuc.ptr<f32, global>, %i: index, %lda: index) kernel {
  %a = gpuc.matrix_load %pa[%i], %lda : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %b = gpuc.matrix_load %pb[%i], %lda transpose : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, b>
  %c = gpuc.matrix_load %pc[%i], %lda : !gpuc.ptr<f32, generic> -> !gpuc.fragment<16x16xf32, c>
  %d = gpuc.matrix_mma %a, %b, %c b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %d, %pd[%i], %lda transpose : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

// CHECK-LABEL: gpuc.func @fill
// CHECK: %z = gpuc.matrix_splat %x : f16 -> !gpuc.fragment<16x16xf16, c>
// CHECK: %s = gpuc.matrix_elementwise addf %z, %z : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
// CHECK: %n = gpuc.matrix_elementwise negatef %s : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
// CHECK: %w = gpuc.matrix_elementwise extf %n : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
// CHECK: %m = gpuc.matrix_elementwise maxf %w, %w : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
gpuc.func @fill(%x: f16, %p: !gpuc.ptr<f32, global>, %i: index) kernel {
  %z = gpuc.matrix_splat %x : f16 -> !gpuc.fragment<16x16xf16, c>
  %s = gpuc.matrix_elementwise addf %z, %z : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
  %n = gpuc.matrix_elementwise negatef %s : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
  %w = gpuc.matrix_elementwise extf %n : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
  %m = gpuc.matrix_elementwise maxf %w, %w : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %m, %p[%i], %i : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
