// mlir-opt-16 --mlir-print-op-generic Inputs/versions/mixed_host.mlir
#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() ({
    %0 = "arith.constant"() {value = 1 : index} : () -> index
    %1 = "arith.constant"() {value = 4 : index} : () -> index
    %2 = "arith.constant"() {value = 0.000000e+00 : f32} : () -> f32
    %3 = "memref.alloc"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<4xf32>
    %4 = "async.execute"() ({
      "gpu.launch_func"(%0, %0, %0, %1, %0, %0, %3) {kernel = @kernels::@add, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 1>} : (index, index, index, index, index, index, memref<4xf32>) -> ()
      "async.yield"() : () -> ()
    }) {operand_segment_sizes = array<i32: 0, 0>} : () -> !async.token
    "async.await"(%4) : (!async.token) -> ()
    %5 = "vector.transfer_read"(%3, %0, %2) {operand_segment_sizes = array<i32: 1, 1, 1, 0>, permutation_map = #map} : (memref<4xf32>, index, f32) -> vector<2xf32>
    "vector.print"(%5) : (vector<2xf32>) -> ()
    "func.return"() : () -> ()
  }) {function_type = () -> (), sym_name = "main"} : () -> ()
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<4xf32>):
      %0 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<4xf32>, index) -> f32
      %2 = "arith.addf"(%1, %1) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<4xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<4xf32>) -> (), gpu.kernel, sym_name = "add", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "kernels"} : () -> ()
}) {gpu.container_module} : () -> ()

