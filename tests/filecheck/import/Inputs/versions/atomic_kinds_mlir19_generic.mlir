// mlir-opt-19 --mlir-print-op-generic Inputs/versions/atomic_kinds.mlir
"builtin.module"() ({
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<16xi32>, memref<4xf32>, i32, f32) -> ()}> ({
    ^bb0(%arg0: memref<16xi32>, %arg1: memref<4xf32>, %arg2: i32, %arg3: f32):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %2 = "arith.constant"() <{value = 2 : index}> : () -> index
      %3 = "arith.constant"() <{value = 3 : index}> : () -> index
      %4 = "arith.constant"() <{value = 4 : index}> : () -> index
      %5 = "arith.constant"() <{value = 5 : index}> : () -> index
      %6 = "arith.constant"() <{value = 6 : index}> : () -> index
      %7 = "arith.constant"() <{value = 7 : index}> : () -> index
      %8 = "memref.atomic_rmw"(%arg2, %arg0, %0) <{kind = 1 : i64}> : (i32, memref<16xi32>, index) -> i32
      %9 = "memref.atomic_rmw"(%arg2, %arg0, %1) <{kind = 2 : i64}> : (i32, memref<16xi32>, index) -> i32
      %10 = "memref.atomic_rmw"(%arg2, %arg0, %2) <{kind = 4 : i64}> : (i32, memref<16xi32>, index) -> i32
      %11 = "memref.atomic_rmw"(%arg2, %arg0, %3) <{kind = 5 : i64}> : (i32, memref<16xi32>, index) -> i32
      %12 = "memref.atomic_rmw"(%arg2, %arg0, %4) <{kind = 7 : i64}> : (i32, memref<16xi32>, index) -> i32
      %13 = "memref.atomic_rmw"(%arg2, %arg0, %5) <{kind = 8 : i64}> : (i32, memref<16xi32>, index) -> i32
      %14 = "memref.atomic_rmw"(%arg2, %arg0, %6) <{kind = 11 : i64}> : (i32, memref<16xi32>, index) -> i32
      %15 = "memref.atomic_rmw"(%arg2, %arg0, %7) <{kind = 12 : i64}> : (i32, memref<16xi32>, index) -> i32
      %16 = "memref.atomic_rmw"(%arg3, %arg1, %0) <{kind = 0 : i64}> : (f32, memref<4xf32>, index) -> f32
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "atomics", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.module_end"() : () -> ()
  }) : () -> ()
}) : () -> ()

