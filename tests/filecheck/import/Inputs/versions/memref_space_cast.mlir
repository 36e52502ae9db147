// Source of memref_space_cast_mlir22_generic.mlir: memref.memory_space_cast
// (MLIR 17 and later) between the spellings of global memory, and the one
// gpuc refuses (workgroup to the default space, which gpuc reads as global).
module attributes {gpu.container_module} {
  gpu.module @casts {
    gpu.func @same_space(%a: memref<8xf32, 1>, %out: memref<8xf32>) kernel {
      %x = gpu.thread_id x
      %g = memref.memory_space_cast %a : memref<8xf32, 1> to memref<8xf32, #gpu.address_space<global>>
      %v = memref.load %g[%x] : memref<8xf32, #gpu.address_space<global>>
      memref.store %v, %out[%x] : memref<8xf32>
      gpu.return
    }
    gpu.func @to_default(%out: memref<8xf32>) workgroup(%w: memref<8xf32, 3>) kernel {
      %x = gpu.thread_id x
      %g = memref.memory_space_cast %w : memref<8xf32, 3> to memref<8xf32>
      %v = memref.load %g[%x] : memref<8xf32>
      memref.store %v, %out[%x] : memref<8xf32>
      gpu.return
    }
  }
}
