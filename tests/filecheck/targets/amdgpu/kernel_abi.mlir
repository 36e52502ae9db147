// REQUIRES: ld.lld
// Kernels are `amdgpu_kernel` taking global pointers as `ptr addrspace(1)`; a
// private helper is internal, an exported one stays visible; the code object
// describes each kernel (a `.kd` descriptor, its metadata in the notes).
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t amdgpu | FileCheck %s --check-prefix=ASM

// CHECK-LABEL: define amdgpu_kernel void @k(ptr addrspace(1) %out, float %x)
// CHECK: call float @twice(float %x)
// CHECK-LABEL: define internal float @twice(float %a)
// CHECK-LABEL: define float @exported(float %a)
// CHECK: "amdhsa_code_object_version", i32 500
// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
// ASM: .globl k
// ASM: .amdhsa_kernel k
// ASM: .amdhsa_group_segment_fixed_size 0
// ASM: amdhsa.kernels:
// ASM: .address_space: global
// ASM: .name: out
// ASM: .value_kind: global_buffer
// ASM: .name: x
// ASM: .value_kind: by_value
// ASM: .name: k
// ASM: .symbol: k.kd
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
