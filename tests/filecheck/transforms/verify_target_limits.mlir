// verify-target rejects, at the op, what exceeds a target's limits: a kernel's
// static shared memory (from its #gpuc.finalized record, else the analysis)
// and an scf.for whose constant step is 0.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'attach-target{target=ptx},verify-target' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'attach-target{target=native},classify-entrypoints,finalize-kernels,verify-target' | FileCheck %s --check-prefix=NATIVE

// At the limit (48 KiB on both): accepted.
// CHECK-LABEL: gpuc.func @at_limit
// NATIVE-LABEL: gpuc.func @at_limit
// NATIVE-SAME:    shared = 49152
gpuc.func @at_limit() kernel {
  %s = gpuc.shared_alloc 12288 : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return
}

// -----

// A helper's allocation counts toward every kernel that calls it.
// NATIVE: verify_target_limits.mlir:[[# @LINE + 2]]:1: error: 'gpuc.func' op kernel @over uses 49156 bytes of static shared memory, more than the 49152 bytes the native target allows (the native executor's limit
// CHECK: verify_target_limits.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op kernel @over uses 49156 bytes of static shared memory, more than the 49152 bytes the ptx target allows (CUDA's limit on static shared memory; more needs dynamic shared memory: a !gpuc.ptr<T, shared> kernel parameter, launched with gpuc.SharedMemory(count)); allocate less workgroup memory (gpuc.shared_alloc, or an imported kernel's workgroup memrefs; helpers' allocations count too)
gpuc.func @over() kernel {
  %s = gpuc.shared_alloc 12288 : !gpuc.ptr<f32, shared>
  gpuc.call @helper() : () -> ()
  gpuc.return
}
gpuc.func @helper() helper {
  %s = gpuc.shared_alloc 1 : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return
}

// -----

gpuc.func @zero_step(%p: !gpuc.ptr<f32, global>, %v: f32) kernel {
  %lb = arith.constant 0 : index
  %ub = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  // CHECK: verify_target_limits.mlir:[[# @LINE + 2]]:3: error: 'scf.for' op step is 0: the loop would not terminate; give it a positive step
  // NATIVE: verify_target_limits.mlir:[[# @LINE + 1]]:3: error: 'scf.for' op step is 0: the loop would not terminate
  scf.for %i = %lb to %ub step %c0 {
    gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

// -----

// A step that is not a constant is the caller's business.
// CHECK-LABEL: gpuc.func @variable_step
// CHECK:         scf.for
gpuc.func @variable_step(%p: !gpuc.ptr<f32, global>, %v: f32, %n: index) kernel {
  %lb = arith.constant 0 : index
  %ub = arith.constant 8 : index
  scf.for %i = %lb to %ub step %n {
    gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
