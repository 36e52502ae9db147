// A deferred op reaching the lowering means the dialect pipeline did not run:
// the lowering's own preparation (an entrypoint set) refuses it.
// RUN: not gpuc-opt %s -t ptx 2>&1 | FileCheck %s

// CHECK: deferred_op.mlir:[[# @LINE + 3]]:8: error: 'gpuc.deferred_call' op the entrypoint set is computed after resolution, but this deferred op is unresolved; run resolve-deferred first
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %x: f32) kernel {
  %y = gpuc.load %p : !gpuc.ptr<f32, global>
  %r = gpuc.deferred_call @h(%y) #gpuc.job<helper> : (f32) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @h(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}
