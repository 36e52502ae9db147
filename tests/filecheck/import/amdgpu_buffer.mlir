// MLIR's amdgpu buffer ops (generic form, as mlir-opt-16 prints them, and
// custom form): the element is the indices' plus indexOffset plus
// sgprOffset; with boundsCheck (the default) the indices' element plus
// indexOffset (sgprOffset is not range-checked) is compared with the
// buffer's extent, and one outside reads 0 and is not written.
// amdgpu.lds_barrier is gpuc.barrier; the dialect's other ops are unknown.
// RUN: gpuc-opt --split-input-file -p import %s | filecheck %s
// RUN: not gpuc-opt -p import %S/Inputs/invalid/amdgpu_mfma.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN

// CHECK-LABEL: gpuc.func @load(%m: !gpuc.ptr<f32, global>, %m_dim0: index, %i: i32, %s: i32)
// CHECK:         %[[I:.*]] = arith.index_cast %i : i32 to index
// CHECK-NEXT:    %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[A:.*]] = arith.addi %[[I]], %[[THREE]] : index
// CHECK-NEXT:    %[[S:.*]] = arith.index_cast %s : i32 to index
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[A]], %[[S]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[A]], %m_dim0 : index
// CHECK-NEXT:    %{{.*}} = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:      %[[L:.*]] = gpuc.load %{{.*}}[%[[E]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:      scf.yield %[[L]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[Z]] : f32
// CHECK-NEXT:    }
func.func @load(%m: memref<?xf32>, %i: i32, %s: i32) attributes {gpu.kernel} {
  %0 = "amdgpu.raw_buffer_load"(%m, %i, %s) {boundsCheck = true, indexOffset = 3 : i32, operand_segment_sizes = array<i32: 1, 1, 1>} : (memref<?xf32>, i32, i32) -> f32
  %c0 = arith.constant 0 : index
  "memref.store"(%0, %m, %c0) : (f32, memref<?xf32>, index) -> ()
  return
}

// -----

// CHECK-LABEL: gpuc.func @store_unchecked
// CHECK:         %[[I:.*]] = arith.index_cast %i : i32 to index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[I1:.*]] = arith.addi %[[I]], %[[ONE]] : index
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:    %[[E0:.*]] = vector.extractelement %v[%{{.*}} : index] : vector<2xf32>
// CHECK-NEXT:    gpuc.store %[[E0]], %{{.*}}[%[[I]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    %[[E1:.*]] = vector.extractelement %v[%{{.*}} : index] : vector<2xf32>
// CHECK-NEXT:    gpuc.store %[[E1]], %{{.*}}[%[[I1]]] : !gpuc.ptr<f32, global>
// CHECK-NOT:     scf.if
// CHECK:         gpuc.return
func.func @store_unchecked(%m: memref<16xf32>, %i: i32, %v: vector<2xf32>) attributes {gpu.kernel} {
  amdgpu.raw_buffer_store {boundsCheck = false} %v -> %m[%i] : vector<2xf32> -> memref<16xf32>, i32
  return
}

// -----

// A 2-D buffer's extent is its element count (a static 32 here); the
// atomic add is relaxed, as LLVM's buffer atomics are.
// CHECK-LABEL: gpuc.func @add
// CHECK:         %[[E:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[E]], %[[N]] : index
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      %{{.*}} = gpuc.atomic_rmw add %m[%[[E]]], %x relaxed : !gpuc.ptr<f32, global>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.barrier
func.func @add(%m: memref<8x4xf32>, %r: i32, %c: i32, %x: f32) attributes {gpu.kernel} {
  amdgpu.raw_buffer_atomic_fadd %x -> %m[%r, %c] : f32 -> memref<8x4xf32>, i32, i32
  amdgpu.lds_barrier
  return
}

// UNKNOWN: amdgpu_mfma.mlir:3:8: error: unknown operation 'amdgpu.mfma': dialect 'amdgpu' has no such op
