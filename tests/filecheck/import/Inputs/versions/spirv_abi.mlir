// Source of spirv_abi_mlir*_generic.mlir: MLIR's SPIR-V ABI attributes, as
// MLIR's SPIR-V integration tests carry them.
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {
  gpu.module @kernels {
    gpu.func @double(%m: memref<8xf32>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>} {
      %i = gpu.thread_id x
      %x = memref.load %m[%i] : memref<8xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %m[%i] : memref<8xf32>
      gpu.return
    }
  }
}
