// mlir-opt-16 --mlir-print-op-generic Inputs/versions/vector_shuffle.mlir
"builtin.module"() ({
  "gpu.module"() ({
    "gpu.func"() ({
    ^bb0(%arg0: memref<8xi32>, %arg1: memref<8xi32>):
      %0 = "arith.constant"() {value = dense<0> : vector<4xi32>} : () -> vector<4xi32>
      %1 = "arith.constant"() {value = 0 : index} : () -> index
      %2 = "arith.constant"() {value = 1 : index} : () -> index
      %3 = "arith.constant"() {value = 2 : index} : () -> index
      %4 = "arith.constant"() {value = 3 : index} : () -> index
      %5 = "arith.constant"() {value = 4 : index} : () -> index
      %6 = "arith.constant"() {value = 5 : index} : () -> index
      %7 = "arith.constant"() {value = 6 : index} : () -> index
      %8 = "arith.constant"() {value = 7 : index} : () -> index
      %9 = "memref.load"(%arg0, %1) : (memref<8xi32>, index) -> i32
      %10 = "memref.load"(%arg0, %2) : (memref<8xi32>, index) -> i32
      %11 = "memref.load"(%arg0, %3) : (memref<8xi32>, index) -> i32
      %12 = "memref.load"(%arg0, %4) : (memref<8xi32>, index) -> i32
      %13 = "memref.load"(%arg0, %5) : (memref<8xi32>, index) -> i32
      %14 = "memref.load"(%arg0, %6) : (memref<8xi32>, index) -> i32
      %15 = "memref.load"(%arg0, %7) : (memref<8xi32>, index) -> i32
      %16 = "memref.load"(%arg0, %8) : (memref<8xi32>, index) -> i32
      %17 = "vector.insertelement"(%9, %0, %1) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %18 = "vector.insertelement"(%10, %17, %2) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %19 = "vector.insertelement"(%11, %18, %3) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %20 = "vector.insertelement"(%12, %19, %4) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %21 = "vector.insertelement"(%13, %0, %1) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %22 = "vector.insertelement"(%14, %21, %2) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %23 = "vector.insertelement"(%15, %22, %3) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %24 = "vector.insertelement"(%16, %23, %4) : (i32, vector<4xi32>, index) -> vector<4xi32>
      %25 = "vector.shuffle"(%20, %24) {mask = [7, 0, 5, 2, 4, 4, 1, 6]} : (vector<4xi32>, vector<4xi32>) -> vector<8xi32>
      %26 = "vector.extractelement"(%25, %1) : (vector<8xi32>, index) -> i32
      "memref.store"(%26, %arg1, %1) : (i32, memref<8xi32>, index) -> ()
      %27 = "vector.extractelement"(%25, %2) : (vector<8xi32>, index) -> i32
      "memref.store"(%27, %arg1, %2) : (i32, memref<8xi32>, index) -> ()
      %28 = "vector.extractelement"(%25, %3) : (vector<8xi32>, index) -> i32
      "memref.store"(%28, %arg1, %3) : (i32, memref<8xi32>, index) -> ()
      %29 = "vector.extractelement"(%25, %4) : (vector<8xi32>, index) -> i32
      "memref.store"(%29, %arg1, %4) : (i32, memref<8xi32>, index) -> ()
      %30 = "vector.extractelement"(%25, %5) : (vector<8xi32>, index) -> i32
      "memref.store"(%30, %arg1, %5) : (i32, memref<8xi32>, index) -> ()
      %31 = "vector.extractelement"(%25, %6) : (vector<8xi32>, index) -> i32
      "memref.store"(%31, %arg1, %6) : (i32, memref<8xi32>, index) -> ()
      %32 = "vector.extractelement"(%25, %7) : (vector<8xi32>, index) -> i32
      "memref.store"(%32, %arg1, %7) : (i32, memref<8xi32>, index) -> ()
      %33 = "vector.extractelement"(%25, %8) : (vector<8xi32>, index) -> i32
      "memref.store"(%33, %arg1, %8) : (i32, memref<8xi32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {function_type = (memref<8xi32>, memref<8xi32>) -> (), gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) {sym_name = "m"} : () -> ()
}) {gpu.container_module} : () -> ()

