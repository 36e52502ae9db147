// Kernels are `.visible .entry`; a private helper is a `.func` without
// `.visible`; a public (exported) helper is a `.visible .func`.
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// CHECK-NOT: .visible .func {{.*}} twice
// CHECK: .visible .entry k(
// CHECK-NEXT: .param .u64 .ptr .global .align 1 k_param_0,
// CHECK-NEXT: .param .f32 k_param_1
// CHECK: call.uni (retval0), twice,
// CHECK: {{^}}.func (.param .b32 func_retval0) twice(
// CHECK: {{^}}.visible .func (.param .b32 func_retval0) exported(
gpuc.func @k(%out: !gpuc.ptr<f32, global>, %x: f32) kernel {
  %y = gpuc.call @twice(%x) : (f32) -> f32
  gpuc.store %y, %out : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @twice(%a: f32) -> f32 helper no_inline {
  %r = arith.addf %a, %a : f32
  gpuc.return %r : f32
}
gpuc.func @exported(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}
