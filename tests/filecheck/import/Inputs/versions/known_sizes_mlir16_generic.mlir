// mlir-opt-16 --gpu-kernel-outlining --mlir-print-op-generic Inputs/versions/known_sizes.mlir
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<48xi32>):
    %0 = "arith.constant"() {value = 1 : index} : () -> index
    %1 = "arith.constant"() {value = 2 : index} : () -> index
    %2 = "arith.constant"() {value = 3 : index} : () -> index
    %3 = "arith.constant"() {value = 8 : index} : () -> index
    "gpu.launch_func"(%2, %0, %0, %3, %1, %0, %arg0) {kernel = @fill_kernel::@fill_kernel, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 1>} : (index, index, index, index, index, index, memref<48xi32>) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<48xi32>) -> (), sym_name = "fill"} : () -> ()
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<48xi32>):
      %0 = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "gpu.block_id"() {dimension = #gpu<dim y>} : () -> index
      %2 = "gpu.block_id"() {dimension = #gpu<dim z>} : () -> index
      %3 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %4 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %5 = "gpu.thread_id"() {dimension = #gpu<dim z>} : () -> index
      %6 = "gpu.grid_dim"() {dimension = #gpu<dim x>} : () -> index
      %7 = "gpu.grid_dim"() {dimension = #gpu<dim y>} : () -> index
      %8 = "gpu.grid_dim"() {dimension = #gpu<dim z>} : () -> index
      %9 = "gpu.block_dim"() {dimension = #gpu<dim x>} : () -> index
      %10 = "gpu.block_dim"() {dimension = #gpu<dim y>} : () -> index
      %11 = "gpu.block_dim"() {dimension = #gpu<dim z>} : () -> index
      "cf.br"()[^bb1] : () -> ()
    ^bb1:  // pred: ^bb0
      %12 = "arith.constant"() {value = 8 : index} : () -> index
      %13 = "arith.constant"() {value = 10 : index} : () -> index
      %14 = "arith.constant"() {value = 16 : index} : () -> index
      %15 = "arith.constant"() {value = 100 : index} : () -> index
      %16 = "arith.muli"(%4, %12) : (index, index) -> index
      %17 = "arith.muli"(%0, %14) : (index, index) -> index
      %18 = "arith.addi"(%16, %3) : (index, index) -> index
      %19 = "arith.addi"(%17, %18) : (index, index) -> index
      %20 = "arith.muli"(%4, %13) : (index, index) -> index
      %21 = "arith.muli"(%0, %15) : (index, index) -> index
      %22 = "arith.addi"(%3, %20) : (index, index) -> index
      %23 = "arith.addi"(%22, %21) : (index, index) -> index
      %24 = "arith.index_cast"(%23) : (index) -> i32
      "memref.store"(%24, %arg0, %19) : (i32, memref<48xi32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<48xi32>) -> (), gpu.kernel, gpu.known_block_size = array<i32: 8, 2, 1>, gpu.known_grid_size = array<i32: 3, 1, 1>, sym_name = "fill_kernel", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "fill_kernel"} : () -> ()
}) {gpu.container_module} : () -> ()

