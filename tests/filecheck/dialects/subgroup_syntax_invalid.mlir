// Errors in the syntax of the subgroup ops: each is a parse error at the
// offending token (--parsing-diagnostics prints it and goes on).
// RUN: gpuc-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

gpuc.func @k(%x: f32, %o: i32) kernel {
  // CHECK: subgroup_syntax_invalid.mlir:[[# @LINE + 1]]:25: error: Expected `xor`, `up`, `down`, or `idx`.
  %r, %v = gpuc.shuffle left %x, %o : f32
  gpuc.return
}

// -----

gpuc.func @k(%x: f32, %o: i64) kernel {
  // CHECK: subgroup_syntax_invalid.mlir:[[# @LINE + 1]]:33: error: operand is used with type i32, but has been previously used or defined with type i64
  %r, %v = gpuc.shuffle xor %x, %o : f32
  gpuc.return
}

