// gpu.all_reduce with a kind: a subgroup_reduce (shuffles) per subgroup, one
// shared slot per subgroup, a barrier, and every thread folds the slots in
// subgroup order; with a region: a shared slot per thread, folded in thread
// order with the region inlined as the step. A barrier after each fold lets
// the slots be reused. The kernel is ptxas-valid.
// RUN: gpuc-opt -p import %S/Inputs/versions/all_reduce_mlir16_generic.mlir | filecheck %s
// RUN: %if ptxas %{ gpuc compile %S/Inputs/versions/all_reduce_mlir16_generic.mlir --target ptx --validate -o %t.ptx %}

// CHECK-LABEL: gpuc.func @k(
// CHECK:      %[[S:.*]] = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
// CHECK-NEXT: %[[R:.*]] = gpuc.subgroup_reduce add %{{.*}} : f32
// CHECK-NEXT: %[[SID:.*]] = gpuc.subgroup_id
// CHECK-NEXT: gpuc.store %[[R]], %[[S]][%[[SID]]] : !gpuc.ptr<f32, shared>
// CHECK-NEXT: %[[N:.*]] = gpuc.num_subgroups
// CHECK-NEXT: gpuc.barrier
// CHECK:      scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK:        arith.addf
// CHECK:      gpuc.barrier
// CHECK:      gpuc.subgroup_reduce max %{{.*}} : i32
// CHECK:        arith.maxsi
// CHECK:      gpuc.shared_alloc 1024 : !gpuc.ptr<i32, shared>
// CHECK-NOT:  gpuc.subgroup_reduce
// CHECK:      gpuc.store %{{.*}}, %{{.*}}[%{{.*}}] : !gpuc.ptr<i32, shared>
// CHECK:      gpuc.barrier
// CHECK:      scf.for
// CHECK:        arith.xori
// CHECK-NEXT:   scf.yield
// CHECK:      gpuc.barrier
