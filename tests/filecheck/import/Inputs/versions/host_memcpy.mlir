// Host code copying through device memory around a launch: MLIR prints
// gpu.memcpy and gpu.dealloc without segment sizes, which xDSL 0.74 wants.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @double(%x: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<8xf32>
      gpu.return
    }
  }
  func.func @main(%host: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<8xf32>
    %t2 = gpu.memcpy async [%t1] %dev, %host : memref<8xf32>, memref<8xf32>
    gpu.launch_func @kernels::@double blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%dev : memref<8xf32>)
    %t3 = gpu.memcpy async [%t2] %host, %dev : memref<8xf32>, memref<8xf32>
    %t4 = gpu.dealloc async [%t3] %dev : memref<8xf32>
    gpu.wait [%t4]
    return
  }
}
