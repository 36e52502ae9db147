// mlir-opt-22 --mlir-print-op-generic Inputs/versions/reduce_kinds.mlir
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?xi32>, memref<?xf32>, memref<?xi32>, memref<?xf32>, memref<?xi32>) -> ()}> ({
    ^bb0(%arg0: memref<?xi32>, %arg1: memref<?xf32>, %arg2: memref<?xi32>, %arg3: memref<?xf32>, %arg4: memref<?xi32>):
      %0 = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "arith.constant"() <{value = 0 : index}> : () -> index
      %2 = "arith.constant"() <{value = 1 : index}> : () -> index
      %3 = "arith.constant"() <{value = 2 : index}> : () -> index
      %4 = "arith.constant"() <{value = 3 : index}> : () -> index
      %5 = "arith.constant"() <{value = 4 : index}> : () -> index
      %6 = "arith.constant"() <{value = 5 : index}> : () -> index
      %7 = "arith.constant"() <{value = 6 : index}> : () -> index
      %8 = "arith.constant"() <{value = 7 : index}> : () -> index
      %9 = "memref.dim"(%arg0, %1) : (memref<?xi32>, index) -> index
      %10 = "memref.load"(%arg0, %0) : (memref<?xi32>, index) -> i32
      %11 = "memref.load"(%arg1, %0) : (memref<?xf32>, index) -> f32
      %12 = "gpu.all_reduce"(%10) <{op = #gpu<all_reduce_op minsi>}> ({
      }) : (i32) -> i32
      %13 = "gpu.all_reduce"(%10) <{op = #gpu<all_reduce_op minui>}> ({
      }) : (i32) -> i32
      %14 = "gpu.all_reduce"(%10) <{op = #gpu<all_reduce_op maxsi>, uniform}> ({
      }) : (i32) -> i32
      %15 = "gpu.all_reduce"(%10) <{op = #gpu<all_reduce_op maxui>}> ({
      }) : (i32) -> i32
      %16 = "gpu.all_reduce"(%11) <{op = #gpu<all_reduce_op minnumf>}> ({
      }) : (f32) -> f32
      %17 = "gpu.all_reduce"(%11) <{op = #gpu<all_reduce_op maxnumf>}> ({
      }) : (f32) -> f32
      %18 = "gpu.all_reduce"(%11) <{op = #gpu<all_reduce_op minimumf>}> ({
      }) : (f32) -> f32
      %19 = "gpu.all_reduce"(%11) <{op = #gpu<all_reduce_op maximumf>, uniform}> ({
      }) : (f32) -> f32
      %20 = "gpu.subgroup_reduce"(%10) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op minsi>}> : (i32) -> i32
      %21 = "gpu.subgroup_reduce"(%10) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op minui>}> : (i32) -> i32
      %22 = "gpu.subgroup_reduce"(%10) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op maxsi>, uniform}> : (i32) -> i32
      %23 = "gpu.subgroup_reduce"(%10) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op maxui>}> : (i32) -> i32
      %24 = "gpu.subgroup_reduce"(%11) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op minnumf>}> : (f32) -> f32
      %25 = "gpu.subgroup_reduce"(%11) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op maxnumf>}> : (f32) -> f32
      %26 = "gpu.subgroup_reduce"(%11) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op minimumf>}> : (f32) -> f32
      %27 = "gpu.subgroup_reduce"(%11) <{cluster_stride = 1 : i32, op = #gpu<all_reduce_op maximumf>, uniform}> : (f32) -> f32
      %28 = "arith.addi"(%0, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %29 = "arith.muli"(%9, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %30 = "arith.addi"(%0, %29) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %31 = "arith.muli"(%9, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %32 = "arith.addi"(%0, %31) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %33 = "arith.muli"(%9, %4) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %34 = "arith.addi"(%0, %33) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %35 = "arith.muli"(%9, %5) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %36 = "arith.addi"(%0, %35) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %37 = "arith.muli"(%9, %6) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %38 = "arith.addi"(%0, %37) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %39 = "arith.muli"(%9, %7) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %40 = "arith.addi"(%0, %39) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %41 = "arith.muli"(%9, %8) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %42 = "arith.addi"(%0, %41) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "memref.store"(%12, %arg2, %28) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%13, %arg2, %30) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%14, %arg2, %32) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%15, %arg2, %34) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%20, %arg2, %36) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%21, %arg2, %38) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%22, %arg2, %40) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%23, %arg2, %42) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%16, %arg3, %28) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%17, %arg3, %30) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%18, %arg3, %32) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%19, %arg3, %34) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%24, %arg3, %36) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%25, %arg3, %38) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%26, %arg3, %40) : (f32, memref<?xf32>, index) -> ()
      "memref.store"(%27, %arg3, %42) : (f32, memref<?xf32>, index) -> ()
      %43 = "gpu.subgroup_id"() : () -> index
      %44 = "gpu.lane_id"() : () -> index
      %45 = "gpu.subgroup_size"() : () -> index
      %46 = "arith.index_cast"(%43) : (index) -> i32
      %47 = "arith.index_cast"(%44) : (index) -> i32
      %48 = "arith.index_cast"(%45) : (index) -> i32
      %49 = "arith.muli"(%0, %4) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %50 = "arith.addi"(%49, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %51 = "arith.addi"(%49, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "memref.store"(%46, %arg4, %49) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%47, %arg4, %50) : (i32, memref<?xi32>, index) -> ()
      "memref.store"(%48, %arg4, %51) : (i32, memref<?xi32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "kinds", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

