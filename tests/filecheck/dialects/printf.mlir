// gpuc.printf round-trips: a format (escapes as MLIR prints them), the
// values and their types; none for a format without conversions.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s

// CHECK-LABEL: gpuc.func @k
// CHECK: gpuc.printf "x = %d, f = %.3f, p = %p\0A" %x, %f, %p : i32, f32, !gpuc.ptr<f32, global>
// CHECK: gpuc.printf "100%% done\0A"
gpuc.func @k(%x: i32, %f: f32, %p: !gpuc.ptr<f32, global>) kernel {
  gpuc.printf "x = %d, f = %.3f, p = %p\n" %x, %f, %p : i32, f32, !gpuc.ptr<f32, global>
  gpuc.printf "100%% done\0A"
  gpuc.return
}
