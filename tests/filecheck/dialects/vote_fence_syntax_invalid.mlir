// Errors in the syntax of the votes and fences: each is a parse error at the
// offending token (--parsing-diagnostics prints it and goes on).
// RUN: gpuc-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

gpuc.func @k(%x: i32) kernel {
  // CHECK: vote_fence_syntax_invalid.mlir:[[# @LINE + 1]]:22: error: operand is used with type i1, but has been previously used or defined with type i32
  %b = gpuc.vote any %x
  gpuc.return
}

// -----

gpuc.func @k(%p: i1) kernel {
  // CHECK: vote_fence_syntax_invalid.mlir:[[# @LINE + 1]]:18: error: Expected `any`, or `all`.
  %b = gpuc.vote some %p
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: vote_fence_syntax_invalid.mlir:[[# @LINE + 1]]:14: error: Expected `block`, `device`, or `system`.
  gpuc.fence warp seq_cst
  gpuc.return
}
