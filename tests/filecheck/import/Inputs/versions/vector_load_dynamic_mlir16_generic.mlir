// mlir-opt-16 --mlir-print-op-generic Inputs/versions/vector_load_dynamic.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<16x32xf32>, %arg1: index, %arg2: index, %arg3: memref<4xf32>):
      %0 = "arith.constant"() {value = 0 : index} : () -> index
      %1 = "memref.subview"(%arg0, %arg1, %arg2) {operand_segment_sizes = array<i32: 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_sizes = array<i64: 4, 8>, static_strides = array<i64: 1, 1>} : (memref<16x32xf32>, index, index) -> memref<4x8xf32, strided<[32, 1], offset: ?>>
      %2 = "vector.load"(%1, %0, %0) : (memref<4x8xf32, strided<[32, 1], offset: ?>>, index, index) -> vector<4xf32>
      "vector.store"(%2, %arg3, %0) : (vector<4xf32>, memref<4xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<16x32xf32>, index, index, memref<4xf32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()

