// RUN: not gpuc-opt --split-input-file %s 2>&1 | filecheck %s

func.func @f(%m: memref<4xi32>, %v: i32, %i: index) {
  %0 = memref.atomic_rmw bogus %v, %m[%i] : (i32, memref<4xi32>) -> i32
  return
}

// CHECK: error: unknown memref.atomic_rmw kind 'bogus'; expected one of: addf, addi, assign, maxf, maximumf

// -----

func.func @f(%m: memref<4xi32>, %v: i32, %i: index) {
  %0 = memref.atomic_rmw xori %v, %m[%i] : (i32, memref<4xi32>) -> i32
  return
}

// CHECK: error: memref.atomic_rmw kind 'xori' (an atomic xor of MLIR 22) is not supported

// -----

func.func @f(%m: memref<4xi32>, %v: i32, %i: index) {
  %0 = "memref.atomic_rmw"(%v, %m, %i) <{kind = 7 : i64}> : (i32, memref<4xi32>, index) -> i32
  return
}

// CHECK: error: memref.atomic_rmw with kind = 7 in properties ({{.*}}) cannot be read: MLIR 18-19 number it mins, MLIR 22 maxu
