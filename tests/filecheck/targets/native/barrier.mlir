// A kernel with barriers (here through a helper) becomes a work-group
// function: the region before the barrier is one loop nest over the block's
// threads (z, y, x), which stores %v, live across the barrier, in the
// block's context storage; the region after it is a second loop nest, which
// loads it back. The barrier itself emits nothing.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK: @k.context_bytes = internal constant i64 8

// CHECK-LABEL: define internal void @sync(ptr %state)
// CHECK-NEXT: entry:
// CHECK-NEXT: ret void
gpuc.func private @sync() helper {
  gpuc.barrier
  gpuc.return
}

// CHECK-LABEL: define internal void @k(ptr %state, ptr %p)
// CHECK: %threads = mul i64
// CHECK: %context = load ptr
// CHECK: [[SLOT:%.*]] = getelementptr inbounds i8, ptr %context, i64
// CHECK: t.z.head:
// CHECK: t.x.body:
// CHECK: %v = load float
// CHECK: [[AT:%.*]] = getelementptr inbounds float, ptr [[SLOT]], i64
// CHECK-NEXT: store float %v, ptr [[AT]]
// CHECK: t.z.head.1:
// CHECK: t.x.body.1:
// CHECK: [[BACK:%.*]] = getelementptr inbounds float, ptr [[SLOT]], i64
// CHECK-NEXT: load float, ptr [[BACK]]
// CHECK: %w = fadd contract float
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.call @sync() : () -> ()
  %w = arith.addf %v, %v : f32
  gpuc.store %w, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// The entry allocates the context storage once for its block range, calls
// the work-group function once per block and stops at a block that reports
// an error (the state's `error` field, offset 112).
// CHECK-LABEL: define void @__gpuc_launch_k(ptr %launch, ptr %p)
// CHECK: call ptr @aligned_alloc(i64 64,
// CHECK: finish:
// CHECK-NEXT: call void @free(ptr %context)
// CHECK-NOT: thread.x.head
// CHECK: block.body:
// CHECK: call void @k(ptr %state, ptr %p)
// CHECK-NEXT: getelementptr inbounds i8, ptr %state, i64 112
