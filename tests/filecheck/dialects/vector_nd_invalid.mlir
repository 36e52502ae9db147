// The verifiers of the vector ops gpuc adds (gpuc/dialects/foreign/vector.py).
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%v: vector<4x8xf32>) {
  %t = vector.transpose %v, [0, 0] : vector<4x8xf32> to vector<4x8xf32>
  return
}

// CHECK: error: 'vector.transpose' op [0, 0] is not a permutation of vector<4x8xf32>'s dims

// -----

func.func @f(%v: vector<4x8xf32>) {
  %t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<4x8xf32>
  return
}

// CHECK: error: 'vector.transpose' op transposing vector<4x8xf32> by [1, 0] gives no vector<4x8xf32>

// -----

func.func @f(%v: vector<4x8xf32>) {
  %s = vector.shape_cast %v : vector<4x8xf32> to vector<30xf32>
  return
}

// CHECK: error: 'vector.shape_cast' op cannot reshape vector<4x8xf32> to vector<30xf32>

// -----

func.func @f(%v: vector<4x8xf32>, %c: vector<4x4xf32>) {
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "reduction"]} %v, %v, %c : vector<4x8xf32>, vector<4x8xf32> into vector<4x4xf32>
  return
}

// CHECK: error: 'vector.contract' op indexing map (d0, d1, d2) -> (d0, d2) does not fit vector<4x8xf32> and 2 iterators

// -----

func.func @f(%v: vector<4x8xf32>, %c: vector<4x4xf32>) {
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "sideways"]} %v, %v, %c : vector<4x8xf32>, vector<4x8xf32> into vector<4x4xf32>
  return
}

// CHECK: error: 'vector.contract' op iterator type "sideways" is neither parallel nor reduction
