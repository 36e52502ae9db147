// Source of known_sizes_mlir*_generic.mlir: a gpu.launch whose block (8, 2, 1)
// and grid (3, 1, 1) are constants, which gpu-kernel-outlining records on the
// kernel: `gpu.known_block_size` attributes in MLIR 16, `known_block_size`
// properties from MLIR 19 on. Each thread writes x + 10 y + 100 block at its
// linear index.
module attributes {gpu.container_module} {
  func.func @fill(%out: memref<48xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c2, %sz = %c1) {
      %k8 = arith.constant 8 : index
      %k10 = arith.constant 10 : index
      %k16 = arith.constant 16 : index
      %k100 = arith.constant 100 : index
      %row = arith.muli %ty, %k8 : index
      %base = arith.muli %bx, %k16 : index
      %in = arith.addi %row, %tx : index
      %at = arith.addi %base, %in : index
      %y10 = arith.muli %ty, %k10 : index
      %b100 = arith.muli %bx, %k100 : index
      %s = arith.addi %tx, %y10 : index
      %t = arith.addi %s, %b100 : index
      %v = arith.index_cast %t : index to i32
      memref.store %v, %out[%at] : memref<48xi32>
      gpu.terminator
    }
    return
  }
}
