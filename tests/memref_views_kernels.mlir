// The kernels of tests/test_memref_views.py, as a frontend writes them:
// memref views of kernel arguments and workgroup memory, views passed to
// helpers, memory_space_cast to generic. One block of 8 x 4 threads; thread
// (x, y) reads element [y, x] of each view.
module {
  func.func private @twice(%v: memref<4x8xf32, strided<[96, 2], offset: 68>>, %i: index, %j: index) -> f32 {
    %x = memref.load %v[%i, %j] : memref<4x8xf32, strided<[96, 2], offset: 68>>
    %r = arith.addf %x, %x : f32
    return %r : f32
  }
  func.func private @shared_at(%v: memref<4x8xf32, strided<[16, 1], offset: 36>, 3>, %i: index, %j: index) -> f32 {
    %x = memref.load %v[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 36>, 3>
    return %x : f32
  }
  func.func private @generic_at(%v: memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>>, %i: index, %j: index) -> f32 {
    %x = memref.load %v[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>>
    return %x : f32
  }
  func.func @views(%a: memref<16x32xf32>, %b: memref<?xf32>, %o0: index, %o1: index, %st: index,
                   %out: memref<10x4x8xf32>, %row: memref<32xf32>, %into: memref<8x16xf32>) attributes {gpu.kernel} {
    %x = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %y = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %s = memref.subview %a[2, 4] [4, 8] [3, 2] : memref<16x32xf32> to memref<4x8xf32, strided<[96, 2], offset: 68>>
    %v0 = memref.load %s[%y, %x] : memref<4x8xf32, strided<[96, 2], offset: 68>>
    memref.store %v0, %out[%c0, %y, %x] : memref<10x4x8xf32>
    %v1 = func.call @twice(%s, %y, %x) : (memref<4x8xf32, strided<[96, 2], offset: 68>>, index, index) -> f32
    memref.store %v1, %out[%c1, %y, %x] : memref<10x4x8xf32>
    %d = memref.subview %a[%o0, %o1] [4, 8] [1, %st] : memref<16x32xf32> to memref<4x8xf32, strided<[32, ?], offset: ?>>
    %v2 = memref.load %d[%y, %x] : memref<4x8xf32, strided<[32, ?], offset: ?>>
    memref.store %v2, %out[%c2, %y, %x] : memref<10x4x8xf32>
    %dd = memref.subview %d[1, 2] [2, 4] [1, 1] : memref<4x8xf32, strided<[32, ?], offset: ?>> to memref<2x4xf32, strided<[32, ?], offset: ?>>
    %ym = arith.remui %y, %c2 : index
    %xm = arith.remui %x, %c4 : index
    %v3 = memref.load %dd[%ym, %xm] : memref<2x4xf32, strided<[32, ?], offset: ?>>
    memref.store %v3, %out[%c3, %y, %x] : memref<10x4x8xf32>
    %r = memref.subview %a[5, 0] [1, 32] [1, 1] : memref<16x32xf32> to memref<32xf32, strided<[1], offset: 160>>
    %k = arith.muli %y, %c8 : index
    %kx = arith.addi %k, %x : index
    %v4 = memref.load %r[%kx] : memref<32xf32, strided<[1], offset: 160>>
    memref.store %v4, %row[%kx] : memref<32xf32>
    %t = memref.subview %into[1, 2] [4, 8] [2, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[32, 1], offset: 18>>
    %v5 = memref.load %a[%y, %x] : memref<16x32xf32>
    memref.store %v5, %t[%y, %x] : memref<4x8xf32, strided<[32, 1], offset: 18>>
    %rc = memref.reinterpret_cast %b to offset: [3], sizes: [4, 8], strides: [9, 1] : memref<?xf32> to memref<4x8xf32, strided<[9, 1], offset: 3>>
    %v6 = memref.load %rc[%y, %x] : memref<4x8xf32, strided<[9, 1], offset: 3>>
    memref.store %v6, %out[%c4, %y, %x] : memref<10x4x8xf32>
    %rd = memref.reinterpret_cast %s to offset: [%o1], sizes: [4, %c8], strides: [%st, 1] : memref<4x8xf32, strided<[96, 2], offset: 68>> to memref<4x?xf32, strided<[?, 1], offset: ?>>
    %v7 = memref.load %rd[%y, %x] : memref<4x?xf32, strided<[?, 1], offset: ?>>
    memref.store %v7, %out[%c5, %y, %x] : memref<10x4x8xf32>
    %w = memref.alloca() : memref<8x16xf32, #gpu.address_space<workgroup>>
    %ws = memref.subview %w[2, 4] [4, 8] [1, 1] : memref<8x16xf32, #gpu.address_space<workgroup>> to memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
    memref.store %v5, %ws[%y, %x] : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
    "gpu.barrier"() : () -> ()
    %fy = arith.subi %c3, %y : index
    %fx = arith.subi %c7, %x : index
    %v8 = memref.load %ws[%fy, %fx] : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
    memref.store %v8, %out[%c6, %y, %x] : memref<10x4x8xf32>
    %wy = arith.addi %fy, %c2 : index
    %wx = arith.addi %fx, %c4 : index
    %v9 = memref.load %w[%wy, %wx] : memref<8x16xf32, #gpu.address_space<workgroup>>
    memref.store %v9, %out[%c7, %y, %x] : memref<10x4x8xf32>
    %n = memref.memory_space_cast %ws : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>> to memref<4x8xf32, strided<[16, 1], offset: 36>, 3>
    %v10 = func.call @shared_at(%n, %fy, %x) : (memref<4x8xf32, strided<[16, 1], offset: 36>, 3>, index, index) -> f32
    memref.store %v10, %out[%c8, %y, %x] : memref<10x4x8xf32>
    %gs = memref.memory_space_cast %ws : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>> to memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>>
    %v11 = func.call @generic_at(%gs, %y, %fx) : (memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>>, index, index) -> f32
    %gv = memref.subview %a[0, 0] [4, 8] [1, 1] : memref<16x32xf32> to memref<4x8xf32, strided<[32, 1]>>
    %gr = memref.reinterpret_cast %gv to offset: [36], sizes: [4, 8], strides: [16, 1] : memref<4x8xf32, strided<[32, 1]>> to memref<4x8xf32, strided<[16, 1], offset: 36>>
    %gg = memref.memory_space_cast %gr : memref<4x8xf32, strided<[16, 1], offset: 36>> to memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>>
    %v12 = func.call @generic_at(%gg, %y, %x) : (memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>>, index, index) -> f32
    %back = memref.memory_space_cast %gs : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpuc<space generic>> to memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
    %v14 = memref.load %back[%y, %fx] : memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
    %v15 = arith.addf %v11, %v14 : f32
    %v13 = arith.addf %v15, %v12 : f32
    %c9 = arith.constant 9 : index
    memref.store %v13, %out[%c9, %y, %x] : memref<10x4x8xf32>
    return
  }
}
