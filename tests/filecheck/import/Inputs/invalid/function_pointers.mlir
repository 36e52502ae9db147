// Function pointer signatures the import cannot expand (function_pointers.mlir).

func.func @k(%w: memref<?xf32>) attributes {gpu.kernel} {
  %a = gpuc.deferred_addr @g #gpuc.job<helper> : !gpuc.funcptr<(memref<?xf32>) -> memref<?xf32>>
  func.return
}

// -----

func.func @k(%w: memref<?xf32>) attributes {gpu.kernel} {
  %a = gpuc.deferred_addr @g #gpuc.job<helper> : !gpuc.funcptr<(memref<?xcomplex<f32>>) -> f32>
  func.return
}

// -----

func.func @k(%w: memref<?xf32>) attributes {gpu.kernel} {
  %f = func.constant @g : (memref<?xf32>) -> memref<?xf32>
  func.return
}
