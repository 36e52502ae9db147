// REQUIRES: ptxas
// Votes and ballots on ptx are vote.sync over the lanes the thread's warp
// has (its member mask: all 32, or fewer in a block's last warp); an i64
// ballot is the 32-bit one zero-extended. Fences are LLVM fences at NVPTX's
// scopes: fence.sc or fence.acq_rel on .cta, .gpu, .sys. ptxas accepts the PTX.
// RUN: gpuc compile %s --target ptx --validate -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: gpuc-opt %s -t 'llvm{target=ptx}' | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: .visible .entry votes(
// CHECK: vote.sync.any.pred
// CHECK: vote.sync.all.pred
// CHECK: vote.sync.ballot.b32
// CHECK: vote.sync.ballot.b32
// CHECK: ret;
// LLVM-LABEL: define ptx_kernel void @votes(
// LLVM: [[MASK:%[^ ]+]] = select i1 %{{.*}}, i32 -1, i32 %{{.*}}
// LLVM: call i1 @llvm.nvvm.vote.any.sync(i32 [[MASK]], i1 %p)
// LLVM: call i1 @llvm.nvvm.vote.all.sync(i32 %{{.*}}, i1 %p)
// LLVM: call i32 @llvm.nvvm.vote.ballot.sync(i32 %{{.*}}, i1 %p)
// LLVM: [[B:%[^ ]+]] = {{.*}}call i32 @llvm.nvvm.vote.ballot.sync(i32 %{{.*}}, i1 %p)
// LLVM: zext i32 [[B]] to i64
gpuc.func @votes(%x: !gpuc.ptr<i32, global>, %w: !gpuc.ptr<i64, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %x[%t] : !gpuc.ptr<i32, global>
  %z = arith.constant 0 : i32
  %p = arith.cmpi sgt, %v, %z : i32
  %any = gpuc.vote any %p
  %all = gpuc.vote all %p
  %b = gpuc.ballot %p : i32
  %l = gpuc.ballot %p : i64
  %both = arith.andi %any, %all : i1
  %r = arith.select %both, %b, %z : i32
  gpuc.store %r, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.store %l, %w[%t] : !gpuc.ptr<i64, global>
  gpuc.return
}

// CHECK-LABEL: .visible .entry fences(
// CHECK: fence.sc.cta;
// CHECK: fence.acq_rel.gpu;
// CHECK: fence.acq_rel.gpu;
// CHECK: fence.sc.sys;
// CHECK: ret;
// LLVM-LABEL: define ptx_kernel void @fences(
// LLVM: fence syncscope("block") seq_cst
// LLVM: fence syncscope("device") acquire
// LLVM: fence syncscope("device") release
// LLVM: fence seq_cst
gpuc.func @fences(%x: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %x[%t] : !gpuc.ptr<i32, global>
  gpuc.fence block seq_cst
  gpuc.store %v, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.fence device acquire
  %w = gpuc.load %x[%t] : !gpuc.ptr<i32, global>
  gpuc.fence device release
  gpuc.store %w, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.fence system seq_cst
  gpuc.return
}
