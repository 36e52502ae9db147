// REQUIRES: spirv-dis
// A kernel is an OpenCL entry point; index ops are built-in variables read
// without any Linkage capability; the barrier is OpControlBarrier at workgroup
// scope ordering local and global memory.
// RUN: gpuc-opt %s -t spirv | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=LLVM

// CHECK: OpCapability Kernel
// CHECK-NOT: OpCapability Linkage
// CHECK: OpMemoryModel Physical64 OpenCL
// CHECK: OpEntryPoint Kernel %k "k"
// CHECK: OpSource OpenCL_C 300000
// CHECK-NOT: ContractionOff
// CHECK-DAG: OpDecorate {{.*}} BuiltIn LocalInvocationId
// CHECK-DAG: OpDecorate {{.*}} BuiltIn WorkgroupId
// CHECK-DAG: OpDecorate {{.*}} BuiltIn WorkgroupSize
// CHECK-DAG: OpDecorate {{.*}} BuiltIn NumWorkgroups
// CHECK-DAG: OpDecorate {{.*}} BuiltIn GlobalInvocationId
// CHECK-NOT: LinkageAttributes
// CHECK: OpControlBarrier %uint_2 %uint_2 %uint_784

// LLVM: define spir_kernel void @k(
// LLVM: call spir_func void @_Z7barrierj(i32 3)
// LLVM: declare spir_func void @_Z7barrierj(i32) [[ATTRS:#[0-9]+]]
// LLVM: attributes [[ATTRS]] = { convergent nounwind }
gpuc.func @k(%out: !gpuc.ptr<i64, global>) kernel {
  %t = gpuc.thread_id x
  %b = gpuc.block_id y
  %d = gpuc.block_dim z
  %g = gpuc.grid_dim x
  %i = gpuc.global_id x
  %s1 = arith.addi %t, %b : index
  %s2 = arith.addi %d, %g : index
  %s3 = arith.addi %s1, %s2 : index
  %v = arith.index_cast %s3 : index to i64
  gpuc.barrier
  gpuc.store %v, %out[%i] : !gpuc.ptr<i64, global>
  gpuc.return
}
