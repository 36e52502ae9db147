// What gpuc's arith dialect refuses, as MLIR's verifier does.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: error: 'arith.select' op selects vector<4xf32> by a vector<2xi1> condition; the condition is i1, or a vector of i1 of the values' shape
func.func @shape(%c: vector<2xi1>, %a: vector<4xf32>) -> vector<4xf32> {
  %r = "arith.select"(%c, %a, %a) : (vector<2xi1>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// CHECK: error: 'arith.cmpi' op compares vector<4xi32> into i1; the result is vector<4xi1>
func.func @result(%a: vector<4xi32>) -> i1 {
  %r = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (vector<4xi32>, vector<4xi32>) -> i1
  return %r : i1
}

// -----

// CHECK: error: 'arith.sitofp' op casts vector<4xi32> to f32; a cast keeps the shape (vector to vector of the same shape, scalar to scalar)
func.func @cast(%a: vector<4xi32>) -> f32 {
  %r = "arith.sitofp"(%a) : (vector<4xi32>) -> f32
  return %r : f32
}

// -----

// CHECK: error: 'arith.extsi' op Destination bit-width must be larger than the input bit-width
func.func @widths(%a: vector<4xi32>) -> vector<4xi16> {
  %r = "arith.extsi"(%a) : (vector<4xi32>) -> vector<4xi16>
  return %r : vector<4xi16>
}
