// The spirv target's pipeline leaves loops for the OpenCL runtime's compiler
// to unroll and vectorize (a tile loop unrolled here ran 1.6-1.8x slower on
// Intel's CPU runtime); the ptx target's unrolls them as LLVM's O3 does.
// RUN: gpuc-opt %s -t 'llvm{target=spirv}' | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=ptx}' | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: define spir_kernel void @dot16(
// CHECK:       phi i64
// CHECK:       call float @llvm.fmuladd.f32
// CHECK-NOT:   fmuladd
// CHECK:       icmp eq i64 {{.*}}, 16
// CHECK:       ret void

// PTX-LABEL: define ptx_kernel void @dot16(
// PTX-COUNT-16: call float @llvm.fmuladd.f32
// PTX-NOT:     fmuladd
// PTX:         ret void
gpuc.func @dot16(%a: !gpuc.ptr<f32, global>, %b: !gpuc.ptr<f32, global>,
                 %out: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %j = %c0 to %c16 step %c1 iter_args(%s = %zero) -> (f32) {
    %x = gpuc.load %a[%j] : !gpuc.ptr<f32, global>
    %y = gpuc.load %b[%j] : !gpuc.ptr<f32, global>
    %p = arith.mulf %x, %y : f32
    %s2 = arith.addf %s, %p : f32
    scf.yield %s2 : f32
  }
  gpuc.store %sum, %out[%c0] : !gpuc.ptr<f32, global>
  gpuc.return
}
