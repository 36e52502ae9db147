// Every verifier error of the deferred ops. A missing source is not one: the
// resolver looks for it in libraries and generators (see deferred.mlir).
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

gpuc.func @k() kernel {
  // CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.deferred_call' op a deferred call's job must be a helper (#gpuc.job<helper, ...>); to start a child kernel use gpuc.deferred_launch
  gpuc.deferred_call @child() #gpuc.job<kernel> : () -> ()
  gpuc.return
}

// -----

gpuc.func @k(%n: index) kernel {
  // CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.deferred_launch' op a deferred launch's job must be a kernel (#gpuc.job<kernel>); to call a helper use gpuc.deferred_call
  gpuc.deferred_launch @h grid(%n) block(%n) () #gpuc.job<helper, always_inline> : ()
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:9: error: 'gpuc.deferred_addr' op the address of a kernel job must have a signature without results
  %fp = gpuc.deferred_addr @child #gpuc.job<kernel> : !gpuc.funcptr<() -> f32>
  gpuc.return
}

// -----

gpuc.func @k(%n: index) kernel {
  // CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.deferred_launch' op grid takes 1 to 3 sizes (x, y, z), got 0
  "gpuc.deferred_launch"(%n) <{source = @child, job = #gpuc.job<kernel>, operandSegmentSizes = array<i32: 0, 1, 0, 0>}> : (index) -> ()
  gpuc.return
}

// -----

gpuc.func @k(%n: index) kernel {
  // CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.deferred_launch' op at most one dynamic shared-memory size
  "gpuc.deferred_launch"(%n, %n, %n, %n) <{source = @child, job = #gpuc.job<kernel>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (index, index, index, index) -> ()
  gpuc.return
}

// -----

gpuc.func @k(%a: f32) kernel {
  // CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op "helper" should be of base attribute gpuc.job
  %r = "gpuc.deferred_call"(%a) <{source = @src, job = "helper"}> : (f32) -> f32
  gpuc.return
}

// -----

// CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.deferred_kernel' op a deferred kernel's job must be a helper (#gpuc.job<helper, ...>): the kernel calls it; to launch a kernel job from the device use gpuc.deferred_launch
gpuc.deferred_kernel @k = @src #gpuc.job<kernel> : (f32) -> ()

// -----

// CHECK: deferred_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.deferred_kernel' op the job returns !gpuc.ptr<f32, global>; a deferred kernel adds each result into a pointer atomically, so results are integers or floats
gpuc.deferred_kernel @k = @src #gpuc.job<helper> : (f32) -> !gpuc.ptr<f32, global>
