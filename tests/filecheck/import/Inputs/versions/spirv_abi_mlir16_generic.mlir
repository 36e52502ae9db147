// mlir-opt-16 --mlir-print-op-generic Inputs/versions/spirv_abi.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<8xf32>):
      %0 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<8xf32>, index) -> f32
      %2 = "arith.addf"(%1, %1) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<8xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<8xf32>) -> (), gpu.kernel, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>, sym_name = "double", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "kernels"} : () -> ()
}) {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} : () -> ()

