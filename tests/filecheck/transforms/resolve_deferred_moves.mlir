// resolve-deferred{move-sources=true} (the pipeline's setting, symbol-dce
// following): a private source that only its job references is moved into
// the job instead of copied; any other source is copied, as without it.
// RUN: gpuc-opt %s --split-input-file -p 'resolve-deferred{move-sources=true exports=kept}' | FileCheck %s

// @once is moved (gone from its place, the job at the end as a copy would
// be); @twice has two jobs, @addressed a func_addr, @kept is exported,
// @public is public, @nests holds a deferred op: all copied.
// CHECK-LABEL: gpuc.func @k(%x: f32) kernel {
// CHECK-NEXT:    %r = gpuc.call @once.helper(%x)
// CHECK-NEXT:    %s = gpuc.call @twice.helper(%x)
// CHECK-NEXT:    %t = gpuc.call @twice.helper.always_inline(%x)
// CHECK-NEXT:    %u = gpuc.call @addressed.helper(%x)
// CHECK-NEXT:    %f = gpuc.func_addr @addressed
// CHECK-NEXT:    %v = gpuc.call @kept.helper(%x)
// CHECK-NEXT:    %w = gpuc.call @public.helper(%x)
// CHECK-NEXT:    %n = gpuc.call @nests.helper(%x)
// CHECK-NOT:     @once(
// CHECK:       gpuc.func private @twice(
// CHECK:       gpuc.func private @addressed(
// CHECK:       gpuc.func private @kept(
// CHECK:       gpuc.func @public(
// CHECK:       gpuc.func private @nests(
// CHECK-NEXT:    gpuc.call @inner.helper(
// CHECK:       gpuc.func private @once.helper(%x: f32) -> f32 helper {
// CHECK-NEXT:    %y = arith.negf %x : f32
// CHECK:       gpuc.func private @twice.helper(
// CHECK:       gpuc.func private @twice.helper.always_inline(
// CHECK:       gpuc.func private @addressed.helper(
// CHECK:       gpuc.func private @kept.helper(
// CHECK:       gpuc.func private @public.helper(
// CHECK:       gpuc.func private @nests.helper(
// CHECK-NEXT:    gpuc.call @inner.helper(
// CHECK:       gpuc.func private @inner.helper(
gpuc.func @k(%x: f32) kernel {
  %r = gpuc.deferred_call @once(%x) #gpuc.job<helper> : (f32) -> f32
  %s = gpuc.deferred_call @twice(%x) #gpuc.job<helper> : (f32) -> f32
  %t = gpuc.deferred_call @twice(%x) #gpuc.job<helper, always_inline> : (f32) -> f32
  %u = gpuc.deferred_call @addressed(%x) #gpuc.job<helper> : (f32) -> f32
  %f = gpuc.func_addr @addressed : !gpuc.funcptr<(f32) -> f32>
  %v = gpuc.deferred_call @kept(%x) #gpuc.job<helper> : (f32) -> f32
  %w = gpuc.deferred_call @public(%x) #gpuc.job<helper> : (f32) -> f32
  %n = gpuc.deferred_call @nests(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @once(%x: f32) -> f32 helper {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}
gpuc.func private @twice(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @addressed(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @kept(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func @public(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @nests(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @inner(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @inner(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// A moved source's name stays taken: the job of @g is named @g.helper.1, as
// it is when @g.helper (the source of the other job) is copied.
// CHECK-LABEL: gpuc.func @names(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @g.helper.helper(%x)
// CHECK-NEXT:    gpuc.call @g.helper.1(%x)
// CHECK-NOT:     @g.helper(
// CHECK:       gpuc.func @g(
// CHECK:       gpuc.func private @g.helper.helper(
// CHECK:       gpuc.func private @g.helper.1(
gpuc.func @names(%x: f32) kernel {
  %a = gpuc.deferred_call @g.helper(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @g(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @g.helper(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func @g(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// With a job a generator makes, nothing is moved: a generator may add
// references to the module's functions (mock_autodiff's wrapper calls its
// source as a job of its own).
// CHECK-LABEL: gpuc.func @generated(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @single.helper(%x)
// CHECK-NEXT:    gpuc.call @f.helper.mock_autodiff(%x)
// CHECK:       gpuc.func private @single(
// CHECK:       gpuc.func private @single.helper(
gpuc.func @generated(%x: f32) kernel {
  %a = gpuc.deferred_call @single(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @f(%x) #gpuc.job<helper, generator = "mock_autodiff"> : (f32) -> f32
  gpuc.return
}
gpuc.func private @single(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func @f(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
