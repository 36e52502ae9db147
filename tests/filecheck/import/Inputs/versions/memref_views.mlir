// Source of memref_views_mlir*_generic.mlir: views of a kernel argument and
// of workgroup memory (tests/test_memref_views.py runs them against numpy).
module attributes {gpu.container_module} {
  gpu.module @views {
    func.func private @at(%v: memref<4x8xf32, strided<[96, 2], offset: 68>>, %i: index, %j: index) -> f32 {
      %x = memref.load %v[%i, %j] : memref<4x8xf32, strided<[96, 2], offset: 68>>
      return %x : f32
    }
    gpu.func @views(%a: memref<16x32xf32>, %off: index, %out: memref<5x4x8xf32>) workgroup(%w: memref<8x16xf32, #gpu.address_space<workgroup>>) kernel {
      %x = gpu.thread_id x
      %y = gpu.thread_id y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %s = memref.subview %a[2, 4] [4, 8] [3, 2] : memref<16x32xf32> to memref<4x8xf32, strided<[96, 2], offset: 68>>
      %v0 = func.call @at(%s, %y, %x) : (memref<4x8xf32, strided<[96, 2], offset: 68>>, index, index) -> f32
      memref.store %v0, %out[%c0, %y, %x] : memref<5x4x8xf32>
      %d = memref.subview %a[%off, 1] [4, 8] [1, 3] : memref<16x32xf32> to memref<4x8xf32, strided<[32, 3], offset: ?>>
      %v1 = memref.load %d[%y, %x] : memref<4x8xf32, strided<[32, 3], offset: ?>>
      memref.store %v1, %out[%c1, %y, %x] : memref<5x4x8xf32>
      %r = memref.subview %a[%off, 0] [1, 32] [1, 1] : memref<16x32xf32> to memref<32xf32, strided<[1], offset: ?>>
      %k = arith.muli %y, %c7 : index
      %kx = arith.addi %k, %x : index
      %v2 = memref.load %r[%kx] : memref<32xf32, strided<[1], offset: ?>>
      memref.store %v2, %out[%c2, %y, %x] : memref<5x4x8xf32>
      %flat = memref.reinterpret_cast %a to offset: [5], sizes: [4, 8], strides: [11, 1] : memref<16x32xf32> to memref<4x8xf32, strided<[11, 1], offset: 5>>
      %v3 = memref.load %flat[%y, %x] : memref<4x8xf32, strided<[11, 1], offset: 5>>
      memref.store %v3, %out[%c3, %y, %x] : memref<5x4x8xf32>
      %ws = memref.subview %w[2, 4] [4, 8] [1, 1] : memref<8x16xf32, #gpu.address_space<workgroup>> to memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
      memref.store %v0, %ws[%y, %x] : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
      gpu.barrier
      %fy = arith.subi %c3, %y : index
      %wy = arith.addi %fy, %c2 : index
      %wx = arith.addi %x, %c4 : index
      %v4 = memref.load %w[%wy, %wx] : memref<8x16xf32, #gpu.address_space<workgroup>>
      memref.store %v4, %out[%c4, %y, %x] : memref<5x4x8xf32>
      gpu.return
    }
  }
}
