// REQUIRES: ld.lld
// Votes and ballots on amdgpu are llvm.amdgcn.ballot at the wavefront's
// width (i64 on gfx90a's wave64, i32 on gfx1100's wave32, where an i32
// ballot is the compare's 32-bit scalar mask): a vote compares the
// predicate's ballot with that of the wavefront's lanes. An i32 ballot of a
// 64-lane wavefront would drop lanes and is refused. Fences are LLVM
// fences at the AMDGPU memory model's scopes (workgroup, agent, system).
// The reduction kinds MLIR 19 names (umin, umax, minimum, ...) link too.
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s
// RUN: gpuc compile %s --target amdgpu --validate -o %t.hsaco
// RUN: gpuc compile %S/../../import/Inputs/versions/reduce_kinds_mlir22_generic.mlir --target amdgpu --validate -o %t.kinds.hsaco
// RUN: not gpuc-opt %S/Inputs/ballot_i32.mlir -t amdgpu 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: gpuc-opt %S/Inputs/ballot_i32.mlir -t 'amdgpu{arch=gfx1100}' | FileCheck %s --check-prefix=NARROW32

// CHECK-LABEL: define amdgpu_kernel void @k(
// CHECK: [[LANES:%[^ ]+]] = {{.*}}call i64 @llvm.amdgcn.ballot.i64(i1 true)
// CHECK: [[P:%[^ ]+]] = {{.*}}call i64 @llvm.amdgcn.ballot.i64(i1 %p)
// CHECK: icmp ne i64 [[P]], 0
// CHECK: icmp eq i64 %{{.*}}, %{{.*}}
// CHECK: fence syncscope("workgroup") seq_cst
// CHECK: fence syncscope("agent") acq_rel
// CHECK: fence release
gpuc.func @k(%x: !gpuc.ptr<i32, global>, %w: !gpuc.ptr<i64, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %x[%t] : !gpuc.ptr<i32, global>
  %z = arith.constant 0 : i32
  %p = arith.cmpi sgt, %v, %z : i32
  %any = gpuc.vote any %p
  %all = gpuc.vote all %p
  %b = gpuc.ballot %p : i64
  %both = arith.andi %any, %all : i1
  %zero = arith.constant 0 : i64
  %r = arith.select %both, %b, %zero : i64
  gpuc.fence block seq_cst
  gpuc.store %r, %w[%t] : !gpuc.ptr<i64, global>
  gpuc.fence device acq_rel
  gpuc.store %v, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.fence system release
  gpuc.return
}

// NARROW: ballot_i32.mlir:7:8: error: 'gpuc.ballot' op gives an i32 mask, but a wavefront of gfx90a has 64 lanes; use i64
// NARROW32-LABEL: k:
// NARROW32: v_cmp_ne_u32_e64 [[MASK:s[0-9]+]], 0, v{{[0-9]+}}
// NARROW32: v_mov_b32_e32 v{{[0-9]+}}, [[MASK]]
// NARROW32: global_store_b32
