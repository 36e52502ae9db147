// REQUIRES: libdevice
// Math without a PTX instruction comes from libdevice, linked in only when
// used (and then inlined); sqrt and friends are instructions.
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// CHECK-NOT: .extern
// CHECK-NOT: __nv_
// CHECK: sqrt.rn.f32
// CHECK: ex2.approx.ftz.f32
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %v = gpuc.load %p : !gpuc.ptr<f32, global>
  %r = math.sqrt %v : f32
  %e = math.exp %r : f32
  gpuc.store %e, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
