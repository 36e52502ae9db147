// RUN: gpuc-opt -p gpu-kernel-outlining %s | filecheck %s

// Two launches: two gpu.modules, each defining @f_kernel (MLIR 16's names);
// the captured memref is a parameter, the constant is cloned in, the called
// function is copied into the gpu.module, constant sizes are recorded.
// CHECK-LABEL: builtin.module attributes {gpu.container_module}
// CHECK: func.func @f(%m: memref<?xf32>)
// CHECK: "gpu.launch_func"(%c1, %c1, %c1, %c8, %c1, %c1, %m) <{kernel = @f_kernel::@f_kernel,
// CHECK: "gpu.launch_func"(%c1, %c1, %c1, %c8, %c1, %c1, %m) <{kernel = @f_kernel_0::@f_kernel,
// CHECK-NOT: gpu.launch"
// CHECK: "gpu.module"() <{sym_name = "f_kernel"}>
// CHECK: "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}>
// CHECK: "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: func.call @twice
// CHECK: "gpu.return"()
// CHECK: gpu.known_block_size = array<i32: 8, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>
// CHECK: func.func @twice
// CHECK: "gpu.module"() <{sym_name = "f_kernel_0"}>
// CHECK-NOT: func.func @twice
"func.func"() <{function_type = (f32) -> f32, sym_name = "twice"}> ({
^bb0(%x: f32):
  %r = "arith.addf"(%x, %x) : (f32, f32) -> f32
  "func.return"(%r) : (f32) -> ()
}) : () -> ()
"func.func"() <{function_type = (memref<?xf32>) -> (), sym_name = "f"}> ({
^bb0(%m: memref<?xf32>):
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
  %two = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
  "gpu.launch"(%c1, %c1, %c1, %c8, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb1(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
    %v = "memref.load"(%m, %tx) : (memref<?xf32>, index) -> f32
    %w = "arith.mulf"(%v, %two) : (f32, f32) -> f32
    %u = "func.call"(%w) <{callee = @twice}> : (f32) -> f32
    "memref.store"(%u, %m, %tx) : (f32, memref<?xf32>, index) -> ()
    "gpu.terminator"() : () -> ()
  }) : (index, index, index, index, index, index) -> ()
  "gpu.launch"(%c1, %c1, %c1, %c8, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb1(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
    %v = "memref.load"(%m, %tx) : (memref<?xf32>, index) -> f32
    "gpu.terminator"() : () -> ()
  }) : (index, index, index, index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()
