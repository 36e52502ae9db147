// REQUIRES: spirv-dis
// With contraction on (the default), a product whose only use is an add or
// subtract in the same block becomes llvm.fmuladd, as clang emits `a * b + c`:
// SPIR-V cannot carry `contract`, so an OpenCL runtime fuses only fmuladd
// (OpenCL.std fma). With contraction off, a separate multiply and add.
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link fp_contract=false}' | FileCheck %s --check-prefix=OFF
// RUN: gpuc-opt %s -t spirv | FileCheck %s --check-prefix=SPIRV
// RUN: gpuc-opt %s -t 'spirv{fp_contract=false}' | FileCheck %s --check-prefix=SPIRV-OFF

// CHECK-LABEL: define float @mul_add(float %a, float %b, float %c)
// CHECK-NOT: = fmul
// CHECK: %r = call float @llvm.fmuladd.f32(float %a, float %b, float %c)
// CHECK-NOT: = fadd
// CHECK: ret float %r
// OFF-LABEL: define float @mul_add(float %a, float %b, float %c)
// OFF-NOT: fmuladd
// OFF: %p = fmul float %a, %b
// OFF: %r = fadd float %p, %c
// OFF-NOT: fmuladd
// OFF: ret float %r
gpuc.func @mul_add(%a: f32, %b: f32, %c: f32) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %r = arith.addf %p, %c : f32
  gpuc.return %r : f32
}

// The product on the right of the add fuses the same way.
// CHECK-LABEL: define double @add_mul(double %a, double %b, double %c)
// CHECK: %r = call double @llvm.fmuladd.f64(double %a, double %b, double %c)
gpuc.func @add_mul(%a: f64, %b: f64, %c: f64) -> f64 helper {
  %p = arith.mulf %a, %b : f64
  %r = arith.addf %c, %p : f64
  gpuc.return %r : f64
}

// `a * b - c` negates the addend, `c - a * b` the multiplier (both exact).
// CHECK-LABEL: define float @mul_sub(float %a, float %b, float %c)
// CHECK: [[NEG_C:%.+]] = fneg float %c
// CHECK: %r = call float @llvm.fmuladd.f32(float %a, float %b, float [[NEG_C]])
gpuc.func @mul_sub(%a: f32, %b: f32, %c: f32) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %r = arith.subf %p, %c : f32
  gpuc.return %r : f32
}

// CHECK-LABEL: define float @sub_mul(float %a, float %b, float %c)
// CHECK: [[NEG_A:%.+]] = fneg float %a
// CHECK: %r = call float @llvm.fmuladd.f32(float [[NEG_A]], float %b, float %c)
gpuc.func @sub_mul(%a: f32, %b: f32, %c: f32) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %r = arith.subf %c, %p : f32
  gpuc.return %r : f32
}

// Of two products, the left one fuses; the right one is multiplied first.
// CHECK-LABEL: define float @two_products(float %a, float %b, float %c, float %d)
// CHECK: %q = fmul contract float %c, %d
// CHECK: %r = call float @llvm.fmuladd.f32(float %a, float %b, float %q)
gpuc.func @two_products(%a: f32, %b: f32, %c: f32, %d: f32) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %q = arith.mulf %c, %d : f32
  %r = arith.addf %p, %q : f32
  gpuc.return %r : f32
}

// The fused call keeps the fast-math flags both ops have.
// CHECK-LABEL: define float @fast(float %a, float %b, float %c)
// CHECK: %r = call nnan ninf float @llvm.fmuladd.f32(float %a, float %b, float %c)
gpuc.func @fast(%a: f32, %b: f32, %c: f32) -> f32 helper {
  %p = arith.mulf %a, %b fastmath<nnan, ninf, nsz> : f32
  %r = arith.addf %p, %c fastmath<nnan, ninf, afn> : f32
  gpuc.return %r : f32
}

// A product with two uses is computed once and not fused.
// CHECK-LABEL: define float @shared_product(float %a, float %b, float %c)
// CHECK-NOT: fmuladd
// CHECK: %p = fmul contract float %a, %b
// CHECK: %s = fadd contract float %p, %c
// CHECK: %r = fadd contract float %s, %p
// CHECK-NOT: fmuladd
// CHECK: ret float %r
gpuc.func @shared_product(%a: f32, %b: f32, %c: f32) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %s = arith.addf %p, %c : f32
  %r = arith.addf %s, %p : f32
  gpuc.return %r : f32
}

// A product outside the block of its add (here, before a loop) stays there.
// CHECK-LABEL: define float @product_outside_loop(float %a, float %b, i64 %n)
// CHECK: %p = fmul contract float %a, %b
// CHECK: for.body:
// CHECK-NOT: fmuladd
// CHECK: fadd contract float %{{.*}}, %p
// CHECK-NOT: fmuladd
// CHECK: ret float
gpuc.func @product_outside_loop(%a: f32, %b: f32, %n: index) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %init = arith.constant 0.0 : f32
  %r = scf.for %i = %zero to %n step %one iter_args(%acc = %init) -> (f32) {
    %next = arith.addf %acc, %p : f32
    scf.yield %next : f32
  }
  gpuc.return %r : f32
}

// In SPIR-V the fusion arrives as OpenCL.std fma.
// SPIRV-LABEL: %axpy = OpFunction
// SPIRV: %a_axpy = OpFunctionParameter
// SPIRV: OpExtInst %float %{{.*}} fma %a_axpy
// SPIRV-OFF: OpExecutionMode %axpy ContractionOff
// SPIRV-OFF-NOT: fma
// SPIRV-OFF: OpFMul %float
// SPIRV-OFF: OpFAdd %float
gpuc.func @axpy(%a_axpy: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>) kernel {
  %xv = gpuc.load %x : !gpuc.ptr<f32, global>
  %yv = gpuc.load %y : !gpuc.ptr<f32, global>
  %p = arith.mulf %a_axpy, %xv : f32
  %r = arith.addf %p, %yv : f32
  gpuc.store %r, %y : !gpuc.ptr<f32, global>
  gpuc.return
}
