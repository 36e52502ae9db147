// Kernels of tests/test_amdgpu_buffer.py: MLIR's amdgpu buffer ops, each
// thread t accessing the element `base + t` (vectors: `base + n t`) of a
// buffer: the first %n elements of an array (a subview), so that a write
// past the buffer is seen in the array.

// dst[t] = src[base + t], 0 outside src.
func.func @load(%a: memref<?xf32>, %n: index, %dst: memref<?xf32>, %base: i32)
    attributes {gpu.kernel} {
  %src = memref.subview %a[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t32 = arith.index_cast %t : index to i32
  %i = arith.addi %base, %t32 : i32
  %v = amdgpu.raw_buffer_load %src[%i] : memref<?xf32, strided<[1]>>, i32 -> f32
  memref.store %v, %dst[%t] : memref<?xf32>
  return
}

// dst[4t .. 4t+3] = src[base + 4t + 2 + sgpr ..], per element 0 outside src.
func.func @load4(%a: memref<?xi32>, %n: index, %dst: memref<?xi32>, %base: i32,
                 %sgpr: i32) attributes {gpu.kernel} {
  %src = memref.subview %a[0] [%n] [1] : memref<?xi32> to memref<?xi32, strided<[1]>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c4 = arith.constant 4 : index
  %at = arith.muli %t, %c4 : index
  %t32 = arith.index_cast %at : index to i32
  %i = arith.addi %base, %t32 : i32
  %v = amdgpu.raw_buffer_load {indexOffset = 2 : i32} %src[%i] sgprOffset %sgpr
      : memref<?xi32, strided<[1]>>, i32 -> vector<4xi32>
  vector.store %v, %dst[%at] : memref<?xi32>, vector<4xi32>
  return
}

// dst[base + 2t .. +1] = 2 * src[2t .. +1], per element only inside dst.
func.func @store2(%src: memref<?xf32>, %a: memref<?xf32>, %n: index, %base: i32)
    attributes {gpu.kernel} {
  %dst = memref.subview %a[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c2 = arith.constant 2 : index
  %at = arith.muli %t, %c2 : index
  %v = vector.load %src[%at] : memref<?xf32>, vector<2xf32>
  %w = arith.addf %v, %v : vector<2xf32>
  %t32 = arith.index_cast %at : index to i32
  %i = arith.addi %base, %t32 : i32
  amdgpu.raw_buffer_store %w -> %dst[%i]
      : vector<2xf32> -> memref<?xf32, strided<[1]>>, i32
  return
}

// dst[base + t] = src[t] without the check (base + t inside dst).
func.func @store_unchecked(%src: memref<?xf32>, %dst: memref<?xf32>, %base: i32)
    attributes {gpu.kernel} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %v = memref.load %src[%t] : memref<?xf32>
  %t32 = arith.index_cast %t : index to i32
  %i = arith.addi %base, %t32 : i32
  amdgpu.raw_buffer_store {boundsCheck = false} %v -> %dst[%i]
      : f32 -> memref<?xf32>, i32
  return
}

// acc[(t mod 8) + base] += src[t], atomically, only inside acc.
func.func @add(%src: memref<?xf32>, %a: memref<?xf32>, %n: index, %base: i32)
    attributes {gpu.kernel} {
  %acc = memref.subview %a[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %v = memref.load %src[%t] : memref<?xf32>
  %t32 = arith.index_cast %t : index to i32
  %c8 = arith.constant 8 : i32
  %r = arith.remui %t32, %c8 : i32
  %i = arith.addi %base, %r : i32
  amdgpu.raw_buffer_atomic_fadd %v -> %acc[%i]
      : f32 -> memref<?xf32, strided<[1]>>, i32
  return
}

// A 2-D buffer: dst[t] = m[row][t] (row-major, 0 past its last row), and an
// LDS barrier.
func.func @load2d(%m: memref<?x4xf32>, %dst: memref<?xf32>, %row: i32)
    attributes {gpu.kernel} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t32 = arith.index_cast %t : index to i32
  amdgpu.lds_barrier
  %v = amdgpu.raw_buffer_load %m[%row, %t32] : memref<?x4xf32>, i32, i32 -> f32
  memref.store %v, %dst[%t] : memref<?xf32>
  return
}

// fmax/smax/umin into slot base + (t mod 8) of three buffers, only inside.
func.func @extrema(%x: memref<?xf32>, %xi: memref<?xi32>, %fa: memref<?xf32>,
                   %sa: memref<?xi32>, %ua: memref<?xi32>, %n: index, %base: i32)
    attributes {gpu.kernel} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %f = memref.subview %fa[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %s = memref.subview %sa[0] [%n] [1] : memref<?xi32> to memref<?xi32, strided<[1]>>
  %u = memref.subview %ua[0] [%n] [1] : memref<?xi32> to memref<?xi32, strided<[1]>>
  %v = memref.load %x[%t] : memref<?xf32>
  %w = memref.load %xi[%t] : memref<?xi32>
  %t32 = arith.index_cast %t : index to i32
  %c8 = arith.constant 8 : i32
  %r = arith.remui %t32, %c8 : i32
  %i = arith.addi %base, %r : i32
  amdgpu.raw_buffer_atomic_fmax %v -> %f[%i] : f32 -> memref<?xf32, strided<[1]>>, i32
  amdgpu.raw_buffer_atomic_smax %w -> %s[%i] : i32 -> memref<?xi32, strided<[1]>>, i32
  amdgpu.raw_buffer_atomic_umin %w -> %u[%i] : i32 -> memref<?xi32, strided<[1]>>, i32
  return
}
