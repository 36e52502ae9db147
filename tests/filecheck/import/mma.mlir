// gpu.subgroup_mma_* become gpuc's matrix ops, from MLIR 16's generic form
// (attributes) and MLIR 22's (properties), committed in Inputs/: the memref
// and indices give the tile's pointer and element index, leadDimension its
// stride; !gpu.mma_matrix values (scf.for's iter_args too) become
// !gpuc.fragment. A fragment shape gpuc does not support, or an integer
// elementwise kind, is a located diagnostic.
// RUN: gpuc-opt -p import %S/Inputs/versions/mma_mlir16_generic.mlir | FileCheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/mma_mlir22_generic.mlir | FileCheck %s
// RUN: not gpuc-opt -p import %s --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: gpuc.func @k(%arg0: !gpuc.ptr<f16, global>, %arg1: !gpuc.ptr<f16, global>, %arg2: !gpuc.ptr<f32, global>) kernel
// CHECK:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[C:.*]] = gpuc.matrix_splat %[[ONE]] : f32 -> !gpuc.fragment<16x16xf32, c>
// CHECK-NEXT: %[[D:.*]] = scf.for %[[K:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[C]]) -> (!gpuc.fragment<16x16xf32, c>) {
// CHECK:        %[[AI:.*]] = arith.addi %{{.*}}, %[[K]] : index
// CHECK-NEXT:   %[[LDA:.*]] = arith.constant 32 : index
// CHECK-NEXT:   %[[A:.*]] = gpuc.matrix_load %arg0[%[[AI]]], %[[LDA]] : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
// CHECK:        %[[B:.*]] = gpuc.matrix_load %arg1[%{{.*}}], %{{.*}} transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
// CHECK-NEXT:   %[[R:.*]] = gpuc.matrix_mma %[[A]], %[[B]], %[[ACC]] b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
// CHECK-NEXT:   scf.yield %[[R]] : !gpuc.fragment<16x16xf32, c>
// CHECK:      %[[E:.*]] = gpuc.matrix_elementwise addf %[[D]], %[[C]] : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
// CHECK:      gpuc.matrix_store %[[E]], %arg2[%{{.*}}], %{{.*}} : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>

// BAD: mma.mlir:[[# @LINE + 4]]:10: error: 'gpu.subgroup_mma_load_matrix' op a 16x16xf32 fragment of operand a is not supported; the supported shape is m16n16k16
"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = (memref<16x16xf32>, index) -> (), kernel}> ({
  ^bb0(%m: memref<16x16xf32>, %i: index):
    %a = "gpu.subgroup_mma_load_matrix"(%m, %i, %i) <{leadDimension = 16 : index}> : (memref<16x16xf32>, index, index) -> !gpu.mma_matrix<16x16xf32, "AOp">
    "gpu.return"() : () -> ()
  }) {sym_name = "k"} : () -> ()
}) : () -> ()

// -----

// BAD: mma.mlir:[[# @LINE + 4]]:10: error: 'gpu.subgroup_mma_elementwise' op has kind addi; gpuc's fragments hold floats, and the import accepts addf, subf, mulf, divf, maxf, minf, negatef, extf
"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = (!gpu.mma_matrix<16x16xf32, "COp">) -> (), kernel}> ({
  ^bb0(%x: !gpu.mma_matrix<16x16xf32, "COp">):
    %y = "gpu.subgroup_mma_elementwise"(%x, %x) <{opType = #gpu<mma_element_wise addi>}> : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    "gpu.return"() : () -> ()
  }) {sym_name = "k"} : () -> ()
}) : () -> ()
