// form-work-groups writes how the native target runs each barrier kernel as
// a work-group function on the kernel's ops: where each op runs (once for
// the block, split around a barrier, over lanes, or in thread loop N),
// which values vary between threads (and which of those come from a
// thread index), and which live in context storage across a barrier.
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target=native},classify-entrypoints,finalize-kernels,form-work-groups' | FileCheck %s
// The native pipeline lists it last, so --print-ir-after-all shows it.
// RUN: gpuc compile %s --target native --emit mlir --print-ir-after-all --no-cache -o /dev/null 2>&1 | FileCheck %s --check-prefix=LISTED

// LISTED: IR Dump After verify-target
// LISTED: IR Dump After form-work-groups
// LISTED: gpuc.wg.formed

// Two thread loops around the barrier. %v is loaded in the first and read
// in the second: spilled. %t is recomputed from the thread index where it
// is used, so it is not; %m, uniform, runs once.
// CHECK-LABEL: gpuc.func @regions
// CHECK-SAME: gpuc.wg.formed
// CHECK: %c1 = arith.constant {gpuc.wg.run = "once"} 1 : index
// CHECK-NEXT: %m = arith.addi %n, %c1 {gpuc.wg.run = "once"} : index
// CHECK-NEXT: %t = gpuc.thread_id x {gpuc.wg.varying = array<i64: 0>, gpuc.wg.thread = array<i64: 0>, gpuc.wg.region = 0 : i64}
// CHECK-NEXT: %v = gpuc.load %p[%t] {gpuc.wg.varying = array<i64: 0>, gpuc.wg.spill = array<i64: 0>, gpuc.wg.region = 0 : i64}
// CHECK-NEXT: gpuc.barrier {gpuc.wg.run = "split"}
// CHECK-NEXT: %u = arith.addi %t, %m {gpuc.wg.varying = array<i64: 0>, gpuc.wg.thread = array<i64: 0>, gpuc.wg.region = 1 : i64}
// CHECK-NEXT: %w = arith.addf %v, %v {gpuc.wg.varying = array<i64: 0>, gpuc.wg.region = 1 : i64}
// CHECK-NEXT: gpuc.store %w, %p[%u] {gpuc.wg.region = 1 : i64}
gpuc.func @regions(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %u = arith.addi %t, %m : index
  %w = arith.addf %v, %v : f32
  gpuc.store %w, %p[%u] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// A loop with a barrier in its body runs at the block level (split): its
// uniform counter stays one value, its loop-carried %acc varies (argument 1
// of its block), and its body holds two thread loops of its own.
// CHECK-LABEL: gpuc.func @loop
// CHECK: %v = gpuc.load %p[%t] {gpuc.wg.varying = array<i64: 0>, gpuc.wg.spill = array<i64: 0>, gpuc.wg.region = 1 : i64}
// CHECK-NEXT: gpuc.barrier {gpuc.wg.run = "split"}
// CHECK-NEXT: %s = arith.addf %acc, %v {gpuc.wg.varying = array<i64: 0>, gpuc.wg.spill = array<i64: 0>, gpuc.wg.region = 2 : i64}
// CHECK: } {gpuc.wg.varying = array<i64: 0>, gpuc.wg.varying_args = array<i64: 1>, gpuc.wg.run = "split"}
// CHECK-NEXT: gpuc.store %r, %p[%t] {gpuc.wg.region = 3 : i64}
gpuc.func @loop(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %t = gpuc.thread_id x
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
    gpuc.barrier
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  gpuc.store %r, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// An innermost loop with uniform bounds over shared memory, after a
// barrier, runs over groups of lanes; its body ops have no placement (they
// run inside it).
// CHECK-LABEL: gpuc.func @lanes
// CHECK: %sh = gpuc.shared_alloc 16 {gpuc.wg.run = "once"}
// CHECK: %x = gpuc.load %sh[%j] {gpuc.wg.varying = array<i64: 0>} :
// CHECK: } {gpuc.wg.varying = array<i64: 0>, gpuc.wg.varying_args = array<i64: 1>, gpuc.wg.run = "lanes"}
// CHECK-NEXT: gpuc.store %r, %p[%t] {gpuc.wg.region = 1 : i64}
gpuc.func @lanes(%p: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %sh = gpuc.shared_alloc 16 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.store %v, %sh[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %r = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = gpuc.load %sh[%j] : !gpuc.ptr<f32, shared>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  gpuc.store %r, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// A loop from the thread index by the block size (`for j in range(t, n,
// block)`) after a barrier runs over groups of lanes too, each lane from its
// own first j; its iteration variable varies with the thread.
// CHECK-LABEL: gpuc.func @block_stride
// CHECK: %r = scf.for %j = %t to %n step %bx iter_args(%acc = %zero) -> (f32) {
// CHECK: } {gpuc.wg.varying = array<i64: 0>, gpuc.wg.thread = array<i64: 0>, gpuc.wg.varying_args = array<i64: 0, 1>, gpuc.wg.thread_args = array<i64: 0, 1>, gpuc.wg.run = "lanes"}
// CHECK-NEXT: gpuc.store %r, %p[%t] {gpuc.wg.region = 1 : i64}
gpuc.func @block_stride(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %zero = arith.constant 0.0 : f32
  %t = gpuc.thread_id x
  %bx = gpuc.block_dim x
  gpuc.barrier
  %r = scf.for %j = %t to %n step %bx iter_args(%acc = %zero) -> (f32) {
    %x = gpuc.load %p[%j] : !gpuc.ptr<f32, global>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  gpuc.store %r, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// An scf.if on `thread_id x == u` (u uniform) gets a thread loop of its own,
// which the lowering runs for thread u only, when what it reads from before
// it is recomputed; a value loaded before it and used after it (%w) is then
// spilled. One that reads such a loaded value (%y) stays in its region.
// CHECK-LABEL: gpuc.func @one_thread
// CHECK: %w = gpuc.load %p[%t] {gpuc.wg.varying = array<i64: 0>, gpuc.wg.spill = array<i64: 0>, gpuc.wg.region = 1 : i64}
// CHECK-NEXT: %is = arith.cmpi eq, %t, %u {{.*}}gpuc.wg.region = 1 : i64}
// CHECK-NEXT: scf.if %is {
// CHECK-NEXT: gpuc.store %one, %p[%t]
// CHECK-NEXT: }{gpuc.wg.region = 2 : i64}
// CHECK-NEXT: gpuc.store %w, %p[%u] {gpuc.wg.region = 3 : i64}
// CHECK-NEXT: %y = gpuc.load %p[%t] {gpuc.wg.varying = array<i64: 0>, gpuc.wg.region = 3 : i64}
// CHECK-NEXT: scf.if %is {
// CHECK-NEXT: gpuc.store %y, %p[%u]
// CHECK-NEXT: }{gpuc.wg.region = 3 : i64}
gpuc.func @one_thread(%p: !gpuc.ptr<f32, global>, %u: index) kernel {
  %one = arith.constant 1.0 : f32
  %t = gpuc.thread_id x
  gpuc.barrier
  %w = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  %is = arith.cmpi eq, %t, %u : index
  scf.if %is {
    gpuc.store %one, %p[%t] : !gpuc.ptr<f32, global>
  }
  gpuc.store %w, %p[%u] : !gpuc.ptr<f32, global>
  %y = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  scf.if %is {
    gpuc.store %y, %p[%u] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

// -----

// A helper reaching a barrier is split at its call, and decided too: the
// lowering emits its body at the call as the helper's attributes say.
// CHECK-LABEL: gpuc.func private @sync() helper no_inline attributes {gpuc.wg.formed}
// CHECK-NEXT: gpuc.barrier {gpuc.wg.run = "split"}
// CHECK-LABEL: gpuc.func @calls
// CHECK: gpuc.call @sync() {gpuc.wg.run = "split"}
gpuc.func private @sync() helper no_inline {
  gpuc.barrier
  gpuc.return
}
gpuc.func @calls(%p: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.call @sync() : () -> ()
  gpuc.store %v, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// A helper is decided once for all its calls, after every function that
// calls it: each argument is as varying as at any call. @scale's %i is a
// thread index at the kernel's first call (so varying and thread-dependent),
// %k varying at its second; through @outer, whose %n is uniform at its only
// call, @scale's %j is uniform, so %m, computed from it, runs once.
// CHECK-LABEL: gpuc.func private @scale
// CHECK-SAME: attributes {gpuc.wg.varying_args = array<i64: 1, 2>, gpuc.wg.thread_args = array<i64: 1>, gpuc.wg.formed}
// CHECK-NEXT: %m = arith.addi %j, %j {gpuc.wg.run = "once"} : index
// CHECK-NEXT: %v = gpuc.load %p[%i] {gpuc.wg.varying = array<i64: 0>, gpuc.wg.spill = array<i64: 0>, gpuc.wg.region = 0 : i64}
// CHECK-NEXT: gpuc.barrier {gpuc.wg.run = "split"}
// CHECK-NEXT: %w = arith.mulf %v, %k {gpuc.wg.varying = array<i64: 0>, gpuc.wg.region = 1 : i64} : f32
// CHECK-LABEL: gpuc.func private @outer
// CHECK-SAME: attributes {gpuc.wg.formed}
// CHECK-NEXT: gpuc.call @scale(%p, %n, %k, %n) {gpuc.wg.run = "split"}
// CHECK-LABEL: gpuc.func @two_calls
// CHECK-SAME: gpuc.wg.formed
gpuc.func private @scale(%p: !gpuc.ptr<f32, global>, %i: index, %k: f32, %j: index)
    helper no_inline {
  %m = arith.addi %j, %j : index
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %w = arith.mulf %v, %k : f32
  gpuc.store %w, %p[%m] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @outer(%p: !gpuc.ptr<f32, global>, %n: index, %k: f32) helper no_inline {
  gpuc.call @scale(%p, %n, %k, %n) : (!gpuc.ptr<f32, global>, index, f32, index) -> ()
  gpuc.return
}
gpuc.func @two_calls(%p: !gpuc.ptr<f32, global>, %n: index, %k: f32) kernel {
  %t = gpuc.thread_id x
  gpuc.call @scale(%p, %t, %k, %n) : (!gpuc.ptr<f32, global>, index, f32, index) -> ()
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.call @scale(%p, %n, %v, %n) : (!gpuc.ptr<f32, global>, index, f32, index) -> ()
  gpuc.call @outer(%p, %n, %k) : (!gpuc.ptr<f32, global>, index, f32) -> ()
  gpuc.return
}

// -----

// Comparisons print their decisions too (xDSL's arith printer drops an op's
// attributes; gpuc's prints them before the type, as MLIR does).
// CHECK-LABEL: gpuc.func @compare
// CHECK: %lt = arith.cmpi ult, %t, %n {gpuc.wg.varying = array<i64: 0>, gpuc.wg.thread = array<i64: 0>, gpuc.wg.region = 1 : i64} : index
// CHECK: %pos = arith.cmpf ogt, %v, %zero {gpuc.wg.varying = array<i64: 0>, gpuc.wg.region = 1 : i64} : f32
gpuc.func @compare(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %zero = arith.constant 0.0 : f32
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.barrier
  %lt = arith.cmpi ult, %t, %n : index
  %pos = arith.cmpf ogt, %v, %zero : f32
  %both = arith.andi %lt, %pos : i1
  scf.if %both {
    gpuc.store %zero, %p[%t] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

// -----

// A kernel without barriers runs as a plain loop nest: nothing to decide.
// CHECK-LABEL: gpuc.func @no_barrier
// CHECK-NOT: gpuc.wg
// CHECK: gpuc.return
gpuc.func @no_barrier(%p: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.store %v, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// A regrouped add (a derivative kernel's block sum) of what a guard yields,
// zero past the bound, moves into the guard, which loses its results: the
// lowering then runs only the threads below the bound (global_id x < n),
// without masked loads. A plain atomic add, or a non-zero else, stays.
// CHECK-LABEL: gpuc.func @regrouped
// CHECK:      scf.if %in {
// CHECK-NEXT:   %v = gpuc.load %p[%i]
// CHECK-NEXT:   %a = gpuc.atomic_rmw add %sum, %v {gpuc.regrouped
// CHECK-NEXT: }{gpuc.wg.region = 0 : i64}
// CHECK-NEXT: %kept = scf.if %in -> (f32) {
// CHECK:      %b = gpuc.atomic_rmw add %sum, %kept {gpuc.wg.varying
// CHECK-NEXT: %other = scf.if %in -> (f32) {
// CHECK:      %c = gpuc.atomic_rmw add %sum, %other {gpuc.regrouped
gpuc.func @regrouped(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %sum = gpuc.shared_alloc 1 : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %i = gpuc.global_id x
  %in = arith.cmpi ult, %i, %n : index
  %r = scf.if %in -> (f32) {
    %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
    scf.yield %v : f32
  } else {
    scf.yield %zero : f32
  }
  %a = gpuc.atomic_rmw add %sum, %r {gpuc.regrouped} : !gpuc.ptr<f32, shared>
  %kept = scf.if %in -> (f32) {
    %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
    scf.yield %v : f32
  } else {
    scf.yield %zero : f32
  }
  %b = gpuc.atomic_rmw add %sum, %kept : !gpuc.ptr<f32, shared>
  %other = scf.if %in -> (f32) {
    %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
    scf.yield %v : f32
  } else {
    scf.yield %one : f32
  }
  %c = gpuc.atomic_rmw add %sum, %other {gpuc.regrouped} : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return
}
