// What the warp matrix ops refuse: memory of
// another element type or space, fragments of the wrong operand, transpose
// flags that disagree with the loads, elementwise arities and types.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

gpuc.func @k(%p: !gpuc.ptr<f32, global>, %i: index) kernel {
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_load' op the matrix's memory holds f32 but the fragment !gpuc.fragment<16x16xf16, a> holds f16; they must be the same
  %a = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf16, a>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f16, constant>, %i: index) kernel {
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_load' op the matrix's memory is in constant memory; a fragment is loaded from and stored to global, shared, generic memory
  %a = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, constant> -> !gpuc.fragment<16x16xf16, a>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f16, global>, %i: index) kernel {
  %a = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.matrix_store' op stores !gpuc.fragment<16x16xf16, a>; only accumulator fragments (operand c, what gpuc.matrix_mma returns) are stored
  gpuc.matrix_store %a, %p[%i], %i : !gpuc.fragment<16x16xf16, a>, !gpuc.ptr<f16, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f16, global>, %i: index) kernel {
  %a = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %c = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_mma' op takes !gpuc.fragment<16x16xf16, a> as B; B is a fragment of operand b
  %d = gpuc.matrix_mma %a, %a, %c : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, c>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f16, global>, %i: index) kernel {
  %a = gpuc.matrix_load %p[%i], %i transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %b = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
  %c = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_mma' op A was loaded with transpose but the op lacks a_transpose; add a_transpose (it says how A and B were loaded)
  %d = gpuc.matrix_mma %a, %b, %c : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf16, c>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f16, global>, %i: index) kernel {
  %a = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %b = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
  %c = gpuc.matrix_load %p[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_mma' op B was loaded without transpose but the op has b_transpose; remove b_transpose (it says how A and B were loaded)
  %d = gpuc.matrix_mma %a, %b, %c b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf16, c>
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_splat' op fills !gpuc.fragment<16x16xf16, c> with a f32; the value is a f16
  %c = gpuc.matrix_splat %x : f32 -> !gpuc.fragment<16x16xf16, c>
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  %c = gpuc.matrix_splat %x : f32 -> !gpuc.fragment<16x16xf32, c>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_elementwise' op addf takes 2 operands, not 1
  %r = gpuc.matrix_elementwise addf %c : !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.return
}

// -----

gpuc.func @k(%x: f32) kernel {
  %c = gpuc.matrix_splat %x : f32 -> !gpuc.fragment<16x16xf32, c>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_elementwise' op extf widens an f16 fragment to f32, not !gpuc.fragment<16x16xf32, c>
  %r = gpuc.matrix_elementwise extf %c : !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.return
}

// -----

gpuc.func @k(%x: f16) kernel {
  %c = gpuc.matrix_splat %x : f16 -> !gpuc.fragment<16x16xf16, c>
  // CHECK: matrix_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.matrix_elementwise' op addf of !gpuc.fragment<16x16xf16, c> returns !gpuc.fragment<16x16xf16, c>, not !gpuc.fragment<16x16xf32, c>
  %r = gpuc.matrix_elementwise addf %c, %c : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.return
}
