// The reduction kinds of MLIR 19 and later, as mlir-opt-19 and mlir-opt-22
// print them (Inputs/versions/reduce_kinds.mlir; the first line of each
// generic file is the command that made it): minsi and maxsi are gpuc's
// signed min and max, minui and maxui umin and umax, minnumf and maxnumf
// the float min and max (minNum, maxNum), minimumf and maximumf gpuc's
// NaN-propagating minimum and maximum. gpu.subgroup_reduce becomes
// gpuc.subgroup_reduce; gpu.all_reduce folds the subgroups' results with
// the matching arith op. Both texts import alike, and ptxas accepts the PTX.
// RUN: gpuc-opt -p import %S/Inputs/versions/reduce_kinds_mlir19_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/reduce_kinds_mlir22_generic.mlir | filecheck %s
// RUN: %if ptxas %{ gpuc compile %S/Inputs/versions/reduce_kinds_mlir22_generic.mlir --target ptx --validate -o %t.ptx %}

// CHECK-LABEL: gpuc.func @kinds(
// CHECK:      gpuc.subgroup_reduce min %{{.*}} : i32
// CHECK:        arith.minsi
// CHECK:      gpuc.subgroup_reduce umin %{{.*}} : i32
// CHECK:        arith.minui
// CHECK:      gpuc.subgroup_reduce max %{{.*}} : i32
// CHECK:        arith.maxsi
// CHECK:      gpuc.subgroup_reduce umax %{{.*}} : i32
// CHECK:        arith.maxui
// CHECK:      gpuc.subgroup_reduce min %{{.*}} : f32
// CHECK:        arith.minnumf
// CHECK:      gpuc.subgroup_reduce max %{{.*}} : f32
// CHECK:        arith.maxnumf
// CHECK:      gpuc.subgroup_reduce minimum %{{.*}} : f32
// CHECK:        arith.minimumf
// CHECK:      gpuc.subgroup_reduce maximum %{{.*}} : f32
// CHECK:        arith.maximumf
// CHECK:      gpuc.subgroup_reduce min %{{.*}} : i32
// CHECK-NEXT: gpuc.subgroup_reduce umin %{{.*}} : i32
// CHECK-NEXT: gpuc.subgroup_reduce max %{{.*}} : i32
// CHECK-NEXT: gpuc.subgroup_reduce umax %{{.*}} : i32
// CHECK-NEXT: gpuc.subgroup_reduce min %{{.*}} : f32
// CHECK-NEXT: gpuc.subgroup_reduce max %{{.*}} : f32
// CHECK-NEXT: gpuc.subgroup_reduce minimum %{{.*}} : f32
// CHECK-NEXT: gpuc.subgroup_reduce maximum %{{.*}} : f32
