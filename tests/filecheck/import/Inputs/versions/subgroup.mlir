// Subgroup ops of MLIR's gpu dialect (as MLIR 16 names the kinds).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32>, %y: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<?xf32>
      %i = memref.load %y[%t] : memref<?xi32>
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %a, %va = gpu.shuffle xor %v, %c1, %c32 : f32
      %b, %vb = gpu.shuffle up %i, %c1, %c32 : i32
      %c, %vc = gpu.shuffle down %v, %c1, %c32 : f32
      %d, %vd = gpu.shuffle idx %i, %c1, %c32 : i32
      %s = gpu.subgroup_reduce add %a uniform : (f32) -> (f32)
      %m = gpu.subgroup_reduce max %b : (i32) -> (i32)
      %l = gpu.lane_id
      %sid = gpu.subgroup_id : index
      %ss = gpu.subgroup_size : index
      %ns = gpu.num_subgroups : index
      memref.store %s, %x[%sid] : memref<?xf32>
      memref.store %m, %y[%ss] : memref<?xi32>
      memref.store %d, %y[%ns] : memref<?xi32>
      memref.store %c, %x[%l] : memref<?xf32>
      gpu.return
    }
  }
}
