// resolve-deferred: every deferred op becomes a plain op on its materialized
// job; the job table materializes each (source, configuration) once.
// RUN: gpuc-opt %s --split-input-file -p 'resolve-deferred{libraries="%S/Inputs/resolve_library.mlir"}' | FileCheck %s

// A deferred call becomes a direct call to a private helper copy of the
// source, named after the job; the source itself is left alone.
// CHECK-LABEL: gpuc.func @call(%x: f32) kernel {
// CHECK-NEXT:    %r = gpuc.call @h.helper(%x) : (f32) -> f32
// CHECK-NOT:     gpuc.deferred_call
// CHECK:       gpuc.func @h(%x: f32) -> f32 helper {
// CHECK:       gpuc.func private @h.helper(%x: f32) -> f32 helper {
// CHECK-NEXT:    %y = arith.mulf %x, %x : f32
gpuc.func @call(%x: f32) kernel {
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// Two kernels deferring the same (source, configuration): one
// materialization. Another configuration: another one, whose inline hint
// replaces the source's.
// CHECK-LABEL: gpuc.func @k1(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @h.helper(%x)
// CHECK-NEXT:    gpuc.call @h.helper.always_inline(%x)
// CHECK-LABEL: gpuc.func @k2(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @h.helper(%x)
// CHECK-NEXT:    gpuc.call @h.helper.no_inline(%x)
// CHECK:       gpuc.func private @h.helper(%x: f32) -> f32 helper always_inline {
// CHECK:       gpuc.func private @h.helper.always_inline(%x: f32) -> f32 helper always_inline {
// CHECK:       gpuc.func private @h.helper.no_inline(%x: f32) -> f32 helper no_inline {
// CHECK-NOT:   gpuc.func private @h.helper
gpuc.func @k1(%x: f32) kernel {
  %a = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @h(%x) #gpuc.job<helper, always_inline> : (f32) -> f32
  gpuc.return
}
gpuc.func @k2(%x: f32) kernel {
  %a = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  %b = gpuc.deferred_call @h(%x) #gpuc.job<helper, no_inline> : (f32) -> f32
  gpuc.return
}
gpuc.func @h(%x: f32) -> f32 helper always_inline {
  gpuc.return %x : f32
}

// -----

// A cycle a -> b -> c -> a terminates with each job materialized once; so
// does self-recursion.
// CHECK-LABEL: gpuc.func @cycle(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @a.helper(%x)
// CHECK-NEXT:    gpuc.call @self.helper(%x)
// CHECK:       gpuc.func private @a.helper(
// CHECK-NEXT:    gpuc.call @b.helper(
// CHECK:       gpuc.func private @self.helper(
// CHECK-NEXT:    gpuc.call @self.helper(
// CHECK:       gpuc.func private @b.helper(
// CHECK-NEXT:    gpuc.call @c.helper(
// CHECK:       gpuc.func private @c.helper(
// CHECK-NEXT:    gpuc.call @a.helper(
// CHECK-NOT:   gpuc.func private
gpuc.func @cycle(%x: f32) kernel {
  %r = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32
  %s = gpuc.deferred_call @self(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @a(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @b(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @b(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @c(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @c(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @a(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @self(%x: f32) -> f32 helper {
  %y = gpuc.deferred_call @self(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return %y : f32
}

// -----

// A deferred launch materializes a public kernel; a deferred address a
// function address of the job.
// CHECK-LABEL: gpuc.func @parent(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
// CHECK-NEXT:    %fp = gpuc.func_addr @scale.helper : !gpuc.funcptr<(f32) -> f32>
// CHECK-NEXT:    gpuc.launch @child.kernel grid(%n) block(%n) shared(%n) (%p) {tag} : (!gpuc.ptr<f32, global>)
// CHECK:       gpuc.func private @scale.helper(%x: f32) -> f32 helper {
// CHECK:       gpuc.func @child.kernel(%p: !gpuc.ptr<f32, global>) kernel {
gpuc.func @parent(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  %fp = gpuc.deferred_addr @scale #gpuc.job<helper> : !gpuc.funcptr<(f32) -> f32>
  gpuc.deferred_launch @child grid(%n) block(%n) shared(%n) (%p) #gpuc.job<kernel> {tag} : (!gpuc.ptr<f32, global>)
  gpuc.return
}
gpuc.func private @scale(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @child(%p: !gpuc.ptr<f32, global>) helper {
  gpuc.return
}

// -----

// mock_autodiff wraps the source; the wrapper calls it as a job of its own.
// `always_inline` is opt-in and names the job.
// CHECK-LABEL: gpuc.func @ad(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @f.helper.mock_autodiff.always_inline(%x)
// CHECK-NEXT:    gpuc.call @f.helper.mock_autodiff(%x)
// CHECK:       gpuc.func private @f.helper.mock_autodiff.always_inline(%x: f32) -> f32 helper always_inline {
// CHECK-NEXT:    %{{.*}} = gpuc.call @f.helper(%x) : (f32) -> f32
// CHECK:       gpuc.func private @f.helper.mock_autodiff(%x: f32) -> f32 helper {
// CHECK-NEXT:    %{{.*}} = gpuc.call @f.helper(%x) : (f32) -> f32
// CHECK:       gpuc.func private @f.helper(%x: f32) -> f32 helper {
gpuc.func @ad(%x: f32) kernel {
  %a = gpuc.deferred_call @f(%x) #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}> : (f32) -> f32
  %b = gpuc.deferred_call @f(%x) #gpuc.job<helper, generator = "mock_autodiff"> : (f32) -> f32
  gpuc.return
}
gpuc.func private @f(%x: f32) -> f32 helper {
  %y = arith.addf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// Sources missing from the module come from the library: the function is
// copied as the job, what it calls directly is linked in under its own name
// (a module declaration gives way to the library's definition), and its
// deferred ops are jobs looked up again. A module definition wins over the
// library's.
// CHECK-LABEL: gpuc.func @uses_library(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @lib_square.helper(%x)
// CHECK-NEXT:    gpuc.call @shadowed.helper(%x)
// CHECK:       gpuc.func private @lib_mul(%a: f32, %b: f32) -> f32 helper {
// CHECK-NEXT:    arith.mulf
// CHECK:       gpuc.func private @shadowed(%x: f32) -> f32 helper {
// CHECK-NEXT:    gpuc.return %x : f32
// CHECK:       gpuc.func private @lib_square.helper(%x: f32) -> f32 helper {
// CHECK-NEXT:    %y = gpuc.call @lib_mul(%x, %x)
// CHECK-NEXT:    %z = gpuc.call @lib_tail.helper(%y)
// CHECK:       gpuc.func private @shadowed.helper(%x: f32) -> f32 helper {
// CHECK-NEXT:    gpuc.return %x : f32
// CHECK:       gpuc.func private @lib_tail.helper(
// CHECK-NOT:   @lib_unused
gpuc.func @uses_library(%x: f32) kernel {
  %r = gpuc.deferred_call @lib_square(%x) #gpuc.job<helper> : (f32) -> f32
  %s = gpuc.deferred_call @shadowed(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @lib_mul(f32, f32) -> f32 helper
gpuc.func private @shadowed(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// A job's name already taken by a user symbol gets a numeric suffix.
// CHECK-LABEL: gpuc.func @taken(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @h.helper.1(%x)
// CHECK:       gpuc.func private @h.helper.1(%x: f32) -> f32 helper {
// CHECK-NEXT:    arith.negf
gpuc.func @taken(%x: f32) kernel {
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @h(%x: f32) -> f32 helper {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}
gpuc.func private @h.helper(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// Each symbol table has its own job table: a nested module resolves its
// deferred ops against its own symbols and keeps its jobs.
// CHECK-LABEL: builtin.module @inner {
// CHECK:         gpuc.func @k(%x: f32) kernel {
// CHECK-NEXT:      gpuc.call @h.helper(%x)
// CHECK:         gpuc.func private @h.helper(%x: f32) -> f32 helper {
// CHECK-NEXT:      arith.negf
// CHECK:       }
// CHECK:       gpuc.func @outer(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @h.helper(%x)
// CHECK:       gpuc.func private @h.helper(%x: f32) -> f32 helper {
// CHECK-NEXT:    gpuc.return %x
builtin.module @inner {
  gpuc.func @k(%x: f32) kernel {
    %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
    gpuc.return
  }
  gpuc.func private @h(%x: f32) -> f32 helper {
    %y = arith.negf %x : f32
    gpuc.return %y : f32
  }
}
gpuc.func @outer(%x: f32) kernel {
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}
gpuc.func private @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
