// The index and synchronization ops read the running kernel's launch
// configuration: outside a function they mean nothing.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.barrier' op must be inside a function (gpuc.func)
gpuc.barrier

// -----

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.thread_id' op must be inside a function (gpuc.func)
%t = gpuc.thread_id x

// -----

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.block_id' op must be inside a function (gpuc.func)
%b = gpuc.block_id y

// -----

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.block_dim' op must be inside a function (gpuc.func)
%d = gpuc.block_dim z

// -----

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.grid_dim' op must be inside a function (gpuc.func)
%g = gpuc.grid_dim x

// -----

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.global_id' op must be inside a function (gpuc.func)
%i = gpuc.global_id x

// -----

// CHECK: index_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.lane_id' op must be inside a function (gpuc.func)
%l = gpuc.lane_id

// -----

// Nested in a module that is not a function is still outside.
builtin.module @m {
  // CHECK: index_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.barrier' op must be inside a function (gpuc.func)
  gpuc.barrier
}

// -----

gpuc.func @k() kernel {
  // CHECK: index_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.thread_id' op result 'result' at position 0 does not verify: f32 should be of base attribute index
  %t = "gpuc.thread_id"() <{dimension = #gpuc<dim x>}> : () -> f32
  gpuc.return
}
