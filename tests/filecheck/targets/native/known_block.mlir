// A barrier kernel known to run with one block (gpu.known_block_size, which
// the native executor also sets on a kernel it compiles again for a block it
// keeps being launched with) loops over constant thread counts: its context
// storage and its thread loops take no block size from the state, and the
// loops over x are marked not to be unrolled, so that LLVM vectorizes them
// (a fully unrolled 16-thread row would run per thread, in scalar code).
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @known(ptr %state, ptr %p)
// CHECK-NOT: %threads
// CHECK: %context = load ptr
// CHECK-NEXT: mul nuw i64 64, 0
// CHECK: icmp ult i64 %t.z, 1
// CHECK: icmp ult i64 %t.y, 4
// CHECK: t.x.head:
// CHECK: icmp ult i64 %t.x, 16
// CHECK: br label %t.x.head, !llvm.loop [[LOOP:![0-9]+]]
// CHECK: t.x.head.1:
// CHECK: icmp ult i64 %t.x.1, 16
// CHECK-LABEL: define void @__gpuc_launch_known(
// CHECK: [[LOOP]] = distinct !{[[LOOP]], [[COUNT:![0-9]+]], [[NOUNROLL:![0-9]+]]}
// CHECK-DAG: [[COUNT]] = !{!"llvm.loop.interleave.count", i32 1}
// CHECK-DAG: [[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}
gpuc.func @known(%p: !gpuc.ptr<f32, global>) kernel
    attributes {gpu.known_block_size = array<i32: 16, 4, 1>} {
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %w = arith.addf %v, %v : f32
  gpuc.store %w, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
