// A kernel gpuc outlines carries the location of the gpu.launch (or of the
// scf.parallel it was converted from), so a diagnostic about the kernel
// itself points at what the user wrote, not at 1:1.
// RUN: not gpuc-opt -p import %s 2>&1 | filecheck %s
// RUN: not gpuc compile %s --target spirv -o %t.spv 2>&1 | filecheck %s

// CHECK: outlined_locations.mlir:[[# @LINE + 7]]:3: error: 'gpu.func' op @f_kernel has a parameter whose memory space 2 : i64 is not supported
// CHECK-NOT: :1:1:
"func.func"() <{function_type = (memref<4xf32, 2>) -> (), sym_name = "f"}> ({
^bb0(%m: memref<4xf32, 2>):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
  "scf.parallel"(%c0, %c4, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = "memref.load"(%m, %i) : (memref<4xf32, 2>, index) -> f32
    "memref.store"(%v, %m, %i) : (f32, memref<4xf32, 2>, index) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()
