// gpu.all_reduce with a kind (uniform or not) and with a region (MLIR 16's
// kind names).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32>, %y: memref<?xi32>, %z: memref<?xi32>) kernel {
      %t = gpu.global_id x
      %v = memref.load %x[%t] : memref<?xf32>
      %i = memref.load %y[%t] : memref<?xi32>
      %s = gpu.all_reduce add %v uniform {} : (f32) -> (f32)
      %m = gpu.all_reduce max %i {} : (i32) -> (i32)
      %r = gpu.all_reduce %i {
      ^bb(%lhs : i32, %rhs : i32):
        %p = arith.xori %lhs, %rhs : i32
        "gpu.yield"(%p) : (i32) -> ()
      } : (i32) -> (i32)
      memref.store %s, %x[%t] : memref<?xf32>
      memref.store %m, %y[%t] : memref<?xi32>
      memref.store %r, %z[%t] : memref<?xi32>
      gpu.return
    }
  }
}
