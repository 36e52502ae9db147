// Kernels whose memref parameters have strided layouts (static and dynamic
// strides and offsets) or more than three dimensions, launched on numpy views
// by tests/test_strided_params.py.

// The helper takes a view of dynamic layout: its pointer is the view's first
// element, then its dynamic stride and offset.
func.func private @twice(%v: memref<4x8xf32, strided<[?, ?], offset: ?>>, %i: index, %j: index) -> f32 {
  %x = memref.load %v[%i, %j] : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  func.return %y : f32
}

// out[k][i, j] for a block of (8, 4) threads:
//   0: a[i, j] + b[i, j]   (a: dynamic strides and offset; b: static ones)
//   1: 2 * a[i, j], through the helper
//   2: b[i, j] through a memref.cast to a dynamic layout
//   3: a subview of a, a[1:4:2, 0:8:2] with rows padded
// and c[i, j] = a[i, j] - b[i, j] written through a strided view.
func.func @views(%a: memref<4x8xf32, strided<[?, ?], offset: ?>>,
                 %b: memref<4x8xf32, strided<[16, 2], offset: 3>>,
                 %out: memref<4x4x8xf32>,
                 %c: memref<4x8xf32, strided<[?, 1], offset: ?>>) attributes {gpu.kernel} {
  %j = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
  %i = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = memref.load %a[%i, %j] : memref<4x8xf32, strided<[?, ?], offset: ?>>
  %y = memref.load %b[%i, %j] : memref<4x8xf32, strided<[16, 2], offset: 3>>
  %s = arith.addf %x, %y : f32
  memref.store %s, %out[%c0, %i, %j] : memref<4x4x8xf32>
  %t = func.call @twice(%a, %i, %j) : (memref<4x8xf32, strided<[?, ?], offset: ?>>, index, index) -> f32
  memref.store %t, %out[%c1, %i, %j] : memref<4x4x8xf32>
  %any = "memref.cast"(%b) : (memref<4x8xf32, strided<[16, 2], offset: 3>>) -> memref<?x?xf32, strided<[?, ?], offset: ?>>
  %f = memref.load %any[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
  memref.store %f, %out[%c2, %i, %j] : memref<4x4x8xf32>
  %sub = memref.subview %a[1, 0] [2, 4] [2, 2] : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<2x4xf32, strided<[?, ?], offset: ?>>
  %r = arith.remui %i, %c2 : index
  %q = arith.remui %j, %c3 : index
  %g = memref.load %sub[%r, %q] : memref<2x4xf32, strided<[?, ?], offset: ?>>
  memref.store %g, %out[%c3, %i, %j] : memref<4x4x8xf32>
  %d = arith.subf %x, %y : f32
  memref.store %d, %c[%i, %j] : memref<4x8xf32, strided<[?, 1], offset: ?>>
  func.return
}

// A 5-D memref and a 4-D strided one (an NCHW view of NHWC data):
// out[n, c, h, w, k] = t[n, c, h, w, k] + v[n, c, h, w] with one thread per
// (w, h, c) and blocks over n; k runs in the kernel.
func.func @rank5(%t: memref<2x3x?x4x5xf32>, %v: memref<2x3x?x4xf32, strided<[?, ?, ?, ?], offset: ?>>,
                 %out: memref<2x3x?x4x5xf32>) attributes {gpu.kernel} {
  %w = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
  %h = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
  %ch = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
  %n = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %add = memref.load %v[%n, %ch, %h, %w] : memref<2x3x?x4xf32, strided<[?, ?, ?, ?], offset: ?>>
  scf.for %k = %c0 to %c5 step %c1 {
    %x = memref.load %t[%n, %ch, %h, %w, %k] : memref<2x3x?x4x5xf32>
    %y = arith.addf %x, %add : f32
    memref.store %y, %out[%n, %ch, %h, %w, %k] : memref<2x3x?x4x5xf32>
  }
  func.return
}
