// Types and bf16 ops no target lowers are diagnostics at the op, with the
// source location.
// RUN: not gpuc-opt %s --split-input-file -t 'llvm{target=native stage=link}' 2>&1 | FileCheck %s

// CHECK: half_types_errors.mlir:[[# @LINE + 4]]:8: error: 'gpuc.load' op type f8E4M3FN has no LLVM lowering; gpuc lowers integers (i1 and wider), index, f16, bf16, f32, f64, !gpuc.ptr, !gpuc.funcptr and 1-D vectors of them
// CHECK-NOT: Traceback
gpuc.func @f8(%p: !gpuc.ptr<f8E4M3FN, global>, %q: !gpuc.ptr<f8E4M3FN, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %p[%i] : !gpuc.ptr<f8E4M3FN, global>
  gpuc.store %v, %q[%i] : !gpuc.ptr<f8E4M3FN, global>
  gpuc.return
}

// -----

// A shared array of a type without a memory size is refused at its allocation.
// CHECK: half_types_errors.mlir:[[# @LINE + 2]]:8: error: 'gpuc.shared_alloc' op allocates elements of f8E5M2, a type with no memory size
gpuc.func @shared_f8() -> !gpuc.ptr<f8E5M2, shared> helper {
  %s = gpuc.shared_alloc 4 : !gpuc.ptr<f8E5M2, shared>
  gpuc.return %s : !gpuc.ptr<f8E5M2, shared>
}
