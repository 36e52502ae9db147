// The whole dialect-level pipeline on deferred jobs, mirroring GPUCompiler.jl
// PR #928 and its tests: only kernels (child kernels included) and explicit
// exports stay public; every other job is internalized, inlined if marked
// always_inline, and dropped once dead. At O0, so that `inline` keeps the
// helpers called once as calls (at O1 and above it inlines them as LLVM
// would: tests/filecheck/transforms/inline_single_use.mlir).
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target=ptx opt-level=0},gpuc-pipeline' | FileCheck %s

// A deferred call to a helper: no deferred op remains, the call is direct,
// the materialized helper is private and its unused source is gone.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@kernel]} {
// CHECK-NEXT:    gpuc.func @kernel(%x: f32, %p: !gpuc.ptr<f32, global>) kernel
// CHECK-NEXT:      %r = gpuc.call @helper.helper(%x) : (f32) -> f32
// CHECK-NOT:     deferred
// CHECK-NOT:     @helper(
// CHECK:         gpuc.func private @helper.helper(%x: f32) -> f32 helper {
// CHECK-NOT:     deferred
// CHECK-NOT:     @helper(
gpuc.func @kernel(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %r = gpuc.deferred_call @helper(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @helper(%x: f32) -> f32 helper {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// The mock autodiff generator with its opt-in always_inline flag: the
// wrapper is gone entirely and the kernel holds its body (a call to the
// wrapped function's own job).
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@kernel]} {
// CHECK-NEXT:    gpuc.func @kernel(%x: f32, %p: !gpuc.ptr<f32, global>) kernel
// CHECK-NEXT:      %{{.*}} = gpuc.call @f.helper(%x) : (f32) -> f32
// CHECK-NOT:     mock_autodiff
// CHECK-NOT:     @f(
// CHECK:         gpuc.func private @f.helper(%x: f32) -> f32 helper {
// CHECK-NOT:     mock_autodiff
// CHECK-NOT:     @f(
gpuc.func @kernel(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %r = gpuc.deferred_call @f(%x) #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}> : (f32) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @f(%x: f32) -> f32 helper {
  %y = arith.addf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// Without the flag the wrapper remains, as a private helper.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@kernel]} {
// CHECK-NEXT:    gpuc.func @kernel(%x: f32, %p: !gpuc.ptr<f32, global>) kernel
// CHECK-NEXT:      %r = gpuc.call @f.helper.mock_autodiff(%x) : (f32) -> f32
// CHECK-NOT:     @f(
// CHECK:         gpuc.func private @f.helper.mock_autodiff(%x: f32) -> f32 helper {
// CHECK-NEXT:      %{{.*}} = gpuc.call @f.helper(%x) : (f32) -> f32
// CHECK:         gpuc.func private @f.helper(%x: f32) -> f32 helper {
// CHECK-NOT:     @f(
gpuc.func @kernel(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %r = gpuc.deferred_call @f(%x) #gpuc.job<helper, generator = "mock_autodiff"> : (f32) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @f(%x: f32) -> f32 helper {
  %y = arith.addf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// A deferred child-kernel launch: the child is a kernel, stays public, is
// in the entrypoint set and is finalized (the ptx target records its static
// shared memory) like the parent.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@parent, @child.kernel]} {
// CHECK-NEXT:    gpuc.func @parent(%p: !gpuc.ptr<f32, global>, %n: index) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "parent", cconv = "ptx_kernel", shared = 0>} {
// CHECK-NEXT:      gpuc.launch @child.kernel grid(%n) block(%n) (%p) : (!gpuc.ptr<f32, global>)
// CHECK-NOT:     deferred
// CHECK-NOT:     @child(
// CHECK:         gpuc.func @child.kernel(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "child_$_kernel", cconv = "ptx_kernel", shared = 128>} {
// CHECK-NOT:     @child(
gpuc.func @parent(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  gpuc.deferred_launch @child grid(%n) block(%n) (%p) #gpuc.job<kernel> : (!gpuc.ptr<f32, global>)
  gpuc.return
}
gpuc.func private @child(%p: !gpuc.ptr<f32, global>) helper {
  %s = gpuc.shared_alloc 32 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

// Two kernels deferring the same (source, configuration): one
// materialization. A different configuration: a second one.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@k1, @k2]} {
// CHECK:         gpuc.call @h.helper(%x)
// CHECK:         gpuc.call @h.helper(%x)
// CHECK-NEXT:    gpuc.call @h.helper.no_inline(%x)
// CHECK-NOT:     @h(
// CHECK:         gpuc.func private @h.helper(
// CHECK-NOT:     @h.helper.{{[0-9]}}
// CHECK:         gpuc.func private @h.helper.no_inline(
// CHECK-NOT:     gpuc.func
gpuc.func @k1(%x: f32) kernel {
  %a = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func @k2(%x: f32) kernel {
  %a = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @h(%x) #gpuc.job<helper, no_inline> : (f32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// Cycles a -> b -> c -> a and self-recursion terminate, each job
// materialized once.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@k]} {
// CHECK-NEXT:    gpuc.func @k(%x: f32) kernel
// CHECK-NEXT:      gpuc.call @a.helper(%x)
// CHECK-NEXT:      gpuc.call @self.helper(%x)
// CHECK-NOT:     {{@(a|b|c|self)(\(|\.helper\.[0-9])}}
// CHECK:         gpuc.func private @a.helper(
// CHECK-NEXT:      gpuc.call @b.helper(%x)
// CHECK-NOT:     {{@(a|b|c|self)(\(|\.helper\.[0-9])}}
// CHECK:         gpuc.func private @self.helper(
// CHECK-NEXT:      gpuc.call @self.helper(%x)
// CHECK-NOT:     {{@(a|b|c|self)(\(|\.helper\.[0-9])}}
// CHECK:         gpuc.func private @b.helper(
// CHECK-NEXT:      gpuc.call @c.helper(%x)
// CHECK-NOT:     {{@(a|b|c|self)(\(|\.helper\.[0-9])}}
// CHECK:         gpuc.func private @c.helper(
// CHECK-NEXT:      gpuc.call @a.helper(%x)
// CHECK-NOT:     gpuc.func
gpuc.func @k(%x: f32) kernel {
  %r = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32
  %s = gpuc.deferred_call @self(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func @a(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @b(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func @b(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @c(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func @c(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func @self(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @self(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}

// -----

// Unused declarations are removed; used ones stay, as declarations.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90, opt_level = 0>, gpuc.entrypoints = [@k]} {
// CHECK-NOT:     @unused_decl
// CHECK:         gpuc.func private @used_decl(f32) -> f32 helper
// CHECK-NOT:     @unused_decl
gpuc.func @k(%x: f32) kernel {
  %y = gpuc.call @used_decl(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @used_decl(f32) -> f32 helper
gpuc.func private @unused_decl(f32) -> f32 helper
