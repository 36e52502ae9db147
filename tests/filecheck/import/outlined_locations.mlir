// A kernel gpuc outlines carries the location of the gpu.launch (or of the
// scf.parallel it was converted from), so a diagnostic about the kernel
// itself points at what the user wrote, not at 1:1.
// RUN: not gpuc-opt -p import %s 2>&1 | filecheck %s
// RUN: not gpuc compile %s --target spirv -o %t.spv 2>&1 | filecheck %s
// RUN: not gpuc compile %root/tests/fixtures/outlining/shared_limit.mlir --target ptx -o %t.ptx 2>&1 | filecheck %s --check-prefix=SHARED

// A target's check after the import (the static shared-memory limit) points
// at the gpu.launch the kernel was made of, and names it.
// SHARED: shared_limit.mlir:6:3: error: 'gpuc.func' op kernel @f_kernel (the kernel gpuc made of the gpu.launch here) uses 65536 bytes of static shared memory, more than the 49152 bytes the ptx target allows

// CHECK: outlined_locations.mlir:[[# @LINE + 7]]:3: error: 'gpu.func' op @f_kernel (the kernel gpuc made of the scf.parallel here) has a parameter whose memory space 2 : i64 is not supported
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
