// Vectors gpuc does not lower are diagnostics at the op that uses them.
// RUN: not gpuc-opt %s --split-input-file -t 'llvm{target=native stage=link}' 2>&1 | FileCheck %s

// A length of 3 would have a memory stride of 4 elements: no host array matches.
// CHECK: vectors_errors.mlir:[[# @LINE + 2]]:8: error: 'vector.broadcast' op vector<3xf32> cannot be lowered; vectors have 2, 4, 8 or 16 elements
gpuc.func @three(%x: f32) helper {
  %v = vector.broadcast %x : f32 to vector<3xf32>
  gpuc.return
}

// -----

// bf16 vectors lower (their bits), but not a fused multiply-add of them.
// CHECK: vectors_errors.mlir:[[# @LINE + 3]]:8: error: 'vector.fma' op is an fma on bf16 vectors, which gpuc does not lower (bf16 computes in f32, where a fused multiply-add would round twice); arith.extf the operands to f32 vectors, fma there and arith.truncf the result
gpuc.func @bf16s(%x: bf16) -> vector<4xbf16> helper {
  %v = vector.broadcast %x : bf16 to vector<4xbf16>
  %f = vector.fma %v, %v, %v : vector<4xbf16>
  gpuc.return %f : vector<4xbf16>
}

// -----

// CHECK: vectors_errors.mlir:[[# @LINE + 2]]:8: error: 'vector.bitcast' op The source and result types do not have an equal bitwidth
gpuc.func @bitcast(%v: vector<4xf32>) -> vector<2xi32> helper {
  %b = "vector.bitcast"(%v) : (vector<4xf32>) -> vector<2xi32>
  gpuc.return %b : vector<2xi32>
}

// -----

// CHECK: vectors_errors.mlir:[[# @LINE + 2]]:8: error: 'math.sqrt' op math on vector<4xf32> is not supported; apply it to each element (vector.extract, vector.insert)
gpuc.func @sqrt(%v: vector<4xf32>) -> vector<4xf32> helper {
  %r = math.sqrt %v : vector<4xf32>
  gpuc.return %r : vector<4xf32>
}

// -----

// CHECK: vectors_errors.mlir:[[# @LINE + 2]]:8: error: 'vector.broadcast' op works on vector<2x4xf32>; gpuc lowers vector ops on 1-D vectors
gpuc.func @two_d(%v: vector<4xf32>) -> vector<4xf32> helper {
  %r = vector.broadcast %v : vector<4xf32> to vector<2x4xf32>
  %e = vector.extract %r[1] : vector<4xf32> from vector<2x4xf32>
  gpuc.return %e : vector<4xf32>
}

// -----

// CHECK: vectors_errors.mlir:[[# @LINE + 2]]:8: error: {{.*}} no translation to LLVM IR is known for 'vector.reduction'
gpuc.func @reduce(%v: vector<4xf32>) -> f32 helper {
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  gpuc.return %r : f32
}
// CHECK-NOT: Traceback
