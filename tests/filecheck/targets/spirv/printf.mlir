// REQUIRES: spirv-dis
// gpuc.printf is OpenCL's printf, which LLVM's SPIR-V back-end makes an
// OpExtInst of OpenCL.std: the format in the constant address space
// (UniformConstant), the values promoted as C passes them (f32 to f64, an
// i8 zero-extended for %u), a 64-bit value's conversion respelled with `l`.
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=LLVM
// RUN: gpuc-opt %s -t spirv | FileCheck %s

// LLVM: @gpuc.printf.format = private unnamed_addr addrspace(2) constant [24 x i8] c"x=%d f=%.2f c=%u i=%ld\0A\00"
// LLVM: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @gpuc.printf.format, i32 %x, double %{{.*}}, i32 %{{.*}}, i64 %{{.*}})

// CHECK: %[[STD:[0-9]+]] = OpExtInstImport "OpenCL.std"
// CHECK: %[[FORMAT:gpuc_printf_format]] = OpVariable %{{.*}} UniformConstant
// CHECK-LABEL: %k = OpFunction
// CHECK: %[[F:[0-9]+]] = OpFConvert %double %f
// CHECK: %[[C:[0-9]+]] = OpUConvert %uint %c
// CHECK: OpExtInst %uint %[[STD]] printf %[[FORMAT]] %x %[[F]] %[[C]]
gpuc.func @k(%x: i32, %f: f32, %c: i8) kernel {
  %i = gpuc.global_id x
  gpuc.printf "x=%d f=%.2f c=%u i=%d\n" %x, %f, %c, %i : i32, f32, i8, index
  gpuc.return
}
