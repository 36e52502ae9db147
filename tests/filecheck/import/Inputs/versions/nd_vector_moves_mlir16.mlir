// vector.extract, insert and broadcast on 2-D vectors in MLIR 16's syntax (the
// extract's result type implied); nd_vector_moves.mlir is the same in MLIR 17+'s.
func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %z {in_bounds = [true, true]} : memref<4x4xf32>, vector<4x4xf32>
  %r = vector.extract %v[1] : vector<4x4xf32>
  %s = vector.insert %r, %v[2] : vector<4xf32> into vector<4x4xf32>
  %b = vector.broadcast %r : vector<4xf32> to vector<4x4xf32>
  %t = arith.addf %s, %b : vector<4x4xf32>
  vector.transfer_write %t, %a[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32>
  return
}
