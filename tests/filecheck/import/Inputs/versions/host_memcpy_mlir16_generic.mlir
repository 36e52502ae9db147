// mlir-opt-16 --mlir-print-op-generic Inputs/versions/host_memcpy.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<8xf32>):
      %0 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<8xf32>, index) -> f32
      %2 = "arith.addf"(%1, %1) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<8xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<8xf32>) -> (), gpu.kernel, sym_name = "double", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "kernels"} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: memref<8xf32>):
    %0 = "arith.constant"() {value = 1 : index} : () -> index
    %1 = "arith.constant"() {value = 8 : index} : () -> index
    %2 = "gpu.wait"() : () -> !gpu.async.token
    %3:2 = "gpu.alloc"(%2) {operand_segment_sizes = array<i32: 1, 0, 0>} : (!gpu.async.token) -> (memref<8xf32>, !gpu.async.token)
    %4 = "gpu.memcpy"(%3#1, %3#0, %arg0) : (!gpu.async.token, memref<8xf32>, memref<8xf32>) -> !gpu.async.token
    "gpu.launch_func"(%0, %0, %0, %1, %0, %0, %3#0) {kernel = @kernels::@double, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 1>} : (index, index, index, index, index, index, memref<8xf32>) -> ()
    %5 = "gpu.memcpy"(%4, %arg0, %3#0) : (!gpu.async.token, memref<8xf32>, memref<8xf32>) -> !gpu.async.token
    %6 = "gpu.dealloc"(%5, %3#0) : (!gpu.async.token, memref<8xf32>) -> !gpu.async.token
    "gpu.wait"(%6) : (!gpu.async.token) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<8xf32>) -> (), sym_name = "main"} : () -> ()
}) {gpu.container_module} : () -> ()

