// A float constant written as its bits keeps them through gpuc-opt's parser
// and printer: signalling NaNs stay signalling, NaN payloads stay (xDSL alone
// quiets the first and drops an f16's payload).
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s -p canonicalize,cse | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @nans()
// CHECK-NEXT:    %s32 = arith.constant 0x7fa00001 : f32
// CHECK-NEXT:    %q32 = arith.constant 0xffc00123 : f32
// CHECK-NEXT:    %q16 = arith.constant 0x7e01 : f16
// CHECK-NEXT:    %s16 = arith.constant 0x7c01 : f16
// CHECK-NEXT:    %s64 = arith.constant 0x7ff0000000000001 : f64
// CHECK-NEXT:    %inf = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    %one = arith.constant 1.000000e+00 : f32
func.func @nans() -> (f32, f32, f16, f16, f64, f32, f32) {
  %s32 = arith.constant 0x7FA00001 : f32
  %q32 = arith.constant 0xFFC00123 : f32
  %q16 = arith.constant 0x7E01 : f16
  %s16 = arith.constant 0x7C01 : f16
  %s64 = arith.constant 0x7FF0000000000001 : f64
  %inf = arith.constant 0x7F800000 : f32
  %one = arith.constant 0x3F800000 : f32
  func.return %s32, %q32, %q16, %s16, %s64, %inf, %one : f32, f32, f16, f16, f64, f32, f32
}

// Two NaNs that differ only in their quiet bit are two constants.
// CSE-LABEL: func.func @apart()
// CSE-NEXT:    %{{.*}} = arith.constant 0x7fa00001 : f32
// CSE-NEXT:    %{{.*}} = arith.constant 0x7fe00001 : f32
func.func @apart() -> (f32, f32) {
  %a = arith.constant 0x7FA00001 : f32
  %b = arith.constant 0x7FE00001 : f32
  func.return %a, %b : f32, f32
}
