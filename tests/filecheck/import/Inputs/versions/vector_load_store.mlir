// vector.load and vector.store on memrefs: row r of %out gets the shuffled
// halves of row r of %a (thread x is the row), then a 4-element vector.load
// through a subview of %a, stored at %out[r, 0].
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<4x8xf32>, %out: memref<4x8xf32>, %tail: memref<4x4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %r = gpu.thread_id x
      %x = vector.load %a[%r, %c0] : memref<4x8xf32>, vector<4xf32>
      %y = vector.load %a[%r, %c4] : memref<4x8xf32>, vector<4xf32>
      %s = vector.shuffle %x, %y [7, 0, 5, 2, 4, 4, 1, 6] : vector<4xf32>, vector<4xf32>
      vector.store %s, %out[%r, %c0] : memref<4x8xf32>, vector<8xf32>
      %v = memref.subview %a[0, 2] [4, 6] [1, 1] : memref<4x8xf32> to memref<4x6xf32, strided<[8, 1], offset: 2>>
      %t = vector.load %v[%r, %c0] : memref<4x6xf32, strided<[8, 1], offset: 2>>, vector<4xf32>
      vector.store %t, %tail[%r, %c0] : memref<4x4xf32>, vector<4xf32>
      gpu.return
    }
  }
}
