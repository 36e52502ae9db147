// A block-stride loop (for j in range(t, n, BLOCK)) runs over groups of 16
// lanes: the iterations every lane of the group takes (the fewest lane's
// count) first, without a test per lane, so that the unrolled lane loop
// vectorizes; then the rest up to the longest lane's count, each lane's body
// only where its own j is below the bound.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @rows(
// CHECK: %lanes.least = alloca i64
// CHECK: store i64 -1, ptr %lanes.least
// CHECK: lane.done:
// CHECK-NEXT: [[FEWEST:%.*]] = load i64, ptr %lanes.least
// CHECK: lanes.all.head:
// CHECK-NEXT: %lanes.all = phi i64
// CHECK-NEXT: icmp ult i64 %lanes.all, [[FEWEST]]
// CHECK: lanes.all.done:
// CHECK-NOT: lane.step
// CHECK: lanes.k.head:
// CHECK-NEXT: %lanes.k = phi i64 [ [[FEWEST]],
// CHECK: lanes.k.done:
// CHECK: lane.body.2:
// CHECK: br i1 {{.*}}, label %lane.step, label %lane.skip
gpuc.func @rows(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                %n: index) kernel {
  %zero = arith.constant 0.0 : f32
  %t = gpuc.thread_id x
  %bd = gpuc.block_dim x
  gpuc.barrier
  %sum = scf.for %j = %t to %n step %bd iter_args(%acc = %zero) -> (f32) {
    %v = gpuc.load %x[%j] : !gpuc.ptr<f32, global>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  gpuc.store %sum, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
