// gpu.printf in custom form, as MLIR 16-19 print it and as MLIR 22 does (a
// comma after the format), in a func.func (xDSL reads gpu.func generically
// only): both read, and import as gpuc.printf.
// RUN: gpuc-opt -p import %s | FileCheck %s

// CHECK-LABEL: gpuc.func @f(%a: i32, %x: f32) helper
// CHECK-NEXT: gpuc.printf "a %d x %f" %a, %x : i32, f32
// CHECK-NEXT: gpuc.printf "a %d x %f" %a, %x : i32, f32
// CHECK-NEXT: gpuc.printf "none"
func.func @f(%a: i32, %x: f32) {
  gpu.printf "a %d x %f" %a, %x : i32, f32
  gpu.printf "a %d x %f", %a, %x : i32, f32
  gpu.printf "none"
  func.return
}
