"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<32x32xf16>, %arg1: memref<32x32xf16>, %arg2: memref<32x32xf32>):
      %0 = "arith.constant"() {value = 0 : index} : () -> index
      %1 = "arith.constant"() {value = 16 : index} : () -> index
      %2 = "arith.constant"() {value = 32 : index} : () -> index
      %3 = "arith.constant"() {value = 1.000000e+00 : f32} : () -> f32
      %4 = "gpu.subgroup_mma_constant_matrix"(%3) : (f32) -> !gpu.mma_matrix<16x16xf32, "COp">
      %5 = "scf.for"(%0, %2, %1, %4) ({
      ^bb0(%arg3: index, %arg4: !gpu.mma_matrix<16x16xf32, "COp">):
        %7 = "gpu.subgroup_mma_load_matrix"(%arg0, %1, %arg3) {leadDimension = 32 : index} : (memref<32x32xf16>, index, index) -> !gpu.mma_matrix<16x16xf16, "AOp">
        %8 = "gpu.subgroup_mma_load_matrix"(%arg1, %1, %arg3) {leadDimension = 32 : index, transpose} : (memref<32x32xf16>, index, index) -> !gpu.mma_matrix<16x16xf16, "BOp">
        %9 = "gpu.subgroup_mma_compute"(%7, %8, %arg4) {b_transpose} : (!gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
        "scf.yield"(%9) : (!gpu.mma_matrix<16x16xf32, "COp">) -> ()
      }) : (index, index, index, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
      %6 = "gpu.subgroup_mma_elementwise"(%5, %4) {opType = #gpu<mma_element_wise addf>} : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
      "gpu.subgroup_mma_store_matrix"(%6, %arg2, %1, %1) {leadDimension = 32 : index} : (!gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>, index, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<32x32xf16>, memref<32x32xf16>, memref<32x32xf32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()

