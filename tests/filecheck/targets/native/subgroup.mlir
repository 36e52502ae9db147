// A kernel with a subgroup collective becomes a work-group function, like one
// with a barrier: the loop nest before the shuffle stores its operand in the
// block's context storage; a loop over the threads (`lanes`) then computes
// each thread's result from its warp's slots (lane = linear index mod 32) and
// stores it, and the valid flag, to their slots; the loop nest after the
// shuffle loads them back. A reduction folds its warp's slots (`fold`).
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @k(ptr %state, ptr %p, i32 %o)
// CHECK: t.x.body:
// CHECK: %x = load float
// CHECK: store float %x, ptr
// CHECK: lanes.x.body:
// CHECK: urem i64 %{{.*}}, 32
// CHECK: load float, ptr
// CHECK: store float
// CHECK: store i1
// CHECK: lanes.x.body.1:
// CHECK: fold.body:
// CHECK: fadd
// CHECK: t.x.body.1:
// CHECK: load i1
// CHECK: select i1
// CHECK: store float
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %o: i32) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  %r, %v = gpuc.shuffle down %x, %o : f32
  %s = gpuc.subgroup_reduce add %r : f32
  %w = arith.select %v, %s, %x : f32
  gpuc.store %w, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
