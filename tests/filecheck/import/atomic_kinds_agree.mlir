// A generic kind number that every MLIR version reads alike (addf 0, addi 1)
// is read in properties too.
// RUN: gpuc-opt %s | filecheck %s

func.func @f(%m: memref<4xi32>, %v: i32, %i: index) {
  %0 = "memref.atomic_rmw"(%v, %m, %i) <{kind = 1 : i64}> : (i32, memref<4xi32>, index) -> i32
  return
}

// CHECK: memref.atomic_rmw addi %v, %m[%i] : (i32, memref<4xi32>) -> i32
