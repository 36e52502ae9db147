// a * x + y becomes one fma by default (nvcc's -fmad=true); turned off, a
// separate multiply and add.
// RUN: gpuc-opt %s -t ptx | FileCheck %s
// RUN: gpuc-opt %s -t 'ptx{fp_contract=false}' | FileCheck %s --check-prefix=OFF

// CHECK: fma.rn.f32
// CHECK-NOT: mul.rn.f32
// OFF-NOT: fma.rn.f32
// OFF: mul.rn.f32
// OFF: add.rn.f32
gpuc.func @axpy(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>) kernel {
  %xv = gpuc.load %x : !gpuc.ptr<f32, global>
  %yv = gpuc.load %y : !gpuc.ptr<f32, global>
  %p = arith.mulf %a, %xv : f32
  %r = arith.addf %p, %yv : f32
  gpuc.store %r, %y : !gpuc.ptr<f32, global>
  gpuc.return
}
