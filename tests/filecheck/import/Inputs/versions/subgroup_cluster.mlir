// A clustered subgroup reduction (MLIR 19 and later), which gpuc refuses.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<?xf32>
      %s = gpu.subgroup_reduce add %v cluster(size = 4) : (f32) -> (f32)
      memref.store %s, %x[%t] : memref<?xf32>
      gpu.return
    }
  }
}
