// gpuc-pipeline: the dialect-level pipeline as one pass; its options are
// target, exports and libraries (files, quoted).
// RUN: gpuc-opt %s -p 'gpuc-pipeline{libraries="%S/Inputs/resolve_library.mlir" exports=keep}' | FileCheck %s
// RUN: not gpuc-opt %s -p 'gpuc-pipeline{target=spirv libraries="%S/Inputs/resolve_library.mlir"}' 2>&1 | FileCheck %s --check-prefix=SPIRV

// The target is the module's gpuc.target; one the pass names that disagrees
// with it is a diagnostic (the target is set once). A job found in a library
// is resolved, linked, privatized; what nothing uses is gone. The module's
// target says O0, so `inline` keeps the helpers called once as calls.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<native, opt_level = 0>, gpuc.entrypoints = [@k, @keep]} {
// CHECK-NEXT:    gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel
// CHECK-NEXT:      %r = gpuc.call @lib_square.helper(%x) : (f32) -> f32
// CHECK:         gpuc.func @keep() helper
// CHECK-NOT:     @dropped
// CHECK:         gpuc.func private @lib_square.helper(
// CHECK:         gpuc.func private @lib_mul(
// CHECK:         gpuc.func private @lib_tail.helper(
// CHECK-NOT:     gpuc.func
// SPIRV: gpuc_pipeline.mlir:[[# @LINE + 1]]:1: error: 'builtin.module' op the module is configured for native ('gpuc.target') and cannot be compiled for spirv
builtin.module attributes {gpuc.target = #gpuc.target<native, opt_level = 0>} {
  gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
    %r = gpuc.deferred_call @lib_square(%x) #gpuc.job<helper> : (f32) -> f32
    gpuc.store %r, %p : !gpuc.ptr<f32, global>
    gpuc.return
  }
  gpuc.func @keep() helper {
    gpuc.return
  }
  gpuc.func @dropped() helper {
    gpuc.return
  }
}
