// Source of mixed_host_mlir*.mlir: host code in dialects neither gpuc nor
// xDSL knows (async, vector) around a gpu.module.
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %f = arith.constant 0.0 : f32
    %m = memref.alloc() : memref<4xf32>
    %t = async.execute {
      gpu.launch_func @kernels::@add blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%m : memref<4xf32>)
      async.yield
    }
    async.await %t : !async.token
    %v = vector.transfer_read %m[%c1], %f : memref<4xf32>, vector<2xf32>
    vector.print %v : vector<2xf32>
    return
  }
  gpu.module @kernels {
    gpu.func @add(%m: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %m[%i] : memref<4xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %m[%i] : memref<4xf32>
      gpu.return
    }
  }
}
