// mlir-opt-22 Inputs/versions/atomic_kinds_func.mlir
module {
  func.func @atomics(%arg0: memref<16xi32>, %arg1: memref<4xf32>, %arg2: i32, %arg3: f32) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %0 = memref.atomic_rmw maxu %arg2, %arg0[%c3] : (i32, memref<16xi32>) -> i32
    %1 = memref.atomic_rmw andi %arg2, %arg0[%c7] : (i32, memref<16xi32>) -> i32
    %2 = memref.atomic_rmw assign %arg2, %arg0[%c0] : (i32, memref<16xi32>) -> i32
    %3 = memref.atomic_rmw addf %arg3, %arg1[%c0] : (f32, memref<4xf32>) -> f32
    return
  }
}

