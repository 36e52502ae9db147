// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s

// Linkage follows visibility (private is internal), kernels get the target's
// calling convention, inlining hints become LLVM attributes, a declaration
// stays a declaration.
// CHECK-LABEL: define ptx_kernel void @kernel(ptr addrspace(1) %out, float %x)
// CHECK: %y = call float @helper(float %x)
// CHECK: %z = call float @declared(float %y)
// CHECK: %w = call float @apply(ptr @indirect, float %z)
gpuc.func @kernel(%out: !gpuc.ptr<f32, global>, %x: f32) kernel {
  %y = gpuc.call @helper(%x) : (f32) -> f32
  %z = gpuc.call @declared(%y) : (f32) -> f32
  %fp = gpuc.func_addr @indirect : !gpuc.funcptr<(f32) -> f32>
  %w = gpuc.call @apply(%fp, %z) : (!gpuc.funcptr<(f32) -> f32>, f32) -> f32
  gpuc.store %w, %out : !gpuc.ptr<f32, global>
  gpuc.return
}

// A call through a function pointer.
// CHECK-LABEL: define internal float @apply(ptr %f, float %v)
// CHECK: %r = call float %f(float %v)
gpuc.func private @apply(%f: !gpuc.funcptr<(f32) -> f32>, %v: f32) -> f32 helper {
  %r = gpuc.call_indirect %f(%v) : !gpuc.funcptr<(f32) -> f32>
  gpuc.return %r : f32
}

// CHECK-LABEL: define internal float @helper(float %a) #0
gpuc.func private @helper(%a: f32) -> f32 helper always_inline {
  gpuc.return %a : f32
}

// CHECK-LABEL: define internal float @indirect(float %a) #1
gpuc.func private @indirect(%a: f32) -> f32 helper no_inline {
  gpuc.return %a : f32
}

// CHECK-LABEL: define float @exported(float %a)
gpuc.func @exported(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}

// CHECK: declare float @declared(float)
gpuc.func private @declared(f32) -> f32 helper

// CHECK: attributes #0 = { alwaysinline }
// CHECK: attributes #1 = { noinline }

// A helper that reaches a barrier (here through another helper) is
// `convergent`, like the barrier, so LLVM never duplicates a call to it into
// divergent paths; helpers that do not sync are not.
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s --check-prefix=SYNC
// SYNC-LABEL: define ptx_kernel void @syncing(
// SYNC: define internal void @outer_sync() #[[CONV:[0-9]+]]
// SYNC: define internal void @inner_sync() #[[CONV]]
// SYNC: attributes #[[CONV]] = { convergent }
gpuc.func @syncing() kernel {
  gpuc.call @outer_sync() : () -> ()
  gpuc.return
}
gpuc.func private @outer_sync() helper {
  gpuc.call @inner_sync() : () -> ()
  gpuc.return
}
gpuc.func private @inner_sync() helper {
  gpuc.barrier
  gpuc.return
}
