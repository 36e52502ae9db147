// Source of the atomic_kinds_mlir*.mlir fixtures: every kind gpuc imports,
// in custom form (the same in MLIR 16, 19 and 22 but for maxf/maximumf).
gpu.module @kernels {
  gpu.func @atomics(%m: memref<16xi32>, %f: memref<4xf32>, %v: i32, %w: f32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %0 = memref.atomic_rmw addi %v, %m[%c0] : (i32, memref<16xi32>) -> i32
    %1 = memref.atomic_rmw assign %v, %m[%c1] : (i32, memref<16xi32>) -> i32
    %2 = memref.atomic_rmw maxs %v, %m[%c2] : (i32, memref<16xi32>) -> i32
    %3 = memref.atomic_rmw maxu %v, %m[%c3] : (i32, memref<16xi32>) -> i32
    %4 = memref.atomic_rmw mins %v, %m[%c4] : (i32, memref<16xi32>) -> i32
    %5 = memref.atomic_rmw minu %v, %m[%c5] : (i32, memref<16xi32>) -> i32
    %6 = memref.atomic_rmw ori %v, %m[%c6] : (i32, memref<16xi32>) -> i32
    %7 = memref.atomic_rmw andi %v, %m[%c7] : (i32, memref<16xi32>) -> i32
    %8 = memref.atomic_rmw addf %w, %f[%c0] : (f32, memref<4xf32>) -> f32
    gpu.return
  }
}
