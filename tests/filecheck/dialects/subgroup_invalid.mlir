// What the subgroup ops refuse: types their shuffles cannot exchange, bitwise
// reductions of floats, use outside a function.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

gpuc.func @k(%x: f16, %o: i32) kernel {
  // CHECK: subgroup_invalid.mlir:[[# @LINE + 1]]:12: error: 'gpuc.shuffle' op exchanges f16; expected i32, i64, f32 or f64
  %r, %v = gpuc.shuffle xor %x, %o : f16
  gpuc.return
}

// -----

gpuc.func @k(%x: i8) kernel {
  // CHECK: subgroup_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.subgroup_reduce' op exchanges i8; expected i32, i64, f32 or f64
  %r = gpuc.subgroup_reduce add %x : i8
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: subgroup_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.subgroup_reduce' op reduces with 'xor', which needs an integer type, not f32
  %r = gpuc.subgroup_reduce xor %x : f32
  gpuc.return
}

// -----

// CHECK: subgroup_invalid.mlir:[[# @LINE + 1]]:6: error: 'gpuc.subgroup_id' op must be inside a function (gpuc.func)
%s = gpuc.subgroup_id
