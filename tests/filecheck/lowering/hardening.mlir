// Inputs that used to end in an internal error or an unlocated one: each is a
// diagnostic at the op that causes it.
// RUN: not gpuc-opt %s --split-input-file -t 'llvm{target=ptx stage=link}' 2>&1 | FileCheck %s

// CHECK: hardening.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op a function needs a non-empty name
gpuc.func @""() kernel {
  gpuc.return
}

// -----

// CHECK: hardening.mlir:[[# @LINE + 1]]:1: error: !gpuc.ptr cannot point to i0: it has no size in memory
gpuc.func @k(%p: !gpuc.ptr<i0, global>) kernel {
  gpuc.return
}

// -----

// CHECK: hardening.mlir:[[# @LINE + 2]]:8: error: 'gpuc.load' op type f8E4M3FN has no LLVM lowering
gpuc.func @k(%p: !gpuc.ptr<f8E4M3FN, global>) kernel {
  %v = gpuc.load %p : !gpuc.ptr<f8E4M3FN, global>
  gpuc.store %v, %p : !gpuc.ptr<f8E4M3FN, global>
  gpuc.return
}

// -----

// CHECK: hardening.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op type complex<f32> has no LLVM lowering
gpuc.func @k(%x: complex<f32>) kernel {
  gpuc.return
}
// CHECK-NOT: internal error
