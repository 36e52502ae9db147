// -p runs a pipeline of xDSL or gpuc passes; the module is verified before
// the first pass and after each one.
// RUN: gpuc-opt %s -p dce | FileCheck %s
// RUN: gpuc-opt %s -p dce,canonicalize --print-between-passes | FileCheck %s --check-prefix=BETWEEN

// CHECK-LABEL: gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    %v = gpuc.load %p : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.store %v, %p : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.return
// BETWEEN:       IR after dce:
// BETWEEN:       gpuc.func @k
// BETWEEN-NOT:   arith.constant
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %unused = arith.constant 1.0 : f32
  %v = gpuc.load %p : !gpuc.ptr<f32, global>
  gpuc.store %v, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
