// docs/native-abi.md: kernels take the state pointer first, helpers only when
// they (or their callees) read it; index ops, shared memory and the barrier
// read the state at the documented offsets; each kernel has an external
// `__gpuc_launch_<k>(ptr %launch, ...)`.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @k(ptr %state, ptr %out, float %x) #0
// CHECK: call float @pure(float %x)
// CHECK: call i64 @reads_state(ptr %state)
// CHECK: call i64 @calls_reader(ptr %state)
gpuc.func @k(%out: !gpuc.ptr<f32, global>, %x: f32) kernel {
  %y = gpuc.call @pure(%x) : (f32) -> f32
  %t = gpuc.call @reads_state() : () -> index
  %u = gpuc.call @calls_reader() : () -> index
  gpuc.store %y, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// CHECK-LABEL: define internal float @pure(float %a)
gpuc.func private @pure(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}

// thread_id y is at offset 8, block_dim x at 48; shared at 96.
// CHECK-LABEL: define internal i64 @reads_state(ptr %state)
// CHECK: [[T:%.*]] = getelementptr inbounds i8, ptr %state, i64 8
// CHECK-NEXT: %t = load i64, ptr [[T]], align 8
// CHECK: [[D:%.*]] = getelementptr inbounds i8, ptr %state, i64 48
// CHECK-NEXT: %d = load i64, ptr [[D]], align 8
// CHECK: [[S:%.*]] = getelementptr inbounds i8, ptr %state, i64 96
// CHECK-NEXT: [[BASE:%.*]] = load ptr, ptr [[S]], align 8
// CHECK-NEXT: %s = getelementptr inbounds i8, ptr [[BASE]], i64 0
gpuc.func private @reads_state() -> index helper {
  %t = gpuc.thread_id y
  %d = gpuc.block_dim x
  %s = gpuc.shared_alloc 4 : !gpuc.ptr<f32, shared>
  %r = arith.addi %t, %d : index
  gpuc.return %r : index
}

// CHECK-LABEL: define internal i64 @calls_reader(ptr %state)
// CHECK: call i64 @reads_state(ptr %state)
gpuc.func private @calls_reader() -> index helper {
  %r = gpuc.call @reads_state() : () -> index
  gpuc.return %r : index
}

// A barrier-free kernel: every thread of each block in [begin, end), thread
// x innermost, calling the kernel (always inlined).
// CHECK-LABEL: define void @__gpuc_launch_k(ptr %launch, ptr %out, float %x)
// CHECK: block.head:
// CHECK: thread.z.head:
// CHECK: thread.y.head:
// CHECK: thread.x.head:
// CHECK: call void @k(ptr %state, ptr %out, float %x)

// CHECK: attributes #0 = { alwaysinline }
