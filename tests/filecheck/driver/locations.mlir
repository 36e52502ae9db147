// Every parsed op carries the file:line:col of its name (an explicit loc(..)
// wins); --print-debuginfo shows them, and split pieces keep whole-file lines.
// RUN: gpuc-opt %s --split-input-file --print-debuginfo | FileCheck %s

// CHECK:      gpuc.func @k(%p: !gpuc.ptr<f32, global>{{.*}}) kernel {
// CHECK-NEXT:   %i = gpuc.global_id x loc("{{.*}}locations.mlir":[[# @LINE + 6]]:8)
// CHECK-NEXT:   %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global> loc("{{.*}}locations.mlir":[[# @LINE + 6]]:8)
// CHECK-NEXT:   gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global> loc("source.cu":12:3)
// CHECK-NEXT:   gpuc.return loc("{{.*}}locations.mlir":[[# @LINE + 6]]:3)
// CHECK-NEXT: } loc("{{.*}}locations.mlir":[[# @LINE + 1]]:1)
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global> loc("source.cu":12:3)
  gpuc.return
}

// -----

// CHECK: gpuc.barrier loc("{{.*}}locations.mlir":[[# @LINE + 2]]:3)
gpuc.func @second() kernel {
  gpuc.barrier
  gpuc.return
}
