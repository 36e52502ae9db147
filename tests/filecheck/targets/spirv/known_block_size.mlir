// REQUIRES: spirv-dis
// A kernel with a known block size (gpu.known_block_size, as the import and
// gpuc's outlining record it) carries OpenCL C's `reqd_work_group_size`, which
// the back-end makes the entry point's `OpExecutionMode LocalSize`; a missing
// y or z is 1. A kernel without one has no execution mode for its size.
// RUN: gpuc-opt %s -t spirv | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: OpEntryPoint Kernel %free "free"
// CHECK-DAG:   OpExecutionMode %fixed LocalSize 64 2 1
// CHECK-DAG:   OpExecutionMode %row LocalSize 128 1 1
// CHECK-NOT:   OpExecutionMode %free LocalSize
// CHECK:       OpName

// LLVM:       define spir_kernel void @fixed(ptr addrspace(1) %p) !reqd_work_group_size ![[FIXED:[0-9]+]] {
// LLVM:       define spir_kernel void @row(ptr addrspace(1) %p) !reqd_work_group_size ![[ROW:[0-9]+]] {
// LLVM:       define spir_kernel void @free(ptr addrspace(1) %p) {
// LLVM-DAG:   ![[FIXED]] = !{i32 64, i32 2, i32 1}
// LLVM-DAG:   ![[ROW]] = !{i32 128, i32 1, i32 1}
gpuc.func @fixed(%p: !gpuc.ptr<i32, global>) kernel attributes {gpu.known_block_size = array<i32: 64, 2, 1>} {
  %c = arith.constant 1 : i32
  gpuc.store %c, %p : !gpuc.ptr<i32, global>
  gpuc.return
}

gpuc.func @row(%p: !gpuc.ptr<i32, global>) kernel attributes {gpu.known_block_size = array<i32: 128>} {
  gpuc.return
}

gpuc.func @free(%p: !gpuc.ptr<i32, global>) kernel {
  gpuc.return
}
