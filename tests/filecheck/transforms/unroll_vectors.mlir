// RUN: gpuc-opt -p unroll-vectors %s | filecheck %s

// A vector of several dimensions becomes its rows, 1-D vectors; its
// transfers become loads and stores of each element on the memref, which
// the conversion (convert-foreign-to-gpuc) then takes
// (tests/filecheck/import/nd_vectors.mlir has the other ops).

// CHECK-LABEL: func.func @rows
// CHECK-NOT:     vector<2x4xf32>
// CHECK-COUNT-8: memref.load %a
// CHECK:         %[[R0:.*]] = vector.insert %{{.*}} [3] : f32 into vector<4xf32>
// CHECK:         %[[R1:.*]] = vector.insert %{{.*}} [3] : f32 into vector<4xf32>
// CHECK-NEXT:    arith.addf %[[R0]], %[[R0]] : vector<4xf32>
// CHECK-NEXT:    arith.addf %[[R1]], %[[R1]] : vector<4xf32>
// CHECK-COUNT-8: memref.store
// CHECK-NOT:     vector<2x4xf32>
func.func @rows(%a: memref<2x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %z {in_bounds = [true, true]} : memref<2x4xf32>, vector<2x4xf32>
  %s = arith.addf %v, %v : vector<2x4xf32>
  vector.transfer_write %s, %a[%c0, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<2x4xf32>
  return
}
