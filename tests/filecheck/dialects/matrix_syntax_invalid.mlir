// Fragment types gpuc does not support are refused where they are written.
// RUN: gpuc-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

gpuc.func @k(%p: !gpuc.ptr<f16, global>, %i: index) kernel {
  // CHECK: matrix_syntax_invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: a 32x8xf16 fragment of operand a is not supported; the supported shape is m16n16k16: !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b> and !gpuc.fragment<16x16xf16, c> or !gpuc.fragment<16x16xf32, c>
  %a = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<32x8xf16, a>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %i: index) kernel {
  // CHECK: matrix_syntax_invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: a 16x16xf32 fragment of operand b is not supported
  %b = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, b>
  gpuc.return
}

