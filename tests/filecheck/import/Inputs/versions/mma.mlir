// gpu.subgroup_mma_* in MLIR's custom form: the source of the committed
// mma_mlir16_generic.mlir and mma_mlir22_generic.mlir (mlir-opt-16/-22
// --mlir-print-op-generic). A tile of A at row 16, B loaded column-major,
// the C fragment carried by scf.for over two k-tiles, a constant and an
// elementwise add, D stored at (16, 16).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<32x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %one = arith.constant 1.0 : f32
      %C = gpu.subgroup_mma_constant_matrix %one : !gpu.mma_matrix<16x16xf32, "COp">
      %D = scf.for %k = %c0 to %c32 step %c16 iter_args(%acc = %C) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
        %A = gpu.subgroup_mma_load_matrix %a[%c16, %k] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
        %B = gpu.subgroup_mma_load_matrix %b[%c16, %k] {leadDimension = 32 : index, transpose} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
        %R = gpu.subgroup_mma_compute %A, %B, %acc {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
        scf.yield %R : !gpu.mma_matrix<16x16xf32, "COp">
      }
      %E = gpu.subgroup_mma_elementwise addf %D, %C : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
      gpu.subgroup_mma_store_matrix %E, %c[%c16, %c16] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
      gpu.return
    }
  }
}
