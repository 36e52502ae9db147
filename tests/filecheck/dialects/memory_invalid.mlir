// Every verifier error of the pointer ops, reported at the failing op's line.
// Mismatched types cannot be written in the custom form (it derives them from
// the pointer type), so those cases use the generic form.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.load' op loads i32 through !gpuc.ptr<f32, global>, whose element type is f32
  %v = "gpuc.load"(%p) : (!gpuc.ptr<f32, global>) -> i32
  gpuc.return
}

// -----

gpuc.func @k(%p: f32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.load' op operand 'ptr' at position 0 does not verify: f32 should be of base attribute gpuc.ptr
  %v = "gpuc.load"(%p) : (f32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %i: i32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.load' op operand 'index' at position 1 does not verify: i32 should be of base attribute index
  %v = "gpuc.load"(%p, %i) : (!gpuc.ptr<f32, global>, i32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %v: i32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.store' op stores i32 through !gpuc.ptr<f32, global>, whose element type is f32
  "gpuc.store"(%v, %p) : (i32, !gpuc.ptr<f32, global>) -> ()
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, constant>, %v: f32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.store' op cannot store through a pointer to constant memory
  gpuc.store %v, %p : !gpuc.ptr<f32, constant>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %i: index) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.offset' op result type !gpuc.ptr<f32, generic> differs from the pointer's type !gpuc.ptr<f32, global>
  %q = "gpuc.offset"(%p, %i) : (!gpuc.ptr<f32, global>, index) -> !gpuc.ptr<f32, generic>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.shared_alloc' op allocates !gpuc.ptr<f32, global>; a shared allocation's pointer must be in the shared address space
  %s = gpuc.shared_alloc 4 : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.shared_alloc' op allocates 0 elements; the count must be positive
  %s = gpuc.shared_alloc 0 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.shared_alloc' op allocates -8 elements; the count must be positive
  %s = gpuc.shared_alloc -8 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.shared_alloc' op alignment 12 is not a positive power of two
  %s = gpuc.shared_alloc 4 align 12 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.shared_alloc' op alignment 0 is not a positive power of two
  %s = gpuc.shared_alloc 4 align 0 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

// CHECK: memory_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.shared_alloc' op must be inside a function (gpuc.func)
%s = gpuc.shared_alloc 4 : !gpuc.ptr<f32, shared>

// -----

gpuc.func @k(%p: !gpuc.ptr<i32, local>, %v: i32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op atomics need a global, shared or generic pointer, not !gpuc.ptr<i32, local>
  %o = gpuc.atomic_rmw add %p, %v : !gpuc.ptr<i32, local>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<i32, constant>, %v: i32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op atomics need a global, shared or generic pointer, not !gpuc.ptr<i32, constant>
  %o = gpuc.atomic_rmw exchange %p, %v : !gpuc.ptr<i32, constant>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %v: f32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op atomic 'and' needs an integer element type, not f32
  %o = gpuc.atomic_rmw and %p, %v : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f64, shared>, %v: f64) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op atomic 'umax' needs an integer element type, not f64
  %o = gpuc.atomic_rmw umax %p, %v : !gpuc.ptr<f64, shared>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %v: f32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op atomic 'xor' needs an integer element type, not f32
  %o = gpuc.atomic_rmw xor %p, %v : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<index, global>, %v: index) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op atomics work on integers and floats, not index
  %o = gpuc.atomic_rmw add %p, %v : !gpuc.ptr<index, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<i32, global>, %v: i64) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_rmw' op operand and result must be i32, the element type of !gpuc.ptr<i32, global>
  %o = "gpuc.atomic_rmw"(%p, %v) <{kind = #gpuc<atomic_kind add>}> : (!gpuc.ptr<i32, global>, i64) -> i64
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %v: f32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_cmpxchg' op compare-exchange needs an integer element type, not f32 (bitcast floats to an integer of the same width)
  %o = gpuc.atomic_cmpxchg %p, %v, %v : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<i32, local>, %v: i32) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_cmpxchg' op atomics need a global, shared or generic pointer, not !gpuc.ptr<i32, local>
  %o = gpuc.atomic_cmpxchg %p, %v, %v : !gpuc.ptr<i32, local>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<i32, global>, %v: i32, %w: i64) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.atomic_cmpxchg' op operands and result must be i32, the element type of !gpuc.ptr<i32, global>
  %o = "gpuc.atomic_cmpxchg"(%p, %v, %w) : (!gpuc.ptr<i32, global>, i32, i64) -> i32
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.addrspace_cast' op cannot change the element type (f32 to i32) in an address-space cast
  %g = gpuc.addrspace_cast %p : !gpuc.ptr<f32, global> to !gpuc.ptr<i32, generic>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.addrspace_cast' op casts !gpuc.ptr<f32, global> to its own address space
  %g = gpuc.addrspace_cast %p : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  // CHECK: memory_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.addrspace_cast' op cannot cast !gpuc.ptr<f32, global> to !gpuc.ptr<f32, shared> directly; cast to or from generic
  %g = gpuc.addrspace_cast %p : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, shared>
  gpuc.return
}
