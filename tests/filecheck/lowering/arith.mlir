// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link fp_contract=false}' | FileCheck %s --check-prefix=NOCONTRACT

// Integer arithmetic maps one to one; overflow flags are kept.
// CHECK-LABEL: define i32 @int_ops(i32 %a, i32 %b)
// CHECK: add nsw i32 %a, %b
// CHECK: sub i32 %a, %b
// CHECK: mul i32 %a, %b
// CHECK: sdiv i32 %a, %b
// CHECK: udiv i32 %a, %b
// CHECK: srem i32 %a, %b
// CHECK: urem i32 %a, %b
// CHECK: and i32 %a, %b
// CHECK: or i32 %a, %b
// CHECK: xor i32 %a, %b
// CHECK: shl i32 %a, %b
// CHECK: ashr i32 %a, %b
// CHECK: lshr i32 %a, %b
// CHECK: call i32 @llvm.smin.i32(i32 %a, i32 %b)
// CHECK: call i32 @llvm.umax.i32(i32 %a, i32 %b)
gpuc.func @int_ops(%a: i32, %b: i32) -> i32 helper {
  %0 = arith.addi %a, %b overflow<nsw> : i32
  %1 = arith.subi %a, %b : i32
  %2 = arith.muli %a, %b : i32
  %3 = arith.divsi %a, %b : i32
  %4 = arith.divui %a, %b : i32
  %5 = arith.remsi %a, %b : i32
  %6 = arith.remui %a, %b : i32
  %7 = arith.andi %a, %b : i32
  %8 = arith.ori %a, %b : i32
  %9 = arith.xori %a, %b : i32
  %10 = arith.shli %a, %b : i32
  %11 = arith.shrsi %a, %b : i32
  %12 = arith.shrui %a, %b : i32
  %13 = arith.minsi %a, %b : i32
  %14 = arith.maxui %a, %b : i32
  gpuc.return %14 : i32
}

// Multiply and add carry `contract` (nvcc's default) unless it is turned off.
// CHECK-LABEL: define float @float_ops(float %a, float %b)
// CHECK: fadd contract float %a, %b
// CHECK: fsub contract float %a, %b
// CHECK: fmul contract float %a, %b
// CHECK: fdiv float %a, %b
// CHECK: fneg float %a
// CHECK: fmul fast float %a, %b
// CHECK: call float @llvm.minimum.f32(float %a, float %b)
// CHECK: call float @llvm.maxnum.f32(float %a, float %b)
// NOCONTRACT-LABEL: define float @float_ops(float %a, float %b)
// NOCONTRACT: fadd float %a, %b
// NOCONTRACT: fsub float %a, %b
// NOCONTRACT: fmul float %a, %b
gpuc.func @float_ops(%a: f32, %b: f32) -> f32 helper {
  %0 = arith.addf %a, %b : f32
  %1 = arith.subf %a, %b : f32
  %2 = arith.mulf %a, %b : f32
  %3 = arith.divf %a, %b : f32
  %4 = arith.negf %a : f32
  %5 = arith.mulf %a, %b fastmath<fast> : f32
  %6 = arith.minimumf %a, %b : f32
  %7 = arith.maxnumf %a, %b : f32
  gpuc.return %7 : f32
}

// Every cast, the unsigned ones included; index is the target's pointer width.
// CHECK-LABEL: define i64 @casts(i32 %i, i64 %l, float %f, double %d, i64 %x)
// CHECK: sext i32 %i to i64
// CHECK: zext i32 %i to i64
// CHECK: trunc i64 %l to i32
// CHECK: sitofp i32 %i to float
// CHECK: uitofp i32 %i to float
// CHECK: fptosi float %f to i32
// CHECK: fptoui float %f to i32
// CHECK: fpext float %f to double
// CHECK: fptrunc double %d to float
// CHECK: bitcast float %f to i32
// CHECK: sext i32 %i to i64
// CHECK: trunc i64 %x to i32
// CHECK: ret i64 %x
gpuc.func @casts(%i: i32, %l: i64, %f: f32, %d: f64, %x: index) -> index helper {
  %0 = arith.extsi %i : i32 to i64
  %1 = arith.extui %i : i32 to i64
  %2 = arith.trunci %l : i64 to i32
  %3 = arith.sitofp %i : i32 to f32
  %4 = arith.uitofp %i : i32 to f32
  %5 = arith.fptosi %f : f32 to i32
  %6 = arith.fptoui %f : f32 to i32
  %7 = arith.extf %f : f32 to f64
  %8 = arith.truncf %d : f64 to f32
  %9 = arith.bitcast %f : f32 to i32
  %10 = arith.index_cast %i : i32 to index
  %11 = arith.index_cast %x : index to i32
  %12 = arith.index_cast %l : i64 to index
  gpuc.return %x : index
}

// Comparisons: signed and unsigned predicates, ordered and unordered floats.
// CHECK-LABEL: define i1 @compare(i32 %a, i32 %b, float %f, float %g)
// CHECK: icmp slt i32 %a, %b
// CHECK: icmp uge i32 %a, %b
// CHECK: fcmp olt float %f, %g
// CHECK: fcmp une float %f, %g
// CHECK: select i1
gpuc.func @compare(%a: i32, %b: i32, %f: f32, %g: f32) -> i1 helper {
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.cmpi uge, %a, %b : i32
  %2 = arith.cmpf olt, %f, %g : f32
  %3 = arith.cmpf une, %f, %g : f32
  %4 = arith.select %0, %1, %2 : i1
  gpuc.return %4 : i1
}

// Constants, and the divisions that round towards +inf or -inf.
// CHECK-LABEL: define i32 @constants_and_rounding(i32 %a, i32 %b)
// CHECK: ret i32 42
// CHECK-LABEL: define float @float_constant()
// CHECK: ret float 0x3FB99999A0000000
gpuc.func @constants_and_rounding(%a: i32, %b: i32) -> i32 helper {
  %c = arith.constant 42 : i32
  %0 = arith.ceildivsi %a, %b : i32
  %1 = arith.floordivsi %a, %b : i32
  %2 = arith.ceildivui %a, %b : i32
  gpuc.return %c : i32
}
gpuc.func @float_constant() -> f32 helper {
  %c = arith.constant 0.1 : f32
  gpuc.return %c : f32
}

// A float converts to i1 through i32 (LLVM's SPIR-V back-end cannot select
// a conversion straight to i1, and every in-range result is the same).
// CHECK-LABEL: define i1 @float_to_bool(float %f)
// CHECK: [[W:%.*]] = fptoui float %f to i32
// CHECK-NEXT: %b = trunc i32 [[W]] to i1
gpuc.func @float_to_bool(%f: f32) -> i1 helper {
  %b = arith.fptoui %f : f32 to i1
  gpuc.return %b : i1
}
