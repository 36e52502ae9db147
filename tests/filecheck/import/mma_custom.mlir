// gpu.subgroup_mma_* in MLIR 22's custom form, in a func.func (xDSL reads
// gpu.func generically only): all five read, and import as gpuc's matrix
// ops, each leadDimension a constant stride before its load or store.
// RUN: gpuc-opt -p import %s | FileCheck %s

// CHECK-LABEL: gpuc.func @k(%a: !gpuc.ptr<f16, global>, %c: !gpuc.ptr<f32, global>, %x: f32) kernel
// CHECK:      %C = gpuc.matrix_splat %x : f32 -> !gpuc.fragment<16x16xf32, c>
// CHECK:      %[[I:.*]] = arith.addi
// CHECK-NEXT: %[[LDA:.*]] = arith.constant 16 : index
// CHECK-NEXT: %A = gpuc.matrix_load %a[%[[I]]], %[[LDA]] : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
// CHECK:      %B = gpuc.matrix_load %a[%{{.*}}], %{{.*}} transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
// CHECK-NEXT: %D = gpuc.matrix_mma %A, %B, %C b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
// CHECK-NEXT: %E = gpuc.matrix_elementwise addf %D, %C : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
// CHECK:      gpuc.matrix_store %E, %c[%{{.*}}], %{{.*}} : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
func.func @k(%a: memref<16x16xf16>, %c: memref<16x16xf32>, %x: f32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %C = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<16x16xf32, "COp">
  %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
  %B = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
  %D = gpu.subgroup_mma_compute %A, %B, %C {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  %E = gpu.subgroup_mma_elementwise  addf %D, %C : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
  gpu.subgroup_mma_store_matrix %E, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
  return
}
