// mlir-opt-22 --mlir-print-op-generic Inputs/versions/mixed_host.mlir
#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %3 = "arith.constant"() <{value = 1 : index}> : () -> index
    %4 = "arith.constant"() <{value = 4 : index}> : () -> index
    %5 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
    %7 = "async.execute"() <{operandSegmentSizes = array<i32: 0, 0>}> ({
      "gpu.launch_func"(%3, %3, %3, %4, %3, %3, %6) <{kernel = @kernels::@add, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<4xf32>) -> ()
      "async.yield"() : () -> ()
    }) : () -> !async.token
    "async.await"(%7) : (!async.token) -> ()
    %8 = "vector.transfer_read"(%6, %3, %5) <{in_bounds = [false], operandSegmentSizes = array<i32: 1, 1, 1, 0>, permutation_map = #map}> : (memref<4xf32>, index, f32) -> vector<2xf32>
    "vector.print"(%8) <{punctuation = #vector.punctuation<newline>}> : (vector<2xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<4xf32>) -> ()}> ({
    ^bb0(%arg0: memref<4xf32>):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<4xf32>, index) -> f32
      %2 = "arith.addf"(%1, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "memref.store"(%2, %arg0, %0) : (f32, memref<4xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "add", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

