// Vectors of several dimensions in device code are unrolled by the import
// (transforms/foreign/vector_unroll.py): each value becomes its rows, split
// into 1-D vectors of 16, 8, 4 or 2 elements and a last scalar; transfers
// become a load or store of each element (under an scf.if where a dimension
// is not in bounds), vector.contract products of row pieces (the kernels of
// tests/test_nd_vectors.py run on native and spirv and pass ptxas and
// spirv-val there); MLIR 16, 19 and 22's generic text reads the
// same (MLIR 16's array-attribute positions of vector.extract and insert too).
// RUN: gpuc-opt --split-input-file -p import %s | filecheck %s
// RUN: gpuc compile %S/Inputs/versions/nd_vectors_mlir16_generic.mlir --target native -o %t.o
// RUN: %if ptxas %{ gpuc compile %S/Inputs/versions/nd_vectors_mlir16_generic.mlir --target ptx --validate -o %t.ptx %}
// RUN: %if spirv-val %{ gpuc compile %S/Inputs/versions/nd_vectors_mlir16_generic.mlir --target spirv --validate -o %t.spv %}
// RUN: gpuc-opt -p import %S/Inputs/versions/nd_vectors.mlir | filecheck %s --check-prefix=VERSIONS
// RUN: gpuc-opt -p import %S/Inputs/versions/nd_vectors_mlir16_generic.mlir | filecheck %s --check-prefix=VERSIONS
// RUN: gpuc-opt -p import %S/Inputs/versions/nd_vectors_mlir22_generic.mlir | filecheck %s --check-prefix=VERSIONS
// RUN: gpuc-opt -p import %S/Inputs/versions/nd_vector_moves_mlir16_generic.mlir > %t.moves16
// RUN: gpuc-opt -p import %S/Inputs/versions/nd_vector_moves_mlir22_generic.mlir > %t.moves22
// RUN: diff %t.moves16 %t.moves22
// RUN: filecheck %s --check-prefix=MOVES < %t.moves16
// RUN: %if mlir-opt-19 %{ mlir-opt-19 --mlir-print-op-generic %S/Inputs/versions/nd_vectors.mlir | gpuc-opt -p import | filecheck %s --check-prefix=VERSIONS %}

// Rows: a 2x4 read is two vector<4xf32> built from element loads; the add is
// one per row; the write stores each element.
// CHECK-LABEL: gpuc.func @rows(
// CHECK-COUNT-8: gpuc.load %a
// CHECK:         %[[R0:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-COUNT-3: vector.insert
// CHECK:         %[[R1:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-COUNT-3: vector.insert
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT:    arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-COUNT-8: gpuc.store
// CHECK-NOT:     vector<2x4xf32>
// CHECK:         gpuc.return
func.func @rows(%a: memref<2x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %z {in_bounds = [true, true]} : memref<2x4xf32>, vector<2x4xf32>
  %s = arith.addf %v, %v : vector<2x4xf32>
  vector.transfer_write %s, %a[%c0, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<2x4xf32>
  return
}

// -----

// A dimension not in bounds: its index is compared with the size once per
// position; the element is loaded or is the padding, stored or not.
// CHECK-LABEL: gpuc.func @padded(
// CHECK-SAME:    %[[A:.*]]: !gpuc.ptr<f32, global>, %[[N:.*]]: index, %[[I:.*]]: index)
// CHECK:         %[[IN0:.*]] = arith.cmpi ult, %[[I]], %[[N]] : index
// CHECK:         %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:         %[[IN1:.*]] = arith.cmpi ult, %[[I1]], %[[N]] : index
// CHECK:         scf.if %[[IN0]] -> (f32) {
// CHECK:           gpuc.load %[[A]]
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %pad : f32
// CHECK:         scf.if %[[IN1]] -> (f32) {
// CHECK:         vector.broadcast
// CHECK:         scf.if %{{.*}} {
// CHECK:           gpuc.store %{{.*}}, %[[A]]
// CHECK-NEXT:    }
func.func @padded(%a: memref<?x4xf32>, %i: index) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [false, true]} : memref<?x4xf32>, vector<2x2xf32>
  vector.transfer_write %v, %a[%i, %c0] {in_bounds = [false, true]} : vector<2x2xf32>, memref<?x4xf32>
  return
}

// -----

// A matmul contraction: each accumulator row plus, for each k, a splat of
// the lhs element times the rhs row (the rhs row piece itself, no copy).
// CHECK-LABEL: gpuc.func @contract(
// CHECK:         %[[ROW0:.*]] = vector.insert %{{.*}}, %{{.*}} [1] : f32 into vector<2xf32>
// CHECK:         %[[ROW1:.*]] = vector.insert %{{.*}}, %{{.*}} [1] : f32 into vector<2xf32>
// CHECK:         %[[E00:.*]] = vector.extract %[[ROW0]][0] : f32 from vector<2xf32>
// CHECK-NEXT:    %[[S00:.*]] = vector.broadcast %[[E00]] : f32 to vector<2xf32>
// CHECK-NEXT:    %[[P0:.*]] = arith.mulf %[[S00]], %[[ROW0]] : vector<2xf32>
// CHECK-NEXT:    %[[T0:.*]] = arith.addf %[[ROW0]], %[[P0]] : vector<2xf32>
// CHECK-NEXT:    %[[E01:.*]] = vector.extract %[[ROW0]][1] : f32 from vector<2xf32>
// CHECK-NEXT:    %[[S01:.*]] = vector.broadcast %[[E01]] : f32 to vector<2xf32>
// CHECK-NEXT:    %[[P1:.*]] = arith.mulf %[[S01]], %[[ROW1]] : vector<2xf32>
// CHECK-NEXT:    %[[D0:.*]] = arith.addf %[[T0]], %[[P1]] : vector<2xf32>
// CHECK:         vector.extract %[[D0]][0] : f32 from vector<2xf32>
func.func @contract(%a: memref<2x2xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %z {in_bounds = [true, true]} : memref<2x2xf32>, vector<2x2xf32>
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %v, %v, %v : vector<2x2xf32>, vector<2x2xf32> into vector<2x2xf32>
  vector.transfer_write %d, %a[%c0, %c0] {in_bounds = [true, true]} : vector<2x2xf32>, memref<2x2xf32>
  return
}

// -----

// Rows of 3: a vector<2xf32> and a scalar each. A dense constant becomes
// constants of those pieces; transpose and shape_cast move elements (the
// 1-D vector<6xf32> between the two casts is never built).
// CHECK-LABEL: gpuc.func @pieces(
// CHECK:         %[[K0:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : vector<2xf32>
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:    %[[K2:.*]] = arith.constant dense<[4.000000e+00, 5.000000e+00]> : vector<2xf32>
// CHECK-NEXT:    %[[K3:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NOT:     vector<6xf32>
// CHECK:         arith.negf %{{.*}} : vector<2xf32>
// CHECK-NEXT:    arith.negf %{{.*}} : f32
// CHECK-NEXT:    arith.negf %{{.*}} : vector<2xf32>
// CHECK-NEXT:    arith.negf %{{.*}} : f32
func.func @pieces(%a: memref<2x3xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %k = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : vector<2x3xf32>
  %t = vector.transpose %k, [1, 0] : vector<2x3xf32> to vector<3x2xf32>
  %f = vector.shape_cast %t : vector<3x2xf32> to vector<6xf32>
  %back = vector.shape_cast %f : vector<6xf32> to vector<2x3xf32>
  %n = arith.negf %back : vector<2x3xf32>
  vector.transfer_write %n, %a[%c0, %c0] {in_bounds = [true, true]} : vector<2x3xf32>, memref<2x3xf32>
  return
}

// VERSIONS-LABEL: gpuc.func @versions(
// VERSIONS-COUNT-8: gpuc.load
// VERSIONS:         arith.extf %{{.*}} : f16 to f32
// VERSIONS:         arith.extf %{{.*}} : vector<2xf16> to vector<2xf32>
// VERSIONS:         arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
// VERSIONS:         arith.addf %{{.*}}, %{{.*}} : vector<2xf32>
// VERSIONS-NOT:     vector<{{[0-9]+x[0-9]+}}x
// VERSIONS:         gpuc.return

// MOVES-LABEL: gpuc.func @k(
// MOVES-COUNT-16: gpuc.load
// MOVES-NOT:      vector<4x4xf32>
// MOVES:          arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// MOVES-COUNT-3:  arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// MOVES-COUNT-16: gpuc.store
