// mlir-opt-22 --mlir-print-op-generic Inputs/versions/memref_space_cast.mlir
"builtin.module"() ({
  "gpu.module"() <{sym_name = "casts"}> ({
    "gpu.func"() <{function_type = (memref<8xf32, 1>, memref<8xf32>) -> ()}> ({
    ^bb0(%arg2: memref<8xf32, 1>, %arg3: memref<8xf32>):
      %3 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %4 = "memref.memory_space_cast"(%arg2) : (memref<8xf32, 1>) -> memref<8xf32, #gpu.address_space<global>>
      %5 = "memref.load"(%4, %3) : (memref<8xf32, #gpu.address_space<global>>, index) -> f32
      "memref.store"(%5, %arg3, %3) : (f32, memref<8xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "same_space", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.func"() <{function_type = (memref<8xf32>) -> ()}> ({
    ^bb0(%arg0: memref<8xf32>, %arg1: memref<8xf32, 3>):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "memref.memory_space_cast"(%arg1) : (memref<8xf32, 3>) -> memref<8xf32>
      %2 = "memref.load"(%1, %0) : (memref<8xf32>, index) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<8xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "to_default", workgroup_attributions = 1 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

