// amdgpu buffer ops on native: a checked load is a load under an unsigned
// compare of the element with the buffer's size (a negative i32 index is
// out of bounds too), 0 where it fails; a checked store is a store under
// the same compare.
// RUN: gpuc-opt %s -p import -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @k(ptr %state, ptr %m, i64 %m_dim0, ptr %o, i64 %o_dim0, i32 %i)
// CHECK:         %[[E:.*]] = sext i32 %i to i64
// CHECK-NEXT:    %[[OK:.*]] = icmp ult i64 %[[E]], %m_dim0
// CHECK-NEXT:    br i1 %[[OK]], label %[[THEN:.*]], label %[[ELSE:.*]]
// CHECK:         %[[L:.*]] = load float, ptr
// CHECK:         %v = phi float [ %[[L]], %[[THEN]] ], [ 0.000000e+00, %[[ELSE]] ]
// CHECK:         %[[OK2:.*]] = icmp ult i64 %{{.*}}, %o_dim0
// CHECK-NEXT:    br i1 %[[OK2]]
// CHECK:         store float %v, ptr
func.func @k(%m: memref<?xf32>, %o: memref<?xf32>, %i: i32) attributes {gpu.kernel} {
  %v = amdgpu.raw_buffer_load %m[%i] : memref<?xf32>, i32 -> f32
  amdgpu.raw_buffer_store %v -> %o[%i] : f32 -> memref<?xf32>, i32
  return
}
