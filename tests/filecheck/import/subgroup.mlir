// gpu.shuffle, gpu.subgroup_reduce, gpu.lane_id and the subgroup ids become
// gpuc's subgroup ops (MLIR's width is always given); `uniform` is dropped
// (gpuc's reductions are uniform). MLIR 19 and later's reduction kinds
// (`maxsi`, reduce_kinds.mlir has them all) read as MLIR 16's; clusters
// are refused with a diagnostic (Inputs/ has the command that made each file).
// RUN: gpuc-opt -p import %S/Inputs/versions/subgroup_mlir16_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/subgroup_mlir22_generic.mlir | filecheck %s
// RUN: not gpuc-opt -p import %S/Inputs/versions/subgroup_cluster_mlir22_generic.mlir 2>&1 | filecheck %s --check-prefix=CLUSTER

// CHECK-LABEL: gpuc.func @k(
// CHECK:      %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[A:.*]], %{{.*}} = gpuc.shuffle xor %{{.*}}, %[[C1]], width %[[C32]] : f32
// CHECK-NEXT: %[[B:.*]], %{{.*}} = gpuc.shuffle up %{{.*}}, %[[C1]], width %[[C32]] : i32
// CHECK-NEXT: gpuc.shuffle down %{{.*}}, %[[C1]], width %[[C32]] : f32
// CHECK-NEXT: gpuc.shuffle idx %{{.*}}, %[[C1]], width %[[C32]] : i32
// CHECK-NEXT: gpuc.subgroup_reduce add %[[A]] : f32
// CHECK-NEXT: gpuc.subgroup_reduce max %[[B]] : i32
// CHECK-NEXT: gpuc.lane_id
// CHECK-NEXT: gpuc.subgroup_id
// CHECK-NEXT: gpuc.subgroup_size
// CHECK-NEXT: gpuc.num_subgroups

// CLUSTER: subgroup_cluster_mlir22_generic.mlir:8:12: error: 'gpu.subgroup_reduce' op reduces over clusters in @k, which gpuc does not support; reduce over the whole subgroup
