// REQUIRES: ptxas
// amdgpu buffer ops on ptx: the checked load and store branch around the
// access where the element is not below the buffer's size (unsigned);
// ptxas accepts the PTX.
// RUN: gpuc compile %s --target ptx --validate -o %t.ptx
// RUN: FileCheck %s < %t.ptx

// CHECK-LABEL: .visible .entry k(
// CHECK:         cvt.s64.s32 %[[E:rd[0-9]+]], %r{{[0-9]+}};
// CHECK:         setp.le.u64 %[[P:p[0-9]+]], %rd{{[0-9]+}}, %[[E]];
// CHECK-NEXT:    mov.b32 %[[V:r[0-9]+]], 0f00000000;
// CHECK-NEXT:    @%[[P]] bra
// CHECK:         ld.global.b32 %[[V]]
// CHECK:         setp.le.u64 %[[P2:p[0-9]+]], %rd{{[0-9]+}}, %[[E]];
// CHECK-NEXT:    @%[[P2]] bra
// CHECK:         st.global.b32 [%rd{{[0-9]+}}], %[[V]];
func.func @k(%m: memref<?xf32>, %o: memref<?xf32>, %i: i32) attributes {gpu.kernel} {
  %v = amdgpu.raw_buffer_load %m[%i] : memref<?xf32>, i32 -> f32
  amdgpu.raw_buffer_store %v -> %o[%i] : f32 -> memref<?xf32>, i32
  return
}
