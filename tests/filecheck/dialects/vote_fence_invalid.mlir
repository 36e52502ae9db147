// What the votes, ballots, new reduction kinds and fences refuse: masks of
// other widths, kinds on the wrong type, a relaxed fence (it orders
// nothing), use outside a function.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

gpuc.func @k(%p: i1) kernel {
  // CHECK: vote_fence_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.ballot' op gives a mask of type i16; expected i32 or i64
  %b = gpuc.ballot %p : i16
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: vote_fence_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.subgroup_reduce' op reduces with 'umax', which needs an integer type, not f32
  %r = gpuc.subgroup_reduce umax %x : f32
  gpuc.return
}

// -----

gpuc.func @k(%x: i32) kernel {
  // CHECK: vote_fence_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.subgroup_reduce' op reduces with 'minimum', which needs a float type, not i32
  %r = gpuc.subgroup_reduce minimum %x : i32
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: vote_fence_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.fence' op is relaxed, which orders nothing; use acquire, release, acq_rel or seq_cst
  gpuc.fence device relaxed
  gpuc.return
}

// -----

// CHECK: vote_fence_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.fence' op must be inside a function (gpuc.func)
gpuc.fence system seq_cst
