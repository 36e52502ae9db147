// gpuc-opt reads standard MLIR too: builtin.module (nested and named), func,
// arith, math, scf, cf and memref, next to gpuc.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s

// CHECK-LABEL: builtin.module @outer attributes {gpuc.target = #gpuc.target<ptx, sm = 90>} {
// CHECK-NEXT:    builtin.module @inner {
// CHECK-NEXT:      func.func @f(%a: f32, %m: memref<4xf32>, %n: index) -> f32 {
// CHECK-NEXT:        %c0 = arith.constant 0 : index
// CHECK-NEXT:        %s = math.sqrt %a : f32
// CHECK-NEXT:        %x = memref.load %m[%c0] : memref<4xf32>
// CHECK-NEXT:        %r = scf.for %i = %c0 to %n step %n iter_args(%acc = %s) -> (f32) {
// CHECK-NEXT:          %t = arith.addf %acc, %x : f32
// CHECK-NEXT:          scf.yield %t : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        cf.br ^bb1(%r : f32)
// CHECK-NEXT:      ^bb1(%v: f32):
// CHECK-NEXT:        func.return %v : f32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.func @k() kernel {
builtin.module @outer attributes {gpuc.target = #gpuc.target<ptx, sm = 90>} {
  builtin.module @inner {
    func.func @f(%a: f32, %m: memref<4xf32>, %n: index) -> f32 {
      %c0 = arith.constant 0 : index
      %s = math.sqrt %a : f32
      %x = memref.load %m[%c0] : memref<4xf32>
      %r = scf.for %i = %c0 to %n step %n iter_args(%acc = %s) -> (f32) {
        %t = arith.addf %acc, %x : f32
        scf.yield %t : f32
      }
      cf.br ^bb1(%r : f32)
    ^bb1(%v : f32):
      func.return %v : f32
    }
  }
  gpuc.func @k() kernel {
    gpuc.return
  }
}
