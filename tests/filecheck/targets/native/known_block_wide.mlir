// A barrier kernel known to run with a wide block (256 threads in x) keeps
// LLVM's unroller on its loops over x: only rows of 64 threads or fewer are
// marked llvm.loop.unroll.disable (known_block.mlir). The unroller's peeling
// is what removes a loop over x in which only thread 0 does anything (a
// block sum's `if (tid == 0)`, saxpy's reverse derivative).
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @wide(ptr %state, ptr %p)
// CHECK: icmp ult i64 %t.x, 256
// CHECK: br label %t.x.head, !llvm.loop [[LOOP:![0-9]+]]
// CHECK-LABEL: define void @__gpuc_launch_wide(
// CHECK: [[LOOP]] = distinct !{[[LOOP]], [[COUNT:![0-9]+]]}
// CHECK-NEXT: [[COUNT]] = !{!"llvm.loop.interleave.count", i32 1}
// CHECK-NOT: llvm.loop.unroll.disable
gpuc.func @wide(%p: !gpuc.ptr<f32, global>) kernel
    attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %w = arith.addf %v, %v : f32
  gpuc.store %w, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
