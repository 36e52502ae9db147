// An op without a translator is a diagnostic naming the op and where it is.
// RUN: not gpuc-opt --allow-unregistered-dialect %s -t llvm 2>&1 | FileCheck %s

// CHECK: unknown_op.mlir:[[# @LINE + 3]]:8: error: {{.*}} no translation to LLVM IR is known for 'test.mystery'; lower it to gpuc, arith, math, scf or cf first, or register a translator for it (docs/extending.md)
// CHECK-NOT: Traceback
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %v = "test.mystery"() : () -> f32
  gpuc.store %v, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
