// mlir-opt-16 --mlir-print-op-generic Inputs/versions/all_reduce.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<?xf32>, %arg1: memref<?xi32>, %arg2: memref<?xi32>):
      %0 = "gpu.global_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<?xf32>, index) -> f32
      %2 = "memref.load"(%arg1, %0) : (memref<?xi32>, index) -> i32
      %3 = "gpu.all_reduce"(%1) ({
      }) {op = #gpu<all_reduce_op add>, uniform} : (f32) -> f32
      %4 = "gpu.all_reduce"(%2) ({
      }) {op = #gpu<all_reduce_op max>} : (i32) -> i32
      %5 = "gpu.all_reduce"(%2) ({
      ^bb0(%arg3: i32, %arg4: i32):
        %6 = "arith.xori"(%arg3, %arg4) : (i32, i32) -> i32
        "gpu.yield"(%6) : (i32) -> ()
      }) : (i32) -> i32
      "memref.store"(%3, %arg0, %0) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%4, %arg1, %0) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%5, %arg2, %0) : (i32, memref<?xi32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<?xf32>, memref<?xi32>, memref<?xi32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()

