// mlir-opt-22 --mlir-print-op-generic Inputs/versions/subgroup_cluster.mlir
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>) -> ()}> ({
    ^bb0(%arg0: memref<?xf32>):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<?xf32>, index) -> f32
      %2 = "gpu.subgroup_reduce"(%1) <{cluster_size = 4 : i32, cluster_stride = 1 : i32, op = #gpu<all_reduce_op add>}> : (f32) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<?xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

