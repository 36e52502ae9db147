// Index ops read the special registers, the barrier is `bar.sync 0`, a shared
// allocation is a `.shared` array, and the ISA version follows the sm.
// RUN: gpuc-opt %s -t 'ptx{sm=80}' | FileCheck %s
// RUN: gpuc-opt %s -t 'ptx{sm=90 ptx_isa=83}' | FileCheck %s --check-prefix=ISA

// CHECK: .version 7.0
// CHECK: .target sm_80
// ISA: .version 8.3
// ISA: .target sm_90
// CHECK: .visible .entry k(
// CHECK: .shared .align 16 .b8 k_$_shared[1024];
// CHECK-DAG: %tid.y
// CHECK-DAG: %ctaid.z
// CHECK-DAG: %ntid.x
// CHECK-DAG: %nctaid.y
// CHECK-DAG: %laneid
// CHECK: bar.sync 0;
gpuc.func @k(%out: !gpuc.ptr<i64, global>) kernel {
  %s = gpuc.shared_alloc 256 align 16 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id y
  %b = gpuc.block_id z
  %d = gpuc.block_dim x
  %g = gpuc.grid_dim y
  %l = gpuc.lane_id
  %s1 = arith.addi %t, %b : index
  %s2 = arith.addi %d, %g : index
  %s3 = arith.addi %s1, %s2 : index
  %s4 = arith.addi %s3, %l : index
  %v = arith.index_cast %s4 : index to i64
  %f = arith.sitofp %v : i64 to f32
  gpuc.store %f, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %back = gpuc.load %s[%l] : !gpuc.ptr<f32, shared>
  %r = arith.fptosi %back : f32 to i64
  gpuc.store %r, %out[%t] : !gpuc.ptr<i64, global>
  gpuc.return
}
