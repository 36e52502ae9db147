// Source of atomic_kinds_func_mlir*.mlir: the kinds in custom form, in a
// func.func kernel (xDSL reads func, arith and memref in custom form).
func.func @atomics(%m: memref<16xi32>, %f: memref<4xf32>, %v: i32, %w: f32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %0 = memref.atomic_rmw maxu %v, %m[%c3] : (i32, memref<16xi32>) -> i32
  %1 = memref.atomic_rmw andi %v, %m[%c7] : (i32, memref<16xi32>) -> i32
  %2 = memref.atomic_rmw assign %v, %m[%c0] : (i32, memref<16xi32>) -> i32
  %3 = memref.atomic_rmw addf %w, %f[%c0] : (f32, memref<4xf32>) -> f32
  return
}
