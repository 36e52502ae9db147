// Votes and ballots on native are collectives of the work-group function,
// as shuffles and reductions are: the predicate goes to the block's context
// storage, and a loop over the threads folds each thread's warp in lane
// order (a vote with or / and, a ballot setting bit j for lane j below the
// mask's width). A fence is an LLVM fence: a block's threads run in one host
// thread, so a block fence is `singlethread` (it only keeps the compiler
// from moving accesses across it); device and system fences order accesses
// for the host threads that run other blocks.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @votes(ptr %state, ptr %p, ptr %w)
// CHECK: store i1 %q, ptr
// CHECK: lanes.x.body:
// CHECK: fold.body:
// CHECK: or i1
// CHECK: lanes.x.body.1:
// CHECK: fold.body.1:
// CHECK: [[FITS:%[^ ]+]] = icmp ult i64 %fold.1, 64
// CHECK: [[BIT:%[^ ]+]] = zext i1 %{{.*}} to i64
// CHECK: [[SET:%[^ ]+]] = shl i64 [[BIT]], %fold.1
// CHECK: [[OR:%[^ ]+]] = or i64 %{{.*}}, [[SET]]
// CHECK: select i1 [[FITS]], i64 [[OR]], i64
gpuc.func @votes(%p: !gpuc.ptr<i32, global>, %w: !gpuc.ptr<i64, global>) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<i32, global>
  %z = arith.constant 0 : i32
  %q = arith.cmpi sgt, %x, %z : i32
  %any = gpuc.vote any %q
  %b = gpuc.ballot %q : i64
  %r = arith.extui %any : i1 to i32
  gpuc.store %r, %p[%t] : !gpuc.ptr<i32, global>
  gpuc.store %b, %w[%t] : !gpuc.ptr<i64, global>
  gpuc.return
}

// CHECK-LABEL: define internal void @fences(
// CHECK: fence syncscope("singlethread") acq_rel
// CHECK: fence seq_cst
// CHECK: fence release
gpuc.func @fences(%p: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<i32, global>
  gpuc.fence block acq_rel
  gpuc.store %x, %p[%t] : !gpuc.ptr<i32, global>
  gpuc.fence device seq_cst
  gpuc.fence system release
  gpuc.return
}
