// vector.load through a subview at a dynamic offset (strided<[32, 1], offset: ?>):
// the innermost stride is a static 1, so the elements are consecutive.
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @k(%a: memref<16x32xf32>, %o0: index, %o1: index, %out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %d = memref.subview %a[%o0, %o1] [4, 8] [1, 1] : memref<16x32xf32> to memref<4x8xf32, strided<[32, 1], offset: ?>>
    %v = vector.load %d[%c0, %c0] : memref<4x8xf32, strided<[32, 1], offset: ?>>, vector<4xf32>
    vector.store %v, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}
}
