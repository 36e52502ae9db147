// REQUIRES: ld.lld
// A kernel with a known block size (gpu.known_block_size, as the import and
// gpuc's outlining record it) is declared as clang declares OpenCL C's
// `reqd_work_group_size`: that metadata and the flat work-group size it
// implies, which the code object's notes carry; a missing y or z is 1. A
// kernel without one keeps the default flat size (1024).
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t amdgpu | FileCheck %s --check-prefix=ASM

// CHECK:      define amdgpu_kernel void @fixed(ptr addrspace(1) %p) #[[FIXED:[0-9]+]] !reqd_work_group_size ![[FIXEDSIZE:[0-9]+]] {
// CHECK:      define amdgpu_kernel void @row(ptr addrspace(1) %p) #[[FIXED]] !reqd_work_group_size ![[ROWSIZE:[0-9]+]] {
// CHECK:      define amdgpu_kernel void @free(ptr addrspace(1) %p) {
// CHECK:      attributes #[[FIXED]] = { "amdgpu-flat-work-group-size"="128,128" }
// CHECK-DAG:  ![[FIXEDSIZE]] = !{i32 64, i32 2, i32 1}
// CHECK-DAG:  ![[ROWSIZE]] = !{i32 128, i32 1, i32 1}

// ASM-LABEL: amdhsa.kernels:
// ASM:       .max_flat_workgroup_size: 128
// ASM-NEXT:  .name: fixed
// ASM-NEXT:  .private_segment_fixed_size: 0
// ASM-NEXT:  .reqd_workgroup_size:
// ASM-NEXT:  - 64
// ASM-NEXT:  - 2
// ASM-NEXT:  - 1
// ASM:       .max_flat_workgroup_size: 128
// ASM-NEXT:  .name: row
// ASM-NEXT:  .private_segment_fixed_size: 0
// ASM-NEXT:  .reqd_workgroup_size:
// ASM-NEXT:  - 128
// ASM-NEXT:  - 1
// ASM-NEXT:  - 1
// ASM:       .max_flat_workgroup_size: 1024
// ASM-NEXT:  .name: free
// ASM-NOT:   .reqd_workgroup_size:
// ASM:       .vgpr_spill_count:
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
