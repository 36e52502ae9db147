// The autodiff generator through resolve-deferred: Enzyme's conventions, the
// derivative jobs of callees, and the kernel a gpuc.deferred_kernel declares.
// RUN: gpuc-opt %s --split-input-file -p resolve-deferred | FileCheck %s

// Forward mode: a float argument is followed by its tangent; the result is
// the tangent. Reverse mode: the result is the argument's adjoint, the seed 1.0.
// CHECK-LABEL: gpuc.func @modes(%x: f32) -> f32 helper
// CHECK:         %f = gpuc.call @sq.helper.autodiff.mode_forward(%x, %one) : (f32, f32) -> f32
// CHECK:         %r = gpuc.call @sq.helper.autodiff.mode_reverse(%x) : (f32) -> f32
// CHECK-LABEL: gpuc.func private @sq.helper.autodiff.mode_forward(%a: f32, %da: f32) -> f32 helper {
// CHECK-NEXT:    %m = arith.mulf %a, %a : f32
// CHECK-NEXT:    %0 = arith.mulf %a, %da : f32
// CHECK-NEXT:    %1 = arith.mulf %a, %da : f32
// CHECK-NEXT:    %2 = arith.addf %0, %1 : f32
// CHECK-NEXT:    gpuc.return %2 : f32
// CHECK-LABEL: gpuc.func private @sq.helper.autodiff.mode_reverse(%a: f32) -> f32 helper {
// CHECK-NEXT:    %m = arith.mulf %a, %a : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.mulf %a, %0 : f32
// CHECK-NEXT:    %2 = arith.mulf %a, %0 : f32
// CHECK-NEXT:    %3 = arith.addf %1, %2 : f32
// CHECK-NEXT:    gpuc.return %3 : f32
gpuc.func @modes(%x: f32) -> f32 helper {
  %one = arith.constant 1.0 : f32
  %f = gpuc.deferred_call @sq(%x, %one) #gpuc.job<helper, generator = "autodiff" {mode = "forward"}> : (f32, f32) -> f32
  %r = gpuc.deferred_call @sq(%x) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32) -> f32
  %s = arith.addf %f, %r : f32
  gpuc.return %s : f32
}
gpuc.func private @sq(%a: f32) -> f32 helper {
  %m = arith.mulf %a, %a : f32
  gpuc.return %m : f32
}

// -----

// A callee's derivative is a job of its own: forward mode asks for the
// primal results too (primal = true), reverse mode passes the incoming
// adjoint (seed = true). always_inline reaches the callees' jobs, and makes
// the primal call of reverse mode an always-inline job too.
// CHECK-LABEL: gpuc.func private @outer.helper.autodiff.always_inline.mode_forward(%a: f32, %da: f32) -> f32 helper always_inline {
// CHECK-NEXT:    %0, %1 = gpuc.call @inner.helper.autodiff.always_inline.mode_forward.primal(%a, %da) : (f32, f32) -> (f32, f32)
// CHECK-LABEL: gpuc.func private @outer.helper.autodiff.always_inline.mode_reverse(%a: f32) -> f32 helper always_inline {
// CHECK-NEXT:    %r = gpuc.call @inner.helper.always_inline(%a) : (f32) -> f32
// CHECK:         gpuc.call @inner.helper.autodiff.always_inline.mode_reverse.seed(%a, %{{.*}}) : (f32, f32) -> f32
// CHECK-LABEL: gpuc.func private @inner.helper.autodiff.always_inline.mode_forward.primal(%a: f32, %da: f32) -> (f32, f32) helper always_inline {
// CHECK:         gpuc.return %s, %{{.*}} : f32, f32
// CHECK-LABEL: gpuc.func private @inner.helper.autodiff.always_inline.mode_reverse.seed(%a: f32, %0: f32) -> f32 helper always_inline {
gpuc.func @k(%x: f32, %y: !gpuc.ptr<f32, global>) kernel {
  %one = arith.constant 1.0 : f32
  %f = gpuc.deferred_call @outer(%x, %one) #gpuc.job<helper, generator = "autodiff" {mode = "forward", always_inline}> : (f32, f32) -> f32
  %r = gpuc.deferred_call @outer(%x) #gpuc.job<helper, generator = "autodiff" {mode = "reverse", always_inline}> : (f32) -> f32
  %s = arith.addf %f, %r : f32
  gpuc.store %s, %y : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @outer(%a: f32) -> f32 helper {
  %r = gpuc.call @inner(%a) : (f32) -> f32
  %m = arith.mulf %r, %a : f32
  gpuc.return %m : f32
}
gpuc.func private @inner(%a: f32) -> f32 helper {
  %s = math.sin %a : f32
  gpuc.return %s : f32
}

// -----

// A kernel's reverse derivative, launched by the host as @scale_grad: the
// shadow of each float pointer follows it; the adjoint of the float scalar
// is summed over the block in shared memory (in any grouping: regrouped),
// then added into one more
// pointer once per block. A load's adjoint is added to the shadow atomically
// unless the launch is one-dimensional (each thread its own element).
// CHECK-LABEL: gpuc.func @scale_grad(%0: f32, %1: !gpuc.ptr<f32, global>, %2: !gpuc.ptr<f32, global>, %3: !gpuc.ptr<f32, global>, %4: !gpuc.ptr<f32, global>, %5: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    %6 = gpuc.shared_alloc 1 : !gpuc.ptr<f32, shared>
// CHECK:         gpuc.barrier
// CHECK-NEXT:    %17 = gpuc.call @scale.helper.autodiff.mode_reverse(%0, %1, %2, %3, %4) : (f32, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>) -> f32
// CHECK-NEXT:    %18 = gpuc.atomic_rmw add %6, %17 {gpuc.regrouped} : !gpuc.ptr<f32, shared>
// CHECK-NEXT:    gpuc.barrier
// CHECK-NEXT:    scf.if %15 {
// CHECK-NEXT:      %19 = gpuc.load %6 : !gpuc.ptr<f32, shared>
// CHECK-NEXT:      %20 = gpuc.atomic_rmw add %5, %19 : !gpuc.ptr<f32, global>
// CHECK-LABEL: gpuc.func private @scale.helper.autodiff.mode_reverse(%a: f32, %x: !gpuc.ptr<f32, global>, %dx: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %dy: !gpuc.ptr<f32, global>) -> f32 helper {
// CHECK:         %[[D:.*]] = gpuc.load %dy[%i] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    gpuc.store %[[Z]], %dy[%i] : !gpuc.ptr<f32, global>
// CHECK:         scf.if %{{.*}} {
// CHECK:           gpuc.store %{{.*}}, %dx[%i] : !gpuc.ptr<f32, global>
// CHECK:         } else {
// CHECK-NEXT:      gpuc.atomic_rmw add %dx[%i], %{{.*}} : !gpuc.ptr<f32, global>
gpuc.deferred_kernel @scale_grad = @scale #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>) -> f32
gpuc.func @scale(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = arith.mulf %a, %v : f32
  gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

// The single-writer rule (docs/autodiff.md): %c = y * w + x with x < w
// guarded is injective in (x, y), so the adjoints into %din are plain
// read-add-writes where the launch's z extent is 1 (tested once, at the
// function's start); %dnb, read at a neighbour too, gets atomic adds, which
// are regrouped (an adjoint is a sum in any grouping).
// CHECK-LABEL: gpuc.func private @rows.helper.autodiff.mode_reverse
// CHECK-NEXT:    %[[GZ:.*]] = gpuc.grid_dim z
// CHECK-NEXT:    %[[BZ:.*]] = gpuc.block_dim z
// CHECK-NEXT:    %[[EZ:.*]] = arith.muli %[[GZ]], %[[BZ]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[IS:.*]] = arith.cmpi eq, %[[EZ]], %[[ONE]] : index
// CHECK:         gpuc.atomic_rmw add %dnb[%{{.*}}], %{{[^ ]*}} {gpuc.regrouped} : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.atomic_rmw add %dnb[%[[C:.*]]], %{{[^ ]*}} {gpuc.regrouped} : !gpuc.ptr<f32, global>
// CHECK-NEXT:    scf.if %[[IS]] {
// CHECK-NEXT:      %[[OLD:.*]] = gpuc.load %din[%[[C]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} fastmath<nsz> : f32
// CHECK-NEXT:      gpuc.store %[[NEW]], %din[%[[C]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %{{.*}} = gpuc.atomic_rmw add %din[%[[C]]], %{{.*}} : !gpuc.ptr<f32, global>
gpuc.deferred_kernel @rows_grad = @rows #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, i32) -> ()
gpuc.func @rows(%in: !gpuc.ptr<f32, global>, %nb: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %x = gpuc.global_id x
  %y = gpuc.global_id y
  %w = arith.index_cast %n : i32 to index
  %x_in = arith.cmpi ult, %x, %w : index
  scf.if %x_in {
    %row = arith.muli %y, %w : index
    %c = arith.addi %row, %x : index
    %c1 = arith.constant 1 : index
    %next = arith.addi %c, %c1 : index
    %v = gpuc.load %in[%c] : !gpuc.ptr<f32, global>
    %p = gpuc.load %nb[%c] : !gpuc.ptr<f32, global>
    %q = gpuc.load %nb[%next] : !gpuc.ptr<f32, global>
    %s = arith.addf %p, %q : f32
    %r = arith.mulf %v, %s : f32
    gpuc.store %r, %out[%c] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

// -----

// A helper's arguments differ between threads (a caller may pass each thread
// the same element): its shadow updates are atomic, whatever the index.
// CHECK-LABEL: gpuc.func private @own.helper.autodiff.mode_reverse
// CHECK-NOT:     scf.if
// CHECK:         gpuc.atomic_rmw add %dx[%i]
// CHECK-NOT:     scf.if
gpuc.func @use(%x: !gpuc.ptr<f32, global>, %dx: !gpuc.ptr<f32, global>) kernel {
  gpuc.deferred_call @own(%x, %dx) #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>) -> ()
  gpuc.return
}
gpuc.func private @own(%x: !gpuc.ptr<f32, global>) -> f32 helper {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = arith.mulf %v, %v : f32
  gpuc.return %r : f32
}
