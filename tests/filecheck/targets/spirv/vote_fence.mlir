// REQUIRES: spirv-dis, spirv-val
// Votes and ballots on spirv are OpenCL's sub-group builtins at subgroup
// scope (3): sub_group_any / sub_group_all (OpGroupAny, OpGroupAll), and
// cl_khr_subgroup_ballot's sub_group_ballot (a uint4: an i32 mask is its
// first word, an i64 its first two: LLVM reads them as one ulong). umin and umax are the unsigned
// reductions; a float min first makes NaN lanes +inf and votes whether all
// were NaN (Intel's runtime returns NaN from any NaN lane); minimum adds the
// votes that restore a NaN and -0. A fence is atomic_work_item_fence on
// local and global memory: OpMemoryBarrier with Workgroup (2), Device (1) or
// CrossDevice (0) scope, semantics WorkgroupMemory | CrossWorkgroupMemory
// (0x300) | the ordering (SequentiallyConsistent 0x10, AcquireRelease 0x8,
// Acquire 0x2, Release 0x4). spirv-val accepts the module.
// RUN: gpuc compile %s --target spirv --validate -o %t.spv
// RUN: gpuc-opt %s -t spirv | FileCheck %s

// CHECK-DAG: OpCapability Groups
// CHECK-DAG: OpCapability GroupNonUniformBallot
// CHECK: %[[ANY:.*]] = OpGroupAny %bool %uint_3
// CHECK: OpGroupAll %bool %uint_3
// CHECK: %[[B:.*]] = OpGroupNonUniformBallot %v4uint %uint_3
// CHECK: OpCompositeExtract %uint %[[B]] 0
// CHECK: %[[W:.*]] = OpGroupNonUniformBallot %v4uint %uint_3
// CHECK: %[[WORDS:.*]] = OpBitcast %v2ulong %[[W]]
// CHECK: OpCompositeExtract %ulong %[[WORDS]] 0
// CHECK: OpGroupUMin %uint %uint_3 Reduce
// CHECK: OpGroupUMax %ulong %uint_3 Reduce
// CHECK: OpGroupFMin %float %uint_3 Reduce
// CHECK: OpGroupAll %bool %uint_3
// CHECK: OpGroupFMin %float %uint_3 Reduce
// CHECK: OpGroupAny %bool %uint_3
// CHECK: OpGroupAny %bool %uint_3
// CHECK: OpMemoryBarrier %uint_2 %uint_784
// CHECK: OpMemoryBarrier %uint_1 %uint_776
// CHECK: OpMemoryBarrier %uint_1 %uint_770
// CHECK: OpMemoryBarrier %{{.*}} %uint_772
gpuc.func @k(%x: !gpuc.ptr<i32, global>, %w: !gpuc.ptr<i64, global>,
             %f: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %x[%t] : !gpuc.ptr<i32, global>
  %l = gpuc.load %w[%t] : !gpuc.ptr<i64, global>
  %y = gpuc.load %f[%t] : !gpuc.ptr<f32, global>
  %z = arith.constant 0 : i32
  %p = arith.cmpi sgt, %v, %z : i32
  %any = gpuc.vote any %p
  %all = gpuc.vote all %p
  %b = gpuc.ballot %p : i32
  %bw = gpuc.ballot %p : i64
  %umin = gpuc.subgroup_reduce umin %v : i32
  %umax = gpuc.subgroup_reduce umax %l : i64
  %min = gpuc.subgroup_reduce min %y : f32
  %minimum = gpuc.subgroup_reduce minimum %y : f32
  %both = arith.andi %any, %all : i1
  %r = arith.select %both, %b, %umin : i32
  %s = arith.addi %bw, %umax : i64
  %m = arith.addf %min, %minimum : f32
  gpuc.fence block seq_cst
  gpuc.store %r, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.fence device acq_rel
  gpuc.store %s, %w[%t] : !gpuc.ptr<i64, global>
  gpuc.fence device acquire
  gpuc.store %m, %f[%t] : !gpuc.ptr<f32, global>
  gpuc.fence system release
  gpuc.return
}
