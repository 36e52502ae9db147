// gpuc.printf is CUDA's vprintf: the format a global constant (cast to a
// generic pointer), the values promoted as C passes them to `...` (f32 to
// f64, i8 to i32) in a local buffer at their natural alignment; a 64-bit
// value's conversion is respelled with `l`. vprintf is the driver's own, so
// the PTX is not relocatable.
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s --check-prefix=LLVM
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// LLVM: @gpuc.printf.format = private unnamed_addr addrspace(1) constant [24 x i8] c"x=%d f=%.2f c=%u i=%ld\0A\00"
// LLVM-LABEL: define ptx_kernel void @k
// LLVM: %printf.args = alloca { i32, double, i32, i64 }
// LLVM: fpext float %f to double
// LLVM: zext i8 %c to i32
// LLVM: call i32 @vprintf(ptr %{{.*}}, ptr %printf.args)

// CHECK: .extern .func  (.param .b32 func_retval0) vprintf
// CHECK-LABEL: .visible .entry k(
// CHECK: cvt.f64.f32
// CHECK: st.local.b32 [%rd{{[0-9]+}}],
// CHECK: st.local.b64 [%rd{{[0-9]+}}+8],
// CHECK: call.uni (retval0), vprintf,
gpuc.func @k(%x: i32, %f: f32, %c: i8) kernel {
  %i = gpuc.global_id x
  gpuc.printf "x=%d f=%.2f c=%u i=%d\n" %x, %f, %c, %i : i32, f32, i8, index
  gpuc.return
}
