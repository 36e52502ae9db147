// mlir-opt-16 --mlir-print-op-generic Inputs/versions/vector_load_store.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>, %arg2: memref<4x4xf32>):
      %0 = "arith.constant"() {value = 0 : index} : () -> index
      %1 = "arith.constant"() {value = 4 : index} : () -> index
      %2 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %3 = "vector.load"(%arg0, %2, %0) : (memref<4x8xf32>, index, index) -> vector<4xf32>
      %4 = "vector.load"(%arg0, %2, %1) : (memref<4x8xf32>, index, index) -> vector<4xf32>
      %5 = "vector.shuffle"(%3, %4) {mask = [7, 0, 5, 2, 4, 4, 1, 6]} : (vector<4xf32>, vector<4xf32>) -> vector<8xf32>
      "vector.store"(%5, %arg1, %2, %0) : (vector<8xf32>, memref<4x8xf32>, index, index) -> ()
      %6 = "memref.subview"(%arg0) {operand_segment_sizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 2>, static_sizes = array<i64: 4, 6>, static_strides = array<i64: 1, 1>} : (memref<4x8xf32>) -> memref<4x6xf32, strided<[8, 1], offset: 2>>
      %7 = "vector.load"(%6, %2, %0) : (memref<4x6xf32, strided<[8, 1], offset: 2>>, index, index) -> vector<4xf32>
      "vector.store"(%7, %arg2, %2, %0) : (vector<4xf32>, memref<4x4xf32>, index, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<4x8xf32>, memref<4x8xf32>, memref<4x4xf32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()

