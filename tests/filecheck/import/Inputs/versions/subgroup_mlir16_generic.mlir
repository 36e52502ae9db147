// mlir-opt-16 --mlir-print-op-generic Inputs/versions/subgroup.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<?xf32>, %arg1: memref<?xi32>):
      %0 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<?xf32>, index) -> f32
      %2 = "memref.load"(%arg1, %0) : (memref<?xi32>, index) -> i32
      %3 = "arith.constant"() {value = 1 : i32} : () -> i32
      %4 = "arith.constant"() {value = 32 : i32} : () -> i32
      %5:2 = "gpu.shuffle"(%1, %3, %4) {mode = #gpu<shuffle_mode xor>} : (f32, i32, i32) -> (f32, i1)
      %6:2 = "gpu.shuffle"(%2, %3, %4) {mode = #gpu<shuffle_mode up>} : (i32, i32, i32) -> (i32, i1)
      %7:2 = "gpu.shuffle"(%1, %3, %4) {mode = #gpu<shuffle_mode down>} : (f32, i32, i32) -> (f32, i1)
      %8:2 = "gpu.shuffle"(%2, %3, %4) {mode = #gpu<shuffle_mode idx>} : (i32, i32, i32) -> (i32, i1)
      %9 = "gpu.subgroup_reduce"(%5#0) {op = #gpu<all_reduce_op add>, uniform} : (f32) -> f32
      %10 = "gpu.subgroup_reduce"(%6#0) {op = #gpu<all_reduce_op max>} : (i32) -> i32
      %11 = "gpu.lane_id"() : () -> index
      %12 = "gpu.subgroup_id"() : () -> index
      %13 = "gpu.subgroup_size"() : () -> index
      %14 = "gpu.num_subgroups"() : () -> index
      "memref.store"(%9, %arg0, %12) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%10, %arg1, %13) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%8#0, %arg1, %14) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%7#0, %arg0, %11) : (f32, memref<?xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<?xf32>, memref<?xi32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()

