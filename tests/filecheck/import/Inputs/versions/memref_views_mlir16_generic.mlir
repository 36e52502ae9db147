// mlir-opt-16 --mlir-print-op-generic Inputs/versions/memref_views.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "func.func"() ({
    ^bb0(%arg0: memref<4x8xf32, strided<[96, 2], offset: 68>>, %arg1: index, %arg2: index):
      %0 = "memref.load"(%arg0, %arg1, %arg2) : (memref<4x8xf32, strided<[96, 2], offset: 68>>, index, index) -> f32
      "func.return"(%0) : (f32) -> ()
    }) {function_type = (memref<4x8xf32, strided<[96, 2], offset: 68>>, index, index) -> f32, sym_name = "at", sym_visibility = "private"} : () -> ()
    "gpu.func"() ({
    ^bb0(%arg0: memref<16x32xf32>, %arg1: index, %arg2: memref<5x4x8xf32>, %arg3: memref<8x16xf32, #gpu.address_space<workgroup>>):
      %0 = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
      %1 = "gpu.thread_id"() {dimension = #gpu<dim y>} : () -> index
      %2 = "arith.constant"() {value = 0 : index} : () -> index
      %3 = "arith.constant"() {value = 1 : index} : () -> index
      %4 = "arith.constant"() {value = 2 : index} : () -> index
      %5 = "arith.constant"() {value = 3 : index} : () -> index
      %6 = "arith.constant"() {value = 4 : index} : () -> index
      %7 = "arith.constant"() {value = 7 : index} : () -> index
      %8 = "memref.subview"(%arg0) {operand_segment_sizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 2, 4>, static_sizes = array<i64: 4, 8>, static_strides = array<i64: 3, 2>} : (memref<16x32xf32>) -> memref<4x8xf32, strided<[96, 2], offset: 68>>
      %9 = "func.call"(%8, %1, %0) {callee = @at} : (memref<4x8xf32, strided<[96, 2], offset: 68>>, index, index) -> f32
      "memref.store"(%9, %arg2, %2, %1, %0) : (f32, memref<5x4x8xf32>, index, index, index) -> ()
      %10 = "memref.subview"(%arg0, %arg1) {operand_segment_sizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 1>, static_sizes = array<i64: 4, 8>, static_strides = array<i64: 1, 3>} : (memref<16x32xf32>, index) -> memref<4x8xf32, strided<[32, 3], offset: ?>>
      %11 = "memref.load"(%10, %1, %0) : (memref<4x8xf32, strided<[32, 3], offset: ?>>, index, index) -> f32
      "memref.store"(%11, %arg2, %3, %1, %0) : (f32, memref<5x4x8xf32>, index, index, index) -> ()
      %12 = "memref.subview"(%arg0, %arg1) {operand_segment_sizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 1, 32>, static_strides = array<i64: 1, 1>} : (memref<16x32xf32>, index) -> memref<32xf32, strided<[1], offset: ?>>
      %13 = "arith.muli"(%1, %7) : (index, index) -> index
      %14 = "arith.addi"(%13, %0) : (index, index) -> index
      %15 = "memref.load"(%12, %14) : (memref<32xf32, strided<[1], offset: ?>>, index) -> f32
      "memref.store"(%15, %arg2, %4, %1, %0) : (f32, memref<5x4x8xf32>, index, index, index) -> ()
      %16 = "memref.reinterpret_cast"(%arg0) {operand_segment_sizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 5>, static_sizes = array<i64: 4, 8>, static_strides = array<i64: 11, 1>} : (memref<16x32xf32>) -> memref<4x8xf32, strided<[11, 1], offset: 5>>
      %17 = "memref.load"(%16, %1, %0) : (memref<4x8xf32, strided<[11, 1], offset: 5>>, index, index) -> f32
      "memref.store"(%17, %arg2, %5, %1, %0) : (f32, memref<5x4x8xf32>, index, index, index) -> ()
      %18 = "memref.subview"(%arg3) {operand_segment_sizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 2, 4>, static_sizes = array<i64: 4, 8>, static_strides = array<i64: 1, 1>} : (memref<8x16xf32, #gpu.address_space<workgroup>>) -> memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>
      "memref.store"(%9, %18, %1, %0) : (f32, memref<4x8xf32, strided<[16, 1], offset: 36>, #gpu.address_space<workgroup>>, index, index) -> ()
      "gpu.barrier"() : () -> ()
      %19 = "arith.subi"(%5, %1) : (index, index) -> index
      %20 = "arith.addi"(%19, %4) : (index, index) -> index
      %21 = "arith.addi"(%0, %6) : (index, index) -> index
      %22 = "memref.load"(%arg3, %20, %21) : (memref<8x16xf32, #gpu.address_space<workgroup>>, index, index) -> f32
      "memref.store"(%22, %arg2, %6, %1, %0) : (f32, memref<5x4x8xf32>, index, index, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<16x32xf32>, index, memref<5x4x8xf32>) -> (), gpu.kernel, sym_name = "views", workgroup_attributions = 1 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "views"} : () -> ()
}) {gpu.container_module} : () -> ()

