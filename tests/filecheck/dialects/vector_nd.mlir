// The vector ops gpuc adds to xDSL's vector dialect for vectors of several
// dimensions (gpuc/dialects/foreign/vector.py) round-trip in MLIR's
// custom form, and read MLIR 16's and 22's generic forms (MLIR 16's
// `transp` permutation and attribute-dictionary properties too).
// RUN: gpuc-opt %s --split-input-file | filecheck %s
// RUN: gpuc-opt %s --split-input-file | gpuc-opt --split-input-file | filecheck %s
// RUN: gpuc-opt %s --split-input-file --print-op-generic | gpuc-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @contract(
// CHECK: %{{.*}} = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x8xf16>, vector<8x2xf16> into vector<4x2xf32>
// CHECK: %{{.*}} = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = [#vector.iterator_type<reduction>]} %v, %v, %s : vector<8xf32>, vector<8xf32> into f32
func.func @contract(%a: vector<4x8xf16>, %b: vector<8x2xf16>, %c: vector<4x2xf32>, %v: vector<8xf32>, %s: f32) -> (vector<4x2xf32>, f32) {
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x8xf16>, vector<8x2xf16> into vector<4x2xf32>
  %e = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = [#vector.iterator_type<reduction>]} %v, %v, %s : vector<8xf32>, vector<8xf32> into f32
  return %d, %e : vector<4x2xf32>, f32
}

// -----

// CHECK-LABEL: func.func @moves(
// CHECK: %{{.*}} = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
// CHECK: %{{.*}} = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>
// CHECK: %{{.*}} = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
func.func @moves(%v: vector<4x8xf32>) -> (vector<8x4xf32>, vector<32xf32>, vector<8x4xf32>) {
  %t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %s = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>
  %m = "vector.transpose"(%v) {transp = [1, 0]} : (vector<4x8xf32>) -> vector<8x4xf32>
  return %t, %s, %m : vector<8x4xf32>, vector<32xf32>, vector<8x4xf32>
}
