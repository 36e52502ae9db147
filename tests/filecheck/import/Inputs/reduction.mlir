// Block sums through workgroup memory: one kernel with a workgroup
// attribution, one with a workgroup memref.global; a host gpu.launch around.
module attributes {gpu.container_module} {
  gpu.module @reduce {
    memref.global "private" @partial : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.func @block_sum(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile : memref<128xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %i = gpu.global_id x
      %v = memref.load %in[%i] : memref<?xf32>
      memref.store %v, %tile[%t] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c0 = arith.constant 0 : index
      %is0 = arith.cmpi eq, %t, %c0 : index
      scf.if %is0 {
        %c1 = arith.constant 1 : index
        %n = gpu.block_dim x
        %zero = arith.constant 0.0 : f32
        %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
          %x = memref.load %tile[%k] : memref<128xf32, #gpu.address_space<workgroup>>
          %s = arith.addf %acc, %x : f32
          scf.yield %s : f32
        }
        memref.store %sum, %out[%b] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @total(%in: memref<?xf32>, %out: memref<f32>) kernel {
      %t = gpu.thread_id x
      %i = gpu.global_id x
      %tile = memref.get_global @partial : memref<128xf32, #gpu.address_space<workgroup>>
      %v = memref.load %in[%i] : memref<?xf32>
      memref.store %v, %tile[%t] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %mine = memref.load %tile[%t] : memref<128xf32, #gpu.address_space<workgroup>>
      %old = memref.atomic_rmw addf %mine, %out[] : (f32, memref<f32>) -> f32
      gpu.return
    }
  }
  func.func @host(%n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
    return
  }
}
