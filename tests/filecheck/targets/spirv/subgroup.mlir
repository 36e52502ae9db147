// REQUIRES: spirv-dis, spirv-val
// Subgroup ops on spirv are OpenCL's sub-group builtins: a shuffle is
// OpGroupNonUniformShuffle (cl_khr_subgroup_shuffle) at subgroup scope (3),
// add/min/max reductions the core OpGroup*Reduce, the other kinds
// cl_khr_subgroup_non_uniform_arithmetic's; the ids are built-in variables.
// spirv-val accepts the module.
// RUN: gpuc compile %s --target spirv --validate -o %t.spv
// RUN: gpuc-opt %s -t spirv | FileCheck %s

// CHECK-DAG: OpCapability GroupNonUniformShuffle
// CHECK-DAG: OpCapability GroupNonUniformArithmetic
// CHECK-DAG: OpCapability Groups
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn SubgroupLocalInvocationId
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn SubgroupSize
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn SubgroupMaxSize
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn SubgroupId
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn NumSubgroups
// CHECK: OpGroupNonUniformShuffle %float %uint_3
// CHECK: OpGroupNonUniformShuffle %ulong %uint_3
// CHECK: OpGroupFAdd %float %uint_3 Reduce
// CHECK: OpGroupSMin %uint %uint_3 Reduce
// CHECK: OpGroupNonUniformBitwiseXor %ulong %uint_3 Reduce
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %q: !gpuc.ptr<i64, global>,
             %r: !gpuc.ptr<i32, global>, %o: i32) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  %l = gpuc.load %q[%t] : !gpuc.ptr<i64, global>
  %i = gpuc.load %r[%t] : !gpuc.ptr<i32, global>
  %a, %va = gpuc.shuffle up %x, %o : f32
  %b, %vb = gpuc.shuffle idx %l, %o : i64
  %s = gpuc.subgroup_reduce add %a : f32
  %m = gpuc.subgroup_reduce min %i : i32
  %z = gpuc.subgroup_reduce xor %b : i64
  %sid = gpuc.subgroup_id
  %n = gpuc.num_subgroups
  %at = arith.addi %sid, %n : index
  gpuc.store %s, %p[%at] : !gpuc.ptr<f32, global>
  gpuc.store %m, %r[%at] : !gpuc.ptr<i32, global>
  gpuc.store %z, %q[%at] : !gpuc.ptr<i64, global>
  gpuc.return
}
