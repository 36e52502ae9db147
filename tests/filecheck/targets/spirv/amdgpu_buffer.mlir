// REQUIRES: spirv-dis
// amdgpu buffer ops on spirv: the checked load and store are a load and a
// store under an unsigned compare with the buffer's size; spirv-val accepts
// the module.
// RUN: gpuc compile %s --target spirv --validate -o %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s

// CHECK:         %k = OpFunction
// CHECK:         %[[E:.*]] = OpSConvert %ulong %i
// CHECK-NEXT:    %[[OK:.*]] = OpUGreaterThan %bool %m_dim0 %[[E]]
// CHECK-NEXT:    OpBranchConditional %[[OK]]
// CHECK:         %[[L:.*]] = OpLoad %float
// CHECK:         %[[V:.*]] = OpPhi %float %[[L]]
// CHECK:         %[[OK2:.*]] = OpUGreaterThan %bool %o_dim0 %[[E]]
// CHECK-NEXT:    OpBranchConditional %[[OK2]]
// CHECK:         OpStore %{{.*}} %[[V]]
func.func @k(%m: memref<?xf32>, %o: memref<?xf32>, %i: i32) attributes {gpu.kernel} {
  %v = amdgpu.raw_buffer_load %m[%i] : memref<?xf32>, i32 -> f32
  amdgpu.raw_buffer_store %v -> %o[%i] : f32 -> memref<?xf32>, i32
  return
}
