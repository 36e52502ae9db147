// f16 lowers to LLVM's half; bf16 is an i16 of its bits, computed in f32
// (lowering/bf16.py): widened by a shift, rounded back to nearest-even with
// integer code, so every target (SPIR-V without SPV_KHR_bfloat16 included)
// takes it.
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=native stage=link}' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=SPIRV

// CHECK-LABEL: define half @f16_ops(half %a, half %b)
// CHECK: fadd contract half %a, %b
// CHECK: fdiv half
// CHECK: call half @llvm.maximum.f16
// CHECK: fneg half
// SPIRV-LABEL: define spir_func half @f16_ops(half %a, half %b)
gpuc.func @f16_ops(%a: f16, %b: f16) -> f16 helper {
  %0 = arith.addf %a, %b : f16
  %1 = arith.divf %0, %b : f16
  %2 = arith.maximumf %1, %a : f16
  %3 = arith.negf %2 : f16
  gpuc.return %3 : f16
}

// -----

// math on f16 is the f32 function, rounded to f16 once (as MLIR lowers it).
// CHECK-LABEL: define half @exp16(half %a)
// CHECK: %[[W:.+]] = fpext half %a to float
// CHECK: %[[E:.+]] = call float @{{.*}}exp{{.*}}(float %[[W]])
// CHECK: fptrunc float %[[E]] to half
// SPIRV-LABEL: define spir_func half @exp16(half %a)
// SPIRV: fpext half %a to float
gpuc.func @exp16(%a: f16) -> f16 helper {
  %0 = math.exp %a : f16
  gpuc.return %0 : f16
}

// -----

// The operands widen (zext, shl 16, bitcast), the f32 sum rounds to nearest-
// even (add 0x7FFF plus the kept half's lowest bit; a NaN is quieted instead).
// CHECK-LABEL: define i16 @bf16_add(i16 %a, i16 %b)
// CHECK: %[[A:.+]] = zext i16 %a to i32
// CHECK: %[[AH:.+]] = shl i32 %[[A]], 16
// CHECK: %[[AF:.+]] = bitcast i32 %[[AH]] to float
// CHECK: %[[BF:.+]] = bitcast i32 %{{.+}} to float
// CHECK: %[[SUM:.+]] = fadd float %[[AF]], %[[BF]]
// CHECK: %[[BITS:.+]] = bitcast float %[[SUM]] to i32
// CHECK: icmp ugt i32 %{{.+}}, 2139095040
// CHECK: add i32 32767,
// CHECK: or i32 %[[BITS]], 4194304
// CHECK: %[[TOP:.+]] = lshr i32 %{{.+}}, 16
// CHECK: trunc i32 %[[TOP]] to i16
// SPIRV-LABEL: define spir_func i16 @bf16_add(i16 %a, i16 %b)
// SPIRV-NOT: bfloat
// SPIRV: fadd float
gpuc.func @bf16_add(%a: bf16, %b: bf16) -> bf16 helper {
  %0 = arith.addf %a, %b : bf16
  gpuc.return %0 : bf16
}

// -----

// A bf16 constant is its bits, rounded from the double once (0.1: 0x3DCD).
// CHECK-LABEL: define i16 @bf16_const()
// CHECK: ret i16 15821
gpuc.func @bf16_const() -> bf16 helper {
  %0 = arith.constant 0.1 : bf16
  gpuc.return %0 : bf16
}

// -----

// negf flips the sign bit; cmpf compares the widened operands.
// CHECK-LABEL: define i1 @bf16_neg_cmp(i16 %a, i16 %b)
// CHECK: xor i16 %a, -32768
// CHECK: fcmp olt float
gpuc.func @bf16_neg_cmp(%a: bf16, %b: bf16) -> i1 helper {
  %0 = arith.negf %a : bf16
  %1 = arith.cmpf olt, %0, %b : bf16
  gpuc.return %1 : i1
}

// -----

// From f64: to f32 rounded to odd (an inexact result with an even last bit
// steps toward the double), then to nearest-even.
// CHECK-LABEL: define i16 @bf16_from_f64(double %a)
// CHECK: %[[S:.+]] = fptrunc double %a to float
// CHECK: %[[BACK:.+]] = fpext float %[[S]] to double
// CHECK: fcmp one double %[[BACK]], %a
// CHECK: call double @llvm.fabs.f64
// CHECK: select i1 %{{.+}}, i32 1, i32 -1
// CHECK: trunc i32 %{{.+}} to i16
gpuc.func @bf16_from_f64(%a: f64) -> bf16 helper {
  %0 = arith.truncf %a : f64 to bf16
  gpuc.return %0 : bf16
}

// -----

// From i64: the bits below an f64's 53 fold into a sticky bit first.
// CHECK-LABEL: define i16 @bf16_from_i64(i64 %a)
// CHECK: icmp uge i64 %{{.+}}, 9007199254740992
// CHECK: and i64 %{{.+}}, 2047
// CHECK: lshr i64 %{{.+}}, 11
// CHECK: fmul double %{{.+}}, 2.048000e+03
gpuc.func @bf16_from_i64(%a: i64) -> bf16 helper {
  %0 = arith.sitofp %a : i64 to bf16
  gpuc.return %0 : bf16
}

// -----

// A bitcast to i16 is the value itself; a load is an i16 load.
// CHECK-LABEL: define i16 @bf16_bits(ptr %p)
// CHECK: %[[V:.+]] = load i16, ptr %{{.+}}, align 2
// CHECK: ret i16 %[[V]]
gpuc.func @bf16_bits(%p: !gpuc.ptr<bf16, global>) -> i16 helper {
  %v = gpuc.load %p : !gpuc.ptr<bf16, global>
  %0 = arith.bitcast %v : bf16 to i16
  gpuc.return %0 : i16
}
