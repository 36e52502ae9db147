// saxpy in a gpu.module, launched by host code (which gpuc drops).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %n = memref.dim %y, %c0 : memref<?xf32>
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %xv = memref.load %x[%i] : memref<?xf32>
        %yv = memref.load %y[%i] : memref<?xf32>
        %p = arith.mulf %a, %xv : f32
        %s = arith.addf %p, %yv : f32
        memref.store %s, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @host(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %blocks: index) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@saxpy blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : f32, %x : memref<?xf32>, %y : memref<?xf32>)
    return
  }
}
