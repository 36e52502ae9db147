// inline{single-use=true}: besides the always_inline callees, inline each
// private helper whose only use is one direct call (what LLVM's inliner does
// at O1 and above), then erase it; the pipeline sets it at opt_level >= 1.
// Plain `inline` keeps those helpers as calls.
// RUN: gpuc-opt %s --split-input-file -p 'inline{single-use=true}' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -p inline | FileCheck %s --check-prefix=PLAIN

// A helper called once, itself calling a helper once: both land in the
// kernel and are gone.
// CHECK-LABEL: gpuc.func @once(%x: f32) kernel {
// CHECK-NEXT:    %y = arith.addf %x, %x : f32
// CHECK-NEXT:    %{{.*}} = arith.mulf %y, %y : f32
// CHECK-NEXT:    gpuc.return
// CHECK-NEXT:  }
// CHECK-NOT:   gpuc.func
// PLAIN-LABEL: gpuc.func @once(%x: f32) kernel {
// PLAIN-NEXT:    gpuc.call @outer(%x)
// PLAIN:       gpuc.func private @outer(
// PLAIN:       gpuc.func private @inner(
gpuc.func @once(%x: f32) kernel {
  %r = gpuc.call @outer(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @outer(%x: f32) -> f32 helper {
  %y = arith.addf %x, %x : f32
  %z = gpuc.call @inner(%y) : (f32) -> f32
  gpuc.return %z : f32
}
gpuc.func private @inner(%x: f32) -> f32 helper {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// Two call sites, an address taken besides the one call, a no_inline hint,
// public visibility, no body: each keeps its calls.
// CHECK-LABEL: gpuc.func @kept(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @twice(%x)
// CHECK-NEXT:    gpuc.call @twice(%x)
// CHECK-NEXT:    gpuc.func_addr @addressed
// CHECK-NEXT:    gpuc.call @addressed(%x)
// CHECK-NEXT:    gpuc.call @never(%x)
// CHECK-NEXT:    gpuc.call @public(%x)
// CHECK-NEXT:    gpuc.call @declared(%x)
// CHECK-LABEL: gpuc.func private @twice(
// CHECK-LABEL: gpuc.func private @addressed(
// CHECK-LABEL: gpuc.func private @never(
// CHECK-LABEL: gpuc.func @public(
// CHECK-LABEL: gpuc.func private @declared(
gpuc.func @kept(%x: f32) kernel {
  %a = gpuc.call @twice(%x) : (f32) -> f32
  %b = gpuc.call @twice(%x) : (f32) -> f32
  %p = gpuc.func_addr @addressed : !gpuc.funcptr<(f32) -> f32>
  %c = gpuc.call @addressed(%x) : (f32) -> f32
  %d = gpuc.call @never(%x) : (f32) -> f32
  %e = gpuc.call @public(%x) : (f32) -> f32
  %f = gpuc.call @declared(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @twice(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @addressed(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @never(%x: f32) -> f32 helper no_inline {
  gpuc.return %x : f32
}
gpuc.func @public(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @declared(f32) -> f32 helper

// -----

// A symbol reference in an attribute is a use besides the call.
// CHECK-LABEL: gpuc.func @attribute(%x: f32) kernel attributes {refers = @referenced} {
// CHECK-NEXT:    gpuc.call @referenced(%x)
// CHECK-LABEL: gpuc.func private @referenced(
gpuc.func @attribute(%x: f32) kernel attributes {refers = @referenced} {
  %a = gpuc.call @referenced(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @referenced(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// Recursion: @b is called once (by @a) but is on the cycle a -> b -> a, and
// @loop calls only itself; neither is inlined.
// CHECK-LABEL: gpuc.func @recursive(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @a(%x)
// CHECK-LABEL: gpuc.func private @a(
// CHECK-NEXT:    gpuc.call @b(%x)
// CHECK-LABEL: gpuc.func private @b(
// CHECK-NEXT:    gpuc.call @a(%x)
// CHECK-LABEL: gpuc.func private @loop(
// CHECK-NEXT:    gpuc.call @loop(%x)
gpuc.func @recursive(%x: f32) kernel {
  %r = gpuc.call @a(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @a(%x: f32) -> f32 helper {
  %y = gpuc.call @b(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @b(%x: f32) -> f32 helper {
  %y = gpuc.call @a(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @loop(%x: f32) -> f32 helper {
  %y = gpuc.call @loop(%x) : (f32) -> f32
  gpuc.return %y : f32
}

// -----

// Uses are counted once the always_inline callees are inlined: @under_once
// is called by an always-inline helper inlined once, so once; @under_twice
// by one inlined twice, so twice.
// CHECK-LABEL: gpuc.func @after_always(%x: f32) kernel {
// CHECK-NEXT:    %{{.*}} = arith.negf %x : f32
// CHECK-NEXT:    gpuc.call @under_twice(%x)
// CHECK-NEXT:    gpuc.call @under_twice(%x)
// CHECK-NEXT:    gpuc.return
// CHECK-NOT:   @under_once
// CHECK-NOT:   @wrap
// CHECK-LABEL: gpuc.func private @under_twice(
// CHECK-NOT:   gpuc.func
gpuc.func @after_always(%x: f32) kernel {
  %a = gpuc.call @wrap_once(%x) : (f32) -> f32
  %b = gpuc.call @wrap_twice(%x) : (f32) -> f32
  %c = gpuc.call @wrap_twice(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @wrap_once(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @under_once(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @wrap_twice(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @under_twice(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @under_once(%x: f32) -> f32 helper {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}
gpuc.func private @under_twice(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}

// -----

// A helper of several blocks called once inside scf.if becomes an
// scf.execute_region, as an always-inline one does.
// CHECK-LABEL: gpuc.func @branchy(%x: f32, %c: i1) kernel {
// CHECK-NEXT:    scf.if %c {
// CHECK-NEXT:      %{{.*}} = scf.execute_region -> (f32) {
// CHECK-NEXT:        cf.cond_br %c, ^{{.*}}, ^{{.*}}
// CHECK:             scf.yield
// CHECK-NOT:   gpuc.func
gpuc.func @branchy(%x: f32, %c: i1) kernel {
  scf.if %c {
    %r = gpuc.call @pick(%x, %c) : (f32, i1) -> f32
    scf.yield
  }
  gpuc.return
}
gpuc.func private @pick(%x: f32, %c: i1) -> f32 helper {
  cf.cond_br %c, ^neg, ^pos
^neg:
  %n = arith.negf %x : f32
  gpuc.return %n : f32
^pos:
  gpuc.return %x : f32
}

// -----

// Calls resolve in their nearest symbol table: the nested module's kernel
// inlines its own @h and @ai, the outer kernel the outer @h (same names);
// the outer @ai, private and always-inline, is never called, so erased.
// CHECK-LABEL: builtin.module @inner {
// CHECK-NEXT:    gpuc.func @nested(%x: f32) kernel {
// CHECK-NEXT:      %{{.*}} = arith.addf %x, %x : f32
// CHECK-NEXT:      %{{.*}} = arith.subf %x, %x : f32
// CHECK-NEXT:      gpuc.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  gpuc.func @outer(%x: f32) kernel {
// CHECK-NEXT:    %{{.*}} = arith.mulf %x, %x : f32
// CHECK-NEXT:    gpuc.return
// CHECK-NEXT:  }
// CHECK-NEXT: }
// PLAIN-LABEL: builtin.module @inner {
// PLAIN-NEXT:    gpuc.func @nested(%x: f32) kernel {
// PLAIN-NEXT:      gpuc.call @h(%x)
// PLAIN-NEXT:      %{{.*}} = arith.subf %x, %x : f32
builtin.module @inner {
  gpuc.func @nested(%x: f32) kernel {
    %a = gpuc.call @h(%x) : (f32) -> f32
    %b = gpuc.call @ai(%x) : (f32) -> f32
    gpuc.return
  }
  gpuc.func private @h(%x: f32) -> f32 helper {
    %y = arith.addf %x, %x : f32
    gpuc.return %y : f32
  }
  gpuc.func private @ai(%x: f32) -> f32 helper always_inline {
    %y = arith.subf %x, %x : f32
    gpuc.return %y : f32
  }
}
gpuc.func @outer(%x: f32) kernel {
  %a = gpuc.call @h(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @h(%x: f32) -> f32 helper {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}
gpuc.func private @ai(%x: f32) -> f32 helper always_inline {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}
